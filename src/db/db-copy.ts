// `satgate db copy`: moves an embedded SQLite database into an empty PostgreSQL database. The schema comes
// from the same migrations; rows go table by table in foreign-key order, in batches, values as they are
// (integers stay bigint, decimals stay text); then every table's row count and an order-independent
// checksum are compared on both sides, and identity sequences continue after the copied ids.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Db } from './database.ts';
import { migrateToLatest } from './migrate.ts';

/** One table's outcome. */
export interface TableCopy {
  table: string;
  rows: number;
  checksum: string;
}

/** Options of a copy. */
export interface CopyOptions {
  batchSize?: number;
  /** Called with one progress line per batch and per verified table. */
  progress?(line: string): void;
}

/** Raised when the target is not empty or the copy does not verify. */
export class CopyError extends Error {}

const SKIPPED = /^(sqlite_|kysely_migration)/;

/** Copies `source` (SQLite) into `target` (an empty PostgreSQL schema) and verifies it. */
export async function copyDatabase(source: Db, target: Db, opts: CopyOptions = {}): Promise<TableCopy[]> {
  if (source.engine !== 'sqlite' || target.engine !== 'postgres') throw new CopyError('db copy goes from the embedded SQLite database to PostgreSQL');
  const progress = opts.progress ?? (() => {});
  const batch = opts.batchSize ?? 500;
  const existing = await sql<{ n: bigint }>`select count(*) as n from information_schema.tables where table_schema = current_schema()`.execute(target.kysely);
  if (Number(existing.rows[0]!.n) > 0) {
    throw new CopyError(`refusing to copy: the target database is not empty (${existing.rows[0]!.n} tables in its schema); copy into a new, empty database`);
  }
  await migrateToLatest(source);
  await migrateToLatest(target);
  const tables = await sqliteTablesInDependencyOrder(source.kysely);
  const report: TableCopy[] = [];
  for (const table of tables) {
    const columns = (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(source.kysely)).rows.map((r) => r.name);
    const total = Number((await sql<{ n: bigint }>`select count(*) as n from ${sql.table(table)}`.execute(source.kysely)).rows[0]!.n);
    let copied = 0;
    let lastRowid = -1n;
    for (;;) {
      const { rows } = await sql<Record<string, unknown>>`select rowid as "__rowid", ${sql.join(columns.map((c) => sql.ref(c)))}
        from ${sql.table(table)} where rowid > ${lastRowid} order by rowid limit ${batch}`.execute(source.kysely);
      if (rows.length === 0) break;
      lastRowid = rows[rows.length - 1]!.__rowid as bigint;
      const values = rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null])));
      await (target.kysely as Kysely<any>).insertInto(table).values(values).execute();
      copied += rows.length;
      progress(`${table}: ${copied}/${total} rows`);
    }
    if (columns.includes('id')) {
      // Identity columns must continue after the copied ids, or the next insert collides.
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce(max(id), 0) + 1, false) from ${sql.table(table)}
        where pg_get_serial_sequence(${table}, 'id') is not null`.execute(target.kysely);
    }
    const from = await tableChecksum(source, table, columns, batch);
    const to = await tableChecksum(target, table, columns, batch);
    if (from.rows !== to.rows || from.checksum !== to.checksum) {
      throw new CopyError(`verification failed for ${table}: SQLite has ${from.rows} rows (${from.checksum}), PostgreSQL ${to.rows} (${to.checksum})`);
    }
    progress(`${table}: verified ${to.rows} rows, checksum ${to.checksum.slice(0, 16)}`);
    report.push({ table, rows: to.rows, checksum: to.checksum });
  }
  return report;
}

/** Tables of the SQLite database, each after the tables its foreign keys point to. */
async function sqliteTablesInDependencyOrder(db: Kysely<any>): Promise<string[]> {
  const names = (await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(db)).rows
    .map((r) => r.name)
    .filter((n) => !SKIPPED.test(n));
  const deps = new Map<string, Set<string>>();
  for (const n of names) {
    const fks = (await sql<{ table: string }>`select "table" from pragma_foreign_key_list(${n})`.execute(db)).rows;
    deps.set(n, new Set(fks.map((f) => f.table).filter((t) => t !== n && names.includes(t))));
  }
  const ordered: string[] = [];
  const done = new Set<string>();
  while (ordered.length < names.length) {
    const ready = names.filter((n) => !done.has(n) && [...deps.get(n)!].every((d) => done.has(d)));
    if (ready.length === 0) throw new CopyError(`foreign keys form a cycle among: ${names.filter((n) => !done.has(n)).join(', ')}`);
    for (const n of ready) {
      ordered.push(n);
      done.add(n);
    }
  }
  return ordered;
}

/** Row count and a checksum independent of row order: the sum of every row's SHA-256 modulo 2^256. */
async function tableChecksum(db: Db, table: string, columns: string[], batch: number): Promise<{ rows: number; checksum: string }> {
  let sum = 0n;
  let rows = 0;
  // Both engines page in a stable physical order; nothing writes meanwhile (the server is stopped).
  const order = db.engine === 'sqlite' ? sql.raw('rowid') : sql.raw('ctid');
  for (let offset = 0; ; offset += batch) {
    const page = await sql<Record<string, unknown>>`select ${sql.join(columns.map((c) => sql.ref(c)))} from ${sql.table(table)}
      order by ${order} limit ${batch} offset ${offset}`.execute(db.kysely);
    for (const r of page.rows) {
      const canonical = JSON.stringify(columns.map((c) => canonicalValue(r[c])));
      sum = (sum + BigInt(`0x${createHash('sha256').update(canonical).digest('hex')}`)) % 2n ** 256n;
    }
    rows += page.rows.length;
    if (page.rows.length < batch) break;
  }
  return { rows, checksum: sum.toString(16).padStart(64, '0') };
}

/** One value as both engines give it back: integers as decimal text whatever their JS type. */
function canonicalValue(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint' || typeof v === 'number') return `i:${String(v)}`;
  if (typeof v === 'string') return `s:${v}`;
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return `b:${Buffer.from(v).toString('hex')}`;
  if (typeof v === 'boolean') return `i:${v ? 1 : 0}`;
  return `s:${String(v)}`;
}
