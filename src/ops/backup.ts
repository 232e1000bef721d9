import { chmodSync, copyFileSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { VERSION } from '../core/version.ts';
import { MIGRATIONS } from '../db/migrations/index.ts';
import { BINARY_SCHEMA_VERSION, schemaVersionOf } from '../db/schema-version.ts';
import type { MasterKey } from '../security/master-key.ts';

/** What is written beside a backup (FILE.fingerprint): which key and schema it needs, never the key. */
export interface BackupManifest {
  master_key_fingerprint: string;
  schema_version: number;
  satgate_version: string;
  created_at: string;
  bytes: number;
}

/** The manifest's path for a backup file. */
export function manifestPath(file: string): string {
  return `${file}.fingerprint`;
}

/** A backup or restore that must not go ahead; the message says why and what to do. */
export class BackupError extends Error {}

/**
 * Copies the embedded database to `to` with SQLite's online backup API: consistent while a running server writes
 * (WAL readers do not block writers; each step copies all remaining pages so a busy writer cannot restart it forever).
 * Written to a temporary name and renamed, mode 0600, checked with integrity_check, manifest beside it.
 */
export async function backupSqlite(dbFile: string, to: string, masterKey: MasterKey): Promise<BackupManifest> {
  const target = resolve(to);
  if (!existsSync(dbFile)) throw new BackupError(`no database at ${dbFile}`);
  if (existsSync(target)) throw new BackupError(`${target} exists; choose a new file name (a backup never overwrites)`);
  const partial = `${target}.partial`;
  rmSync(partial, { force: true });
  const source = new BetterSqlite3(dbFile, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    await source.backup(partial, { progress: ({ remainingPages }) => Math.max(remainingPages, 100) });
  } finally {
    source.close();
  }
  chmodSync(partial, 0o600);
  const version = checkDatabaseFile(partial);
  renameSync(partial, target);
  const manifest: BackupManifest = {
    master_key_fingerprint: masterKey.fingerprint(),
    schema_version: version,
    satgate_version: VERSION,
    created_at: new Date().toISOString(),
    bytes: statSync(target).size,
  };
  writeFileSync(manifestPath(target), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return manifest;
}

/** Runs integrity_check on a database file and answers its schema version. */
export function checkDatabaseFile(file: string): number {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`${file} failed SQLite's integrity check: ${String(check)}`);
    const hasTable = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
    if (!hasTable) throw new BackupError(`${file} is not a satgate database (no migrations recorded)`);
    const names = (db.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map((r) => r.name);
    return schemaVersionOf(names.at(-1));
  } finally {
    db.close();
  }
}

/** Files a data directory may hold before a restore: the master key, put back first. */
function leftovers(dataDir: string, masterKeyFile: string): string[] {
  if (!existsSync(dataDir)) return [];
  return readdirSync(dataDir).filter((n) => resolve(dataDir, n) !== resolve(masterKeyFile) && n !== 'lost+found');
}

/**
 * Restores a backup into an empty data directory: refuses a directory with anything but the master key in it, a
 * master key whose fingerprint differs from the backup's, and a backup newer than this binary. Returns the manifest.
 */
export function restoreSqlite(file: string, dataDir: string, dbFile: string, masterKeyFile: string, masterKey: MasterKey | null): BackupManifest {
  const source = resolve(file);
  if (!existsSync(source)) throw new BackupError(`no backup at ${source}`);
  const extra = leftovers(dataDir, masterKeyFile);
  if (extra.length > 0) {
    throw new BackupError(`${dataDir} is not empty (${extra.join(', ')}): restore into an empty data directory (SATGATE_DATA_DIR), holding at most the master key`);
  }
  if (!existsSync(manifestPath(source))) throw new BackupError(`${basename(manifestPath(source))} is missing beside the backup: it names the master key the backup needs`);
  const manifest = JSON.parse(readFileSync(manifestPath(source), 'utf8')) as BackupManifest;
  if (!masterKey) {
    throw new BackupError(`the master key file ${masterKeyFile} is missing: put back the key with fingerprint ${manifest.master_key_fingerprint} first (SATGATE_MASTER_KEY_FILE)`);
  }
  if (masterKey.fingerprint() !== manifest.master_key_fingerprint) {
    throw new BackupError(
      `the master key ${masterKeyFile} (fingerprint ${masterKey.fingerprint()}) is not the one this backup was taken with ` +
        `(${manifest.master_key_fingerprint}): its wallet keys and secrets could not be decrypted. Put back the matching key.`,
    );
  }
  const version = checkDatabaseFile(source);
  if (version > BINARY_SCHEMA_VERSION) {
    throw new BackupError(`the backup is at schema version ${version}, newer than this satgate ${VERSION} knows (${BINARY_SCHEMA_VERSION}, ${MIGRATIONS.at(-1)?.name}): restore it with that newer satgate`);
  }
  const partial = `${dbFile}.partial`;
  copyFileSync(source, partial);
  chmodSync(partial, 0o600);
  renameSync(partial, dbFile);
  return manifest;
}
