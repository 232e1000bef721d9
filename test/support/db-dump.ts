// Everything a database holds, as text: every row of every table (the way a stolen dump would read it),
// plus the raw bytes of SQLite's files. Secrets-at-rest tests search it for what must never be there.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.ts';

/** Every row of every table as JSON lines (bigints as text). */
export async function dumpTables(db: Db): Promise<string> {
  const tables =
    db.engine === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db.kysely)).rows.map((r) => r.name)
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db.kysely)).rows.map((r) => r.name);
  const lines: string[] = [];
  for (const table of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db.kysely)).rows;
    for (const row of rows) lines.push(`${table} ${JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
  }
  return lines.join('\n');
}

/** The raw bytes of the SQLite database files in a data directory (main file, WAL, journal), as latin1 text. */
export function rawSqliteFiles(dataDir: string): string {
  return readdirSync(dataDir)
    .filter((f) => f.startsWith('satgate.sqlite'))
    .map((f) => readFileSync(join(dataDir, f)).toString('latin1'))
    .join('\n');
}

/** True when `secret` occurs in `text` as a whole token (a 6-digit code inside a longer number does not count). */
export function containsSecret(text: string, secret: string): boolean {
  const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![0-9A-Za-z_-])${escaped}(?![0-9A-Za-z_-])`).test(text) || (secret.length > 8 && text.includes(secret));
}
