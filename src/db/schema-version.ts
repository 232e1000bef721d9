import { sql } from 'kysely';
import { VERSION } from '../core/version.ts';
import type { Db } from './database.ts';
import { MIGRATIONS } from './migrations/index.ts';
import type { SatgateMigration } from './migrations/helpers.ts';
import { migrateToLatest } from './migrate.ts';

/**
 * The schema version is stored as the migrations applied to the database (Kysely's kysely_migration table, one row
 * per migration, written in the same transaction as the migration). Its number is the numeric prefix of the last
 * one ("0008-dashboard" is schema version 8); a binary knows the versions of the migrations it ships.
 */
export interface SchemaState {
  /** Schema version of the database (0: empty) and of this binary's migrations. */
  database: number;
  binary: number;
  applied: string[];
  /** Migrations this binary has and the database lacks. */
  pending: string[];
  /** Migrations applied to the database that this binary does not know: a newer satgate migrated it. */
  unknown: string[];
}

/** The version number of a migration name such as "0008-dashboard". */
export function schemaVersionOf(name: string | undefined): number {
  return name ? Number(/^(\d+)/.exec(name)?.[1] ?? 0) : 0;
}

/** The schema version this binary migrates to. */
export const BINARY_SCHEMA_VERSION = schemaVersionOf(MIGRATIONS.at(-1)?.name);

/** Reads which migrations the database has (none when it was never migrated). */
export async function readSchemaState(db: Db, migrations: readonly SatgateMigration[] = MIGRATIONS): Promise<SchemaState> {
  const tables = await db.kysely.introspection.getTables({ withInternalKyselyTables: true });
  const applied = tables.some((t) => t.name === 'kysely_migration')
    ? (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db.kysely)).rows.map((r) => r.name)
    : [];
  const known = new Set(migrations.map((m) => m.name));
  const have = new Set(applied);
  return {
    database: schemaVersionOf(applied.at(-1)),
    binary: schemaVersionOf(migrations.at(-1)?.name),
    applied,
    pending: migrations.filter((m) => !have.has(m.name)).map((m) => m.name),
    unknown: applied.filter((n) => !known.has(n)),
  };
}

/** An older binary on a newer database: it must not run (it would misread or damage what it does not know). */
export class SchemaTooNewError extends Error {
  constructor(readonly state: SchemaState) {
    super(
      `the database is at schema version ${state.database} (it has migration(s) ${state.unknown.join(', ')}), but this satgate ` +
        `${VERSION} knows schema versions up to ${state.binary}: a newer satgate has upgraded it. Install that newer satgate ` +
        `(or restore a backup taken before the upgrade); this version refuses to start on it.`,
    );
    this.name = 'SchemaTooNewError';
  }
}

/** The database is older than the binary and automatic migration is off. */
export class SchemaBehindError extends Error {
  constructor(readonly state: SchemaState) {
    super(
      `the database is at schema version ${state.database} and this satgate ${VERSION} needs version ${state.binary} ` +
        `(pending: ${state.pending.join(', ')}). Automatic migration is off (SATGATE_AUTO_MIGRATE=0, the default on ` +
        `PostgreSQL where several processes share the database): stop every satgate process, take a backup, run ` +
        `"satgate db migrate" once, then start them.`,
    );
    this.name = 'SchemaBehindError';
  }
}

/**
 * What a starting server does with the schema: refuse a newer one, migrate an older one when `autoMigrate` is on,
 * refuse it otherwise. Returns the migrations applied.
 */
export async function prepareSchema(db: Db, autoMigrate: boolean): Promise<string[]> {
  const state = await readSchemaState(db);
  if (state.unknown.length > 0) throw new SchemaTooNewError(state);
  if (state.pending.length === 0) return [];
  // An empty database is created whatever the setting: there is nothing to upgrade carefully.
  if (!autoMigrate && state.applied.length > 0) throw new SchemaBehindError(state);
  return migrateToLatest(db);
}
