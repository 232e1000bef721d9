// A digest of every table of a database: equal digests before and after a request mean it changed nothing stored.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.ts';

/** Tables whose rows are bookkeeping of reads, not stored state (none today; listed here when one appears). */
const IGNORED_TABLES = new Set<string>(['kysely_migration', 'kysely_migration_lock']);

/** The names of every user table of the database (this schema on PostgreSQL). */
export async function tableNames(db: Db): Promise<string[]> {
  const rows =
    db.engine === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db.kysely)).rows
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db.kysely))
          .rows;
  return rows.map((r) => r.name).filter((n) => !IGNORED_TABLES.has(n)).sort();
}

/** SHA-256 over every row of every table, rows in a fixed order. */
export async function databaseDigest(db: Db): Promise<string> {
  const hash = createHash('sha256');
  for (const table of await tableNames(db)) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db.kysely)).rows;
    const lines = rows.map((row) => JSON.stringify(Object.entries(row).sort(([a], [b]) => a.localeCompare(b)), (_k, v) =>
      typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v,
    ));
    lines.sort();
    hash.update(`${table}\n${lines.join('\n')}\n`);
  }
  return hash.digest('hex');
}
