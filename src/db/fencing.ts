// Fencing for the singleton role (DESIGN.md section 3). Work started inside `runFenced` carries its lease
// (through AsyncLocalStorage, so no call site passes it along); every transaction that work opens on
// PostgreSQL first locks the lease row FOR SHARE and checks, in that same transaction, that the lease is
// still this holder's and unexpired. A takeover updates that row, so it waits for such a transaction to
// end and can never slip in between the check and the commit; a holder paused mid-transaction is cut off by
// idle_in_transaction_session_timeout (set per transaction, so it works behind PgBouncer in transaction
// mode). A write outside a transaction is wrapped in one, so it is checked too; plain reads are not.
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  PostgresDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { SchemaScopedPostgresDialect } from './pg-introspector.ts';

/** The lease a piece of singleton work writes under. */
export interface Fence {
  lease: string;
  holder: string;
  token: bigint;
  /** How long a transaction may sit idle (a paused process) before PostgreSQL aborts it. */
  idleLimitMs: number;
  /** Told when a check finds the lease gone (the work should stop). */
  onRefused(): void;
}

/** Thrown instead of writing when the lease was lost. */
export class LeaseLostError extends Error {
  constructor(lease: string) {
    super(`the ${lease} lease is no longer held by this process: write refused (fencing)`);
  }
}

const scope = new AsyncLocalStorage<Fence>();

/** Runs `work` (and every timer and promise it schedules) under a fence. */
export function runFenced<T>(fence: Fence, work: () => T): T {
  return scope.run(fence, work);
}

/** The fence of the calling async context, if any. */
export function currentFence(): Fence | undefined {
  return scope.getStore();
}

/** The database's clock in epoch milliseconds: every process compares lease times on one clock. */
export const DB_NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** Checks the fence inside an open transaction on `conn`; throws LeaseLostError when it fails. */
export async function checkFence(conn: DatabaseConnection, fence: Fence): Promise<void> {
  await conn.executeQuery(
    CompiledQuery.raw(`select set_config('idle_in_transaction_session_timeout', $1, true)`, [String(Math.max(1, Math.round(fence.idleLimitMs)))]),
  );
  const r = await conn.executeQuery(
    CompiledQuery.raw(
      `select 1 as ok from leases where name = $1 and holder = $2 and token = $3 and expires_at > ${DB_NOW_MS} for share`,
      [fence.lease, fence.holder, fence.token],
    ),
  );
  if (r.rows.length === 0) {
    fence.onRefused();
    throw new LeaseLostError(fence.lease);
  }
}

/** A plain read: a select query, or raw SQL that is a bare SELECT. */
function isRead(query: CompiledQuery): boolean {
  if (query.query.kind === 'SelectQueryNode') return true;
  return query.query.kind === 'RawNode' && /^\s*select\b/i.test(query.sql) && !/\bfor\s+(update|share|no key update|key share)\b/i.test(query.sql);
}

/** A connection that wraps lone writes of fenced work in a checked transaction. */
class FencingConnection implements DatabaseConnection {
  inTransaction = false;
  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const fence = currentFence();
    if (!fence || this.inTransaction || isRead(query)) return this.inner.executeQuery<R>(query);
    await this.inner.executeQuery(CompiledQuery.raw('begin'));
    try {
      await checkFence(this.inner, fence);
      const result = await this.inner.executeQuery<R>(query);
      await this.inner.executeQuery(CompiledQuery.raw('commit'));
      return result;
    } catch (err) {
      await this.inner.executeQuery(CompiledQuery.raw('rollback')).catch(() => {});
      throw err;
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** The PostgreSQL driver with the fence check at the start of fenced work's transactions. */
class FencingDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new FencingConnection(await this.inner.acquireConnection());
  }
  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = conn as FencingConnection;
    await this.inner.beginTransaction(c.inner, settings);
    c.inTransaction = true;
    const fence = currentFence();
    if (!fence) return;
    try {
      await checkFence(c.inner, fence);
    } catch (err) {
      // Kysely rolls back only a transaction whose begin succeeded.
      await this.rollbackTransaction(conn).catch(() => {});
      throw err;
    }
  }
  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    const c = conn as FencingConnection;
    try {
      await this.inner.commitTransaction(c.inner);
    } finally {
      c.inTransaction = false;
    }
  }
  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    const c = conn as FencingConnection;
    try {
      await this.inner.rollbackTransaction(c.inner);
    } finally {
      c.inTransaction = false;
    }
  }
  async savepoint(conn: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    await this.inner.savepoint!((conn as FencingConnection).inner, name, compile);
  }
  async rollbackToSavepoint(conn: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    await this.inner.rollbackToSavepoint!((conn as FencingConnection).inner, name, compile);
  }
  async releaseSavepoint(conn: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    await this.inner.releaseSavepoint!((conn as FencingConnection).inner, name, compile);
  }
  releaseConnection(conn: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((conn as FencingConnection).inner);
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** The schema-scoped PostgreSQL dialect whose transactions honour the caller's fence. */
export class FencingPostgresDialect extends SchemaScopedPostgresDialect {
  override createDriver(): Driver {
    return new FencingDriver(PostgresDialect.prototype.createDriver.call(this));
  }
}
