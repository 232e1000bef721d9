import { Migrator, type Migration, type MigrationProvider } from 'kysely';
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
  const migrator = new Migrator({ db: db.kysely, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
