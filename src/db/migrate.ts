import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './database.ts';
import { MIGRATIONS } from './migrations/index.ts';

/** Applies every pending migration; returns the names applied. Forward only. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const m of MIGRATIONS) out[m.name] = { up: (k) => m.up(k, db.engine) };
      return out;
    },
  };
  // Unpinned, Kysely takes a kysely_migration table in ANY schema as its own (its introspection lists all
  // schemas), so another app's or tenant's bookkeeping would hide ours; pin it to the connection's schema.
  const schema =
    db.engine === 'postgres'
      ? (await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db.kysely)).rows[0]?.schema
      : null;
  const migrator = new Migrator({ db: db.kysely, provider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
