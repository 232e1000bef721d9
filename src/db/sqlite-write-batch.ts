// Group commit for SQLite's hottest write (payment creation, issue 16). Every commit in WAL mode with
// synchronous=FULL ends in an fsync, which on SQLite runs on the main thread and was the largest part of a
// creation's cost. Writes that arrive while one is being committed, or in the same turn of the event loop,
// are committed together: one BEGIN IMMEDIATE … COMMIT, each write inside its own savepoint, so a write that
// fails is undone alone and its caller gets the error while the others commit. No caller hears of its
// write before the COMMIT that holds it has returned (durable before visible), and a failed COMMIT fails
// every write of the batch (none of them is stored).
import type BetterSqlite3 from 'better-sqlite3';

/** Writes committed together at most; bounds how long one batch holds the connection. */
export const MAX_BATCH = 64;

interface Pending<C> {
  work: (conn: C) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Queues synchronous write functions and commits them in batches on one connection. */
export class SqliteWriteBatch<C> {
  private queue: Pending<C>[] = [];
  private scheduled = false;
  /** Batches committed and writes in them, for the benchmark's report. */
  batches = 0;
  writes = 0;

  constructor(
    private readonly raw: BetterSqlite3.Database,
    private readonly conn: C,
    /** Runs `run` while holding the connection (Kysely's), so no other transaction is open on it. */
    private readonly exclusive: (run: () => void) => Promise<void>,
  ) {}

  /** Runs `work` in the next batch's transaction; resolves with its result once that transaction committed. */
  write<T>(work: (conn: C) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    // After the current I/O phase: requests parsed in the same turn join one batch.
    setImmediate(() => {
      this.exclusive(() => this.commitBatch()).then(
        () => this.next(),
        (err: unknown) => {
          // Taking the connection failed (the database is closing): every queued write fails with it.
          for (const p of this.queue.splice(0)) p.reject(err);
          this.next();
        },
      );
    });
  }

  private next(): void {
    this.scheduled = false;
    this.schedule();
  }

  private commitBatch(): void {
    // Everything queued until the connection was ours joins this batch.
    const batch = this.queue.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.raw
        .transaction(() => {
          for (const p of batch) {
            // SQLite may have rolled the whole transaction back after an I/O or full-disk error: stop, and let
            // the COMMIT below fail for every write of the batch.
            if (!this.raw.inTransaction) break;
            try {
              // Nested, better-sqlite3 runs it as a savepoint: a throw undoes this write only.
              outcomes.push({ ok: true, value: this.raw.transaction(() => p.work(this.conn))() });
            } catch (error) {
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
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
