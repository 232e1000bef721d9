// Prepared-statement reuse for SQLite (issue 16). Kysely's SQLite driver calls `prepare` for every query,
// which costs about 20 µs of parsing and planning each time; the hot paths run the same dozen statements
// over and over. Statements are synchronous in better-sqlite3, so one prepared statement can serve every
// caller, except while it is being iterated (`busy`), when a fresh one is prepared instead.
import type BetterSqlite3 from 'better-sqlite3';

/** Distinct SQL texts kept; the app has a few hundred, so the bound only guards against dynamic SQL. */
const MAX_CACHED = 1_000;

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/** Prepares each SQL text once and hands the same statement out again while it is idle. */
export class StatementCache {
  private readonly cache = new Map<string, Statement>();

  constructor(
    private readonly db: BetterSqlite3.Database,
    /** Statements in raw mode (rows as arrays): the mode belongs to the prepared statement, so a cache holds one kind. */
    private readonly raw = false,
    /** Integers as numbers, not bigints: only for reads whose integers are known to stay below 2^53. */
    private readonly numbers = false,
  ) {}

  /** The prepared statement for `sql`. */
  prepare(sql: string): Statement {
    const hit = this.cache.get(sql);
    if (hit && !hit.busy) return hit;
    let stmt = this.db.prepare(sql) as Statement;
    if (this.raw) stmt = stmt.raw(true);
    if (this.numbers) stmt = stmt.safeIntegers(false);
    if (!hit) {
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  /** Number of distinct statements held. */
  get size(): number {
    return this.cache.size;
  }
}

/**
 * The database handle Kysely's SqliteDialect is given: the real connection, whose `prepare` answers from
 * the cache. Everything else (close, pragma, transactions) is the connection's own.
 */
export function withStatementCache(db: BetterSqlite3.Database, cache: StatementCache = new StatementCache(db)): BetterSqlite3.Database {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') return (sql: string) => cache.prepare(sql);
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * A second, read-only connection to the same SQLite file, for hand-written hot reads (status polling).
 * In WAL mode each of its reads sees the last committed state and never waits for the writer, and it can
 * never see a write transaction's uncommitted rows (the writer's own connection would: its transactions
 * stay open across awaits).
 */
export class SqliteReader {
  private readonly db: BetterSqlite3.Database;
  private readonly statements: StatementCache;
  private readonly rawStatements: StatementCache;
  private readonly numberStatements: StatementCache;

  constructor(open: () => BetterSqlite3.Database) {
    this.db = open();
    this.db.pragma('query_only = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.defaultSafeIntegers(true);
    this.statements = new StatementCache(this.db);
    this.rawStatements = new StatementCache(this.db, true);
    this.numberStatements = new StatementCache(this.db, true, true);
  }

  /** The first row of a read-only query, or undefined. */
  get<T>(sql: string, params: unknown[]): T | undefined {
    return this.statements.prepare(sql).get(...params) as T | undefined;
  }

  /**
   * The first row as an array of column values in the SELECT's order, or undefined. For the hottest read:
   * better-sqlite3 builds an array several microseconds faster than an object with a property per column.
   */
  getRaw(sql: string, params: unknown[]): unknown[] | undefined {
    return this.rawStatements.prepare(sql).get(...params) as unknown[] | undefined;
  }

  /**
   * Every row as an array of column values, one at a time, integers as numbers: for reads too large to hold as
   * objects or to pay a bigint per value, whose caller has checked that their integers stay below 2^53.
   */
  iterateNumbers(sql: string, params: unknown[]): IterableIterator<unknown[]> {
    return this.numberStatements.prepare(sql).iterate(...params) as IterableIterator<unknown[]>;
  }

  close(): void {
    this.db.close();
  }
}
