// Group commit for SQLite's hottest write (payment creation, issue 16). Every commit in WAL mode with
// synchronous=FULL ends in an fsync. Writes that arrive while one batch is being committed, or in the same turn
// of the event loop, are committed together: one BEGIN IMMEDIATE … COMMIT, each write inside its own savepoint,
// so a write that fails is undone alone and its caller gets the error while the others commit. No caller hears
// of its write before the COMMIT that holds it has returned (durable before visible), and a failed COMMIT fails
// every write of the batch (none of them is stored). Where the batch runs (the writer thread's connection, or
// the main connection for an in-memory database) is the committer's business (sqlite-writer.ts).
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteWriteOp } from './sqlite-write-ops.ts';

/** Writes committed together at most; bounds how long one batch holds the connection. */
export const MAX_BATCH = 64;

/** A write by name, as it crosses to the writer thread. */
export interface SqliteWrite {
  op: SqliteWriteOp;
  args: unknown;
}

/** What became of one write of a batch whose transaction committed. */
export type WriteOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Commits a batch and answers each write's outcome, in order; rejects when the transaction as a whole failed
 * (then none of the batch is stored). Called with the writer's connection held (see {@link SqliteWriteBatch}).
 */
export type BatchCommitter = (batch: SqliteWrite[]) => WriteOutcome[] | Promise<WriteOutcome[]>;

interface Pending {
  write: SqliteWrite;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Batches handed to the committer before the first of them is answered (the writer thread works through them in order). */
export const PIPELINE = 2;

/** Batches sent in one hold of the main connection; then it is let go, so query-builder work waiting for it runs. */
export const BATCHES_PER_HOLD = 16;

/**
 * Queues writes and hands them to the committer in batches. While the main connection is held, up to
 * {@link PIPELINE} batches are out at once: the writer thread commits the next batch as soon as one is done,
 * instead of waiting for the request thread to hear of it and send another.
 */
export class SqliteWriteBatch {
  private queue: Pending[] = [];
  private scheduled = false;
  /** Wakes a hold waiting for its batches when new writes are queued. */
  private kick: (() => void) | undefined;
  private holding = false;
  /** Batches committed and writes in them, for the benchmark's report. */
  batches = 0;
  writes = 0;

  constructor(
    private readonly commit: BatchCommitter,
    /** Runs `run` while holding the main connection (Kysely's), so no other transaction is open on it meanwhile. */
    private readonly exclusive: (run: () => Promise<void>) => Promise<void>,
  ) {}

  /** Queues the write for the next batch; resolves with its result once that batch's transaction committed. */
  write(write: SqliteWrite): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    // After the current I/O phase: requests parsed in the same turn join one batch.
    setImmediate(() => {
      this.scheduled = false;
      if (this.holding) return this.kick?.();
      this.holding = true;
      this.exclusive(() => this.hold()).then(
        () => this.release(),
        (err: unknown) => {
          // Taking the connection failed (the database is closing): every queued write fails with it.
          for (const p of this.queue.splice(0)) p.reject(err);
          this.release();
        },
      );
    });
  }

  private release(): void {
    this.holding = false;
    this.kick = undefined;
    this.schedule();
  }

  /** Sends the queued writes in batches while the main connection is held, until none is queued or out. */
  private async hold(): Promise<void> {
    const out = new Set<Promise<void>>();
    let sent = 0;
    for (;;) {
      // Everything queued until now joins the next batch.
      while (this.queue.length > 0 && out.size < PIPELINE && sent < BATCHES_PER_HOLD) {
        const done: Promise<void> = this.commitBatch(this.queue.splice(0, MAX_BATCH)).finally(() => out.delete(done));
        out.add(done);
        sent += 1;
      }
      if (out.size === 0) return;
      await Promise.race([...out, new Promise<void>((r) => (this.kick = r))]);
      this.kick = undefined;
    }
  }

  private async commitBatch(batch: Pending[]): Promise<void> {
    let outcomes: WriteOutcome[];
    try {
      outcomes = await this.commit(batch.map((p) => p.write));
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    this.batches += 1;
    this.writes += batch.length;
    batch.forEach((p, i) => {
      const o = outcomes[i];
      if (o === undefined) p.reject(new Error('the write batch ended before this write ran'));
      else if (o.ok) p.resolve(o.value);
      else p.reject(o.error);
    });
  }
}

/** A connection's two transaction functions, made once: better-sqlite3 builds a wrapper for each `transaction` call. */
const transactionsByConnection = new WeakMap<
  BetterSqlite3.Database,
  { batch: BetterSqlite3.Transaction<(works: (() => unknown)[]) => WriteOutcome[]>; savepoint: BetterSqlite3.Transaction<(work: () => unknown) => unknown> }
>();

function transactionsOf(raw: BetterSqlite3.Database) {
  let made = transactionsByConnection.get(raw);
  if (!made) {
    // Called inside the batch's transaction, better-sqlite3 runs it as a savepoint: a throw undoes that write only.
    const savepoint = raw.transaction((work: () => unknown) => work());
    const batch = raw.transaction((works: (() => unknown)[]) => {
      const outcomes: WriteOutcome[] = [];
      for (const work of works) {
        // SQLite may have rolled the whole transaction back after an I/O or full-disk error: stop, and let
        // the COMMIT below fail for every write of the batch.
        if (!raw.inTransaction) break;
        try {
          outcomes.push({ ok: true, value: savepoint(work) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
      return outcomes;
    });
    made = { batch, savepoint };
    transactionsByConnection.set(raw, made);
  }
  return made;
}

/**
 * Runs `works` in one BEGIN IMMEDIATE … COMMIT on `raw`, each in its own savepoint, and answers their outcomes;
 * throws when the transaction as a whole failed (BEGIN or COMMIT), so that none of them is stored.
 */
export function commitTogether(raw: BetterSqlite3.Database, works: (() => unknown)[]): WriteOutcome[] {
  return transactionsOf(raw).batch.immediate(works);
}
