// The benches' PostgreSQL: whether it answers, and a fresh schema for one run with the production pool size
// (test-db's helper uses a smaller pool), dropped when the run disposes of it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestDb } from '../test/support/test-db.ts';
import { openDb } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

/** The PostgreSQL the benches use (BENCH_DATABASE_URL, else the local test database). */
export const BENCH_PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function postgresReachable(url = BENCH_PG_URL): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await c.connect();
    await c.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

export async function createBenchPostgresDb(url = BENCH_PG_URL): Promise<TestDb> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const open = () => openDb({ engine: 'postgres', url, schema });
  const db = open();
  await migrateToLatest(db);
  return {
    db,
    engine: 'postgres',
    reopen: open,
    env: {},
    dispose: async () => {
      await db.close().catch(() => {});
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}
