import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Kysely, SqliteAdapter, SqliteDialect, sql, type DialectAdapter } from 'kysely';
import { createPrivate } from './sqlite-lock.ts';
import { FencingPostgresDialect } from './fencing.ts';
import type { Database } from './schema.ts';
import { SqliteReader, StatementCache, withStatementCache } from './sqlite-statements.ts';
import { SqliteWriteBatch, type SqliteWrite } from './sqlite-write-batch.ts';
import { commitWrites, type SqliteWriteArgs, type SqliteWriteOp, type SqliteWriteResult } from './sqlite-write-ops.ts';
import { SqliteWriterThread, configureWritingConnection, statementConnection } from './sqlite-writer.ts';

/** Which engine a database runs on; only src/db/ branches on it. */
export type Engine = 'sqlite' | 'postgres';

/** The one handle the rest of the code uses to reach the database. */
export interface Db {
  /** Which engine this is: for saying so (logs, health, doctor); only src/db/ branches on it. */
  engine: Engine;
  kysely: Kysely<Database>;
  /** SQLite only: the group commit's counters (batches committed, writes in them). */
  sqliteWriteStats?(): { batches: number; writes: number };
  /** Cheap round trip for health checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Each engine's fast paths, which only src/db/ uses (through {@link engineHandles}): the hot statements are named
 * functions there (payment-status-read.ts, bearer-reads.ts, payment-insert.ts, address-pool-store.ts), each with
 * both engines' SQL and the query builder's fallback, so no code outside src/db/ asks which engine it runs on.
 */
export interface EngineHandles {
  /**
   * SQLite on a file only: a read-only connection for hand-written hot reads that must see committed data
   * only (see sqlite-statements.ts). Callers fall back to `kysely` when it is absent.
   */
  reader?: SqliteReader;
  /**
   * PostgreSQL only: a hand-written hot read as a named prepared statement, parsed and planned once per
   * pooled connection and afterwards only bound and executed (Kysely sends every query unnamed, so the
   * server parses and plans it each time, and building it costs the client as much again). `text` uses
   * $1-style parameters; each `name` must always go with the same text. Callers fall back to `kysely`.
   */
  pgNamed?<T>(name: string, text: string, values: unknown[]): Promise<T[]>;
  /**
   * SQLite only: runs the named write (sqlite-write-ops.ts) synchronously, in a savepoint of a transaction it may
   * share with other such writes (group commit, see sqlite-write-batch.ts), on the writer thread's own connection
   * (sqlite-writer.ts; on this connection for an in-memory database) while Kysely's connection is held, so no
   * Kysely transaction is open meanwhile. Resolves once that transaction committed; a throw undoes this write only.
   * For the hottest write (payment creation): no query building, no await between its statements, one fsync for
   * the writes that arrive together, and neither the statements nor the fsync on the request thread.
   */
  sqliteWrite?<K extends SqliteWriteOp>(op: K, args: SqliteWriteArgs<K>): Promise<SqliteWriteResult<K>>;
}

/** The fast paths of a database {@link openDb} opened (none of a Db built otherwise). For src/db/ only. */
export function engineHandles(db: Db): EngineHandles {
  return db as Db & EngineHandles;
}

/** The embedded SQLite database's file; null on PostgreSQL. */
export function embeddedFile(target: DbTarget): string | null {
  return target.engine === 'sqlite' ? target.file : null;
}

/** The embedded database's file when it does not exist yet; null when it does, or on PostgreSQL. */
export function missingDatabaseFile(target: DbTarget): string | null {
  return target.engine === 'sqlite' && !existsSync(target.file) ? target.file : null;
}

/**
 * True on the embedded database, which one server process has to itself (its lock file); on PostgreSQL several
 * server processes share the database and elect who runs the singleton work.
 */
export function oneServerOnly(db: Pick<Db, 'engine'> | DbTarget): boolean {
  return db.engine === 'sqlite';
}

/** What a write of {@link EngineHandles.sqliteWrite} gets: synchronous statements on the connection that commits it. */
export interface SqliteConnection {
  get<T>(sql: string, params: unknown[]): T | undefined;
  /** Runs the statement; the number of rows it changed. */
  run(sql: string, params: unknown[]): number;
}

/** Where and how to open the database. */
export type DbTarget =
  | { engine: 'sqlite'; file: string }
  | { engine: 'postgres'; url: string; schema?: string; poolSize?: number };

const INT8_OID = 20;

/** Opens SQLite (WAL, synchronous=FULL, foreign keys, busy timeout) or a PostgreSQL pool. */
export function openDb(target: DbTarget): Db {
  if (target.engine === 'sqlite') {
    if (target.file !== ':memory:') createPrivateDatabaseFiles(target.file);
    const raw = new BetterSqlite3(target.file);
    configureWritingConnection(raw);
    const statements = new StatementCache(raw);
    const kysely = new Kysely<Database>({ dialect: new TransactionalDdlSqliteDialect({ database: withStatementCache(raw, statements) }) });
    const conn = statementConnection(statements);
    const onMainConnection = (batch: SqliteWrite[]) => commitWrites(raw, conn, batch);
    // On a file the batches commit on the writer thread's own connection; an in-memory database has only this one.
    const writer = target.file === ':memory:' ? undefined : new SqliteWriterThread(target.file, onMainConnection);
    // Kysely's SQLite driver hands its one connection to one user at a time: holding it while a batch commits
    // means no Kysely transaction is open on it meanwhile, and none can start until the batch is done.
    const batch = new SqliteWriteBatch(writer ? (b) => writer.commit(b) : onMainConnection, (run) => kysely.connection().execute(run));
    const reader = target.file === ':memory:' ? undefined : new SqliteReader(() => new BetterSqlite3(target.file, { readonly: true }));
    const db: Db & EngineHandles = {
      engine: 'sqlite',
      kysely,
      ...(reader ? { reader } : {}),
      sqliteWrite: <K extends SqliteWriteOp>(op: K, args: SqliteWriteArgs<K>) => batch.write({ op, args }) as Promise<SqliteWriteResult<K>>,
      sqliteWriteStats: () => ({ batches: batch.batches, writes: batch.writes }),
      ping: async () => {
        raw.prepare('select 1').get();
      },
      close: async () => {
        reader?.close();
        await writer?.close();
        await kysely.destroy();
      },
    };
    return db;
  }
  const pool = new pg.Pool({
    connectionString: target.url,
    max: target.poolSize ?? 10,
    // A schema per test (or per tenant) is selected through the connection's search_path.
    ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID ? (v: string) => BigInt(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // Idle client errors (server restarts) must not crash the process; the next query reports them.
  pool.on('error', () => {});
  // Nor may a checked-out client's (the server ending a session idle in a fenced transaction): its query fails.
  pool.on('connect', (client) => client.on('error', () => {}));
  const kysely = new Kysely<Database>({ dialect: new FencingPostgresDialect({ pool }) });
  const db: Db & EngineHandles = {
    engine: 'postgres',
    kysely,
    pgNamed: async <T>(name: string, text: string, values: unknown[]) => (await pool.query({ name, text, values })).rows as T[],
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
  return db;
}

/**
 * Creates the database file readable by its owner only before SQLite opens it: SQLite gives its WAL and shared
 * memory files the database file's mode, so they follow. Files of an older install are tightened too.
 */
function createPrivateDatabaseFiles(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  createPrivate(file);
  for (const side of [`${file}-wal`, `${file}-shm`, `${file}-journal`]) if (existsSync(side)) chmodSync(side, 0o600);
}

/** Chooses the database from DATABASE_URL, or the embedded SQLite file under the data directory. */
export function dbTargetFromConfig(config: { databaseUrl: string | null; dataDir: string }): DbTarget {
  return config.databaseUrl
    ? { engine: 'postgres', url: config.databaseUrl }
    : { engine: 'sqlite', file: `${config.dataDir}/satgate.sqlite` };
}

/** SQLite runs DDL inside transactions; Kysely assumes it cannot, so without this its migrator would not wrap them. */
class TransactionalDdlSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new (class extends SqliteAdapter {
      override get supportsTransactionalDdl(): boolean {
        return true;
      }
    })();
  }
}
