// The writes SQLite's writer runs (see sqlite-writer.ts), by name: a write crosses to the writer thread as its
// name and its arguments (structured-cloneable: strings, numbers, bigints, plain objects), never as a closure.
// Each runs synchronously on the writer's connection inside its own savepoint of a group-commit transaction.
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteConnection } from './database.ts';
import { commitTogether, type SqliteWrite, type WriteOutcome } from './sqlite-write-batch.ts';
import { insertOnSqlite } from './sqlite-payment-insert.ts';
import { storePoolChunk } from './sqlite-pool-store.ts';

/** One statement and its parameters. */
export interface SqliteStatement {
  sql: string;
  params: unknown[];
}

/** Runs the statements in order; the changes of the last one. */
function statements(conn: SqliteConnection, list: SqliteStatement[]): number {
  let changes = 0;
  for (const s of list) changes = conn.run(s.sql, s.params);
  return changes;
}

export const SQLITE_WRITE_OPS = {
  /** Payment creation from the address pool (the hot write, issue 16). */
  paymentInsert: insertOnSqlite,
  /** A refill's chunk of the address pool. */
  poolStore: storePoolChunk,
  /** Statements written out by the caller, run together (tests of the group commit itself). */
  statements,
} satisfies Record<string, (conn: SqliteConnection, args: never) => unknown>;

export type SqliteWriteOps = typeof SQLITE_WRITE_OPS;
export type SqliteWriteOp = keyof SqliteWriteOps;
export type SqliteWriteArgs<K extends SqliteWriteOp> = Parameters<SqliteWriteOps[K]>[1];
export type SqliteWriteResult<K extends SqliteWriteOp> = ReturnType<SqliteWriteOps[K]>;

/** Commits a batch of named writes on `raw`, whose statements `conn` runs (on whichever connection commits it). */
export function commitWrites(raw: BetterSqlite3.Database, conn: SqliteConnection, batch: SqliteWrite[]): WriteOutcome[] {
  return commitTogether(raw, batch.map((w) => () => SQLITE_WRITE_OPS[w.op](conn, w.args as never)));
}
