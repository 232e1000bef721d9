// The writes SQLite's writer runs (see sqlite-writer.ts), by name: a write crosses to the writer thread as its
// name and its arguments (structured-cloneable: strings, numbers, bigints, plain objects), never as a closure.
// Each runs synchronously on the writer's connection inside its own savepoint of a group-commit transaction.
import type { SqliteConnection } from './database.ts';
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
