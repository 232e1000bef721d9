import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDb, type Db, type Engine } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { available } from './system-tools.ts';

/** A fresh, migrated database for one test, and how to throw it away. */
export interface TestDb {
  db: Db;
  engine: Engine;
  /** Opens a second handle on the same database (a restarted process). */
  reopen(): Db;
  /** The DATABASE_URL / data dir a child process would need to use the same database. */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/**
 * The engines every database test runs on: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. Locally
 * its absence skips the PostgreSQL half with a one-line reason; under CI=true it is an error.
 */
export function testEngines(): Engine[] {
  const pgReady = available('PostgreSQL', Boolean(process.env.TEST_DATABASE_URL), 'TEST_DATABASE_URL is not set; they run on SQLite only');
  return pgReady ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** Creates an empty migrated database on the engine: a temp SQLite file or a new PostgreSQL schema. */
export async function createTestDb(engine: Engine): Promise<TestDb> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'satgate-test-'));
    const file = join(dir, 'satgate.sqlite');
    const db = openDb({ engine: 'sqlite', file });
    await migrateToLatest(db);
    return {
      db,
      engine,
      reopen: () => openDb({ engine: 'sqlite', file }),
      env: { SATGATE_DATA_DIR: dir },
      dispose: async () => {
        await db.close().catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const db = openDb({ engine: 'postgres', url, schema, poolSize: 4 });
  await migrateToLatest(db);
  const schemaUrl = new URL(url);
  schemaUrl.searchParams.set('options', `-c search_path=${schema}`);
  return {
    db,
    engine,
    reopen: () => openDb({ engine: 'postgres', url, schema, poolSize: 4 }),
    env: { DATABASE_URL: schemaUrl.toString() },
    dispose: async () => {
      await db.close().catch(() => {});
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}
