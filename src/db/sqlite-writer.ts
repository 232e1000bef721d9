// SQLite's writer thread (issue 16). A COMMIT in WAL mode with synchronous=FULL waits for an fsync, and
// better-sqlite3 runs every statement synchronously: on the request thread, each group commit of payment
// creations held the event loop for its statements and its fsync, so every request that arrived meanwhile, a
// status poll as much as a creation, waited for the whole commit (status reads during a burst of creations:
// 1,600–2,000 a second with a 4.6–5.9 ms median before, 3,800–4,350 and 2.0–2.2 ms after). Here the group commits
// run on a worker thread with its own connection to the same file; the request thread only sends each batch
// (writes by name, see sqlite-write-ops.ts) and goes on serving requests until the answer comes.
//
// While a batch is on the thread, the main connection is held from Kysely (as for an in-thread batch), so no
// query-builder transaction is open on it meanwhile and none starts: the two connections never wait for each
// other's write lock, and a deferred transaction on the main connection never finds its snapshot outdated by a
// commit of the thread's. Committed rows are visible to both connections (and the read-only one) at once.
//
// The process has one writer thread, with a connection per database file it opened. A thread that cannot start,
// or a file it cannot open, leaves the batches to the main connection, as for an in-memory database. A thread
// that dies with a batch on it fails that batch's writes: whether its COMMIT happened is not known (as when the
// process dies), and later batches commit on the main connection.
import { RequestWorker } from '../core/request-worker.ts';
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteConnection } from './database.ts';
import type { StatementCache } from './sqlite-statements.ts';
import type { SqliteWrite, WriteOutcome } from './sqlite-write-batch.ts';

/** Per-connection settings every writing connection of a satgate database has. */
export function configureWritingConnection(raw: BetterSqlite3.Database): void {
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  raw.defaultSafeIntegers(true);
}

/** Synchronous statements on a connection, prepared once through its cache. */
export function statementConnection(statements: StatementCache): SqliteConnection {
  return {
    get: <T>(text: string, params: unknown[]) => statements.prepare(text).get(...params) as T | undefined,
    run: (text: string, params: unknown[]) => Number(statements.prepare(text).run(...params).changes),
  };
}

/** An error as it crosses from the thread: its message, name and SQLite code (e.g. SQLITE_CONSTRAINT_UNIQUE). */
export interface WireError {
  message: string;
  name: string;
  code?: string;
}

export type WireOutcome = { ok: true; value: unknown } | { ok: false; error: WireError };

/** Requests to the thread; each is answered by one reply (request-worker.ts adds the id both carry). */
export type WriterRequest = { open: number; file: string } | { conn: number; batch: SqliteWrite[] } | { close: number };

/** The thread's replies. */
export type WriterReply = { outcomes?: WireOutcome[] } | { failed: WireError };

export function toWire(err: unknown): WireError {
  if (!(err instanceof Error)) return { message: String(err), name: 'Error' };
  const code = (err as { code?: unknown }).code;
  return { message: err.message, name: err.name, ...(typeof code === 'string' ? { code } : {}) };
}

function fromWire(w: WireError): Error {
  const err = new Error(w.message) as Error & { code?: string };
  err.name = w.name;
  if (w.code !== undefined) err.code = w.code;
  return err;
}

type WriterThread = RequestWorker<WriterRequest, WriterReply>;

/**
 * The one writer thread of the process: each database opened on a file has its own connection on it. One thread
 * for all of them, because starting a thread costs far more than a connection (from the TypeScript sources, about
 * 200 ms: the test suite opens hundreds of databases). Null once it could not be created.
 */
let thread: WriterThread | null | undefined;

/** The process's writer thread, started on first use; undefined once it could not start or has died (never restarted). */
function writerThread(): WriterThread | undefined {
  if (thread === undefined) {
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    try {
      thread = new RequestWorker(new URL(`./sqlite-writer-thread${ext}`, import.meta.url));
    } catch {
      thread = null;
    }
  }
  return thread && !thread.endedWith ? thread : undefined;
}

let nextConnection = 1;

/** One database's connection on the writer thread; commits its batches there (see the top of this file). */
export class SqliteWriterThread {
  private readonly connection = nextConnection++;
  /** Resolves true once the thread has opened this database's connection, false if it could not. */
  private opened: Promise<boolean> | undefined;
  private closed = false;

  constructor(
    private readonly file: string,
    /** Commits a batch on the main connection instead (the thread could not start or open the file, or died). */
    private readonly fallback: (batch: SqliteWrite[]) => WriteOutcome[],
  ) {}

  /** Commits the batch on the thread; the caller holds the main connection meanwhile. */
  async commit(batch: SqliteWrite[]): Promise<WriteOutcome[]> {
    if (this.closed) throw new Error('the SQLite writer is closed');
    const t = writerThread();
    if (!t || !(await this.open(t))) return this.fallback(batch);
    let reply: WriterReply;
    try {
      reply = await t.call({ conn: this.connection, batch });
    } catch (err) {
      throw new Error(`the SQLite writer thread ended with this write on it (${(err as Error).message}); it may or may not be stored`);
    }
    if ('failed' in reply) throw fromWire(reply.failed);
    if (!('outcomes' in reply) || !reply.outcomes) throw new Error('the SQLite writer thread answered a batch without outcomes');
    return reply.outcomes.map((o) => (o.ok ? o : { ok: false, error: fromWire(o.error) }));
  }

  /** Lets the batches on the thread finish, then closes this database's connection there. */
  async close(): Promise<void> {
    this.closed = true;
    const t = thread;
    if (!t || !this.opened || !(await this.opened)) return;
    // Requests are handled in order: a batch sent before this one is committed (and answered) first.
    await t.call({ close: this.connection }).catch(() => {});
  }

  private open(t: WriterThread): Promise<boolean> {
    this.opened ??= (async () => {
      if (!(await t.ready)) return false;
      const reply = await t.call({ open: this.connection, file: this.file }).catch(() => undefined);
      return reply !== undefined && !('failed' in reply);
    })();
    return this.opened;
  }
}
