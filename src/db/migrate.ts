import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './database.ts';
import { MIGRATIONS } from './migrations/index.ts';
import type { SatgateMigration } from './migrations/helpers.ts';
import { readSchemaState, SchemaTooNewError } from './schema-version.ts';

/**
 * Applies every pending migration in one transaction on both engines (a failure leaves the schema as it was);
 * returns the names applied. Forward only. Refuses a database that a newer satgate migrated (SchemaTooNewError).
 * `migrations` is every migration by default; tests pass a prefix to build the schema of an earlier release.
 */
export async function migrateToLatest(db: Db, migrations: readonly SatgateMigration[] = MIGRATIONS): Promise<string[]> {
  const state = await readSchemaState(db, migrations);
  if (state.unknown.length > 0) throw new SchemaTooNewError(state);
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const m of migrations) out[m.name] = { up: (k) => m.up(k, db.engine) };
      return out;
    },
  };
  // Unpinned, Kysely takes a kysely_migration table in ANY schema as its own (its introspection lists all
  // schemas), so another app's or tenant's bookkeeping would hide ours; pin it to the connection's schema.
  const schema =
    db.engine === 'postgres'
      ? (await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db.kysely)).rows[0]?.schema
      : null;
  // Unordered: migration numbers are reserved per branch and may land out of order (0010 before 0008); a database
  // with 0010 must still take 0008 later. Which migrations are applied is what counts, not the highest number.
  const migrator = new Migrator({ db: db.kysely, provider, allowUnorderedMigrations: true, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
