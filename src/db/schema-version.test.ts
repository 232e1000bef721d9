// Safe upgrades: a database built with every earlier release's migrations (each prefix of the migration list, in the
// order they landed) upgrades to the same schema a fresh install has, on SQLite and PostgreSQL; an older binary
// refuses a newer database naming both versions; with automatic migration off an older database is refused.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { runCli } from '../../test/support/server-process.ts';
import { VERSION } from '../core/version.ts';
import type { Db } from './database.ts';
import { openDb } from './database.ts';
import { migrateToLatest } from './migrate.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { BINARY_SCHEMA_VERSION, prepareSchema, readSchemaState, SchemaBehindError, SchemaTooNewError, schemaVersionOf } from './schema-version.ts';

/**
 * The migration set of every commit of main that changed the migration list (tools/released-migration-sets.mjs):
 * the schemas installations may really be on. Numbers landed out of order (0003 before 0002, 0010 before 0009),
 * so these are not all prefixes of today's list.
 */
const RELEASED: { commit: string; migrations: string[] }[] = JSON.parse(
  readFileSync(new URL('../../test/fixtures/schema/released-migration-sets.json', import.meta.url), 'utf8'),
);
const byName = new Map(MIGRATIONS.map((m) => [m.name, m]));

/** Tables, columns (name, type, nullability) and indexes: what must be equal after an upgrade and a fresh install. */
async function describeSchema(db: Db): Promise<string[]> {
  if (db.engine === 'sqlite') {
    const out: string[] = [];
    const tables = (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(db.kysely)).rows;
    for (const { name } of tables) {
      const cols = (await sql<{ name: string; type: string; notnull: bigint; pk: bigint; dflt_value: string | null }>`select * from pragma_table_info(${name})`.execute(db.kysely)).rows;
      for (const c of cols) out.push(`${name}.${c.name} ${c.type} notnull=${c.notnull} pk=${c.pk} default=${c.dflt_value}`);
    }
    const indexes = (await sql<{ name: string; tbl_name: string; sql: string | null }>`select name, tbl_name, sql from sqlite_master where type = 'index' order by name`.execute(db.kysely)).rows;
    for (const i of indexes) out.push(`index ${i.tbl_name}.${i.name} ${i.sql ?? '(automatic)'}`);
    return out.sort();
  }
  const cols = (await sql<{ t: string; c: string; type: string; nullable: string; dflt: string | null }>`
    select table_name as t, column_name as c, data_type as type, is_nullable as nullable, column_default as dflt
    from information_schema.columns where table_schema = current_schema()`.execute(db.kysely)).rows;
  const indexes = (await sql<{ t: string; i: string; def: string }>`
    select tablename as t, indexname as i, indexdef as def from pg_indexes where schemaname = current_schema()`.execute(db.kysely)).rows;
  // Index definitions name the schema, which differs per test database.
  return [
    ...cols.map((c) => `${c.t}.${c.c} ${c.type} nullable=${c.nullable} default=${c.dflt}`),
    ...indexes.map((i) => `index ${i.t}.${i.i} ${i.def.replace(/ ON [a-z0-9_]+\./, ' ON ')}`),
  ].sort();
}

describe.each(testEngines())('schema upgrades on %s', (engine) => {
  let fresh: TestDb;
  let freshSchema: string[];
  beforeAll(async () => {
    fresh = await createTestDb(engine);
    freshSchema = await describeSchema(fresh.db);
  });
  afterAll(async () => {
    await fresh?.dispose();
  });

  // One fixture per released schema: the migration set at each commit that added one is a prefix of the list.
  it.each(MIGRATIONS.map((_, k) => [k, MIGRATIONS[k - 1]?.name ?? 'an empty database'] as const))(
    'from the schema with %i migration(s) (up to %s) every later migration applies and the result equals a fresh install',
    async (k) => {
      const old = await createTestDb(engine, MIGRATIONS.slice(0, k));
      try {
        const before = await readSchemaState(old.db);
        expect(before.database).toBe(schemaVersionOf(MIGRATIONS[k - 1]?.name));
        expect(before.pending).toEqual(MIGRATIONS.slice(k).map((m) => m.name));
        expect(await prepareSchema(old.db, true)).toEqual(MIGRATIONS.slice(k).map((m) => m.name));
        expect(await describeSchema(old.db)).toEqual(freshSchema);
        expect((await readSchemaState(old.db)).database).toBe(BINARY_SCHEMA_VERSION);
      } finally {
        await old.dispose();
      }
    },
  );

  it.each(RELEASED.map((r) => [r.commit, r.migrations.length, r] as const))(
    'from the schema released at %s (%i migrations, in the order they landed) the missing ones apply and the result equals a fresh install',
    async (_commit, _n, released) => {
      const set = released.migrations.map((name) => {
        const m = byName.get(name);
        if (!m) throw new Error(`released migration ${name} is no longer registered: migrations are append only`);
        return m;
      });
      const old = await createTestDb(engine, set);
      try {
        expect((await readSchemaState(old.db)).applied.sort()).toEqual([...released.migrations].sort());
        const missing = MIGRATIONS.filter((m) => !released.migrations.includes(m.name)).map((m) => m.name);
        expect((await prepareSchema(old.db, true)).sort()).toEqual(missing.sort());
        expect(await describeSchema(old.db)).toEqual(freshSchema);
      } finally {
        await old.dispose();
      }
    },
  );

  it('an older binary refuses a newer database, naming both schema versions and its own version', async () => {
    // The database is at the current schema; a binary whose list ends one migration earlier is the older release.
    const older = MIGRATIONS.slice(0, -1);
    const err = await migrateToLatest(fresh.db, older).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaTooNewError);
    expect(String((err as Error).message)).toContain(`the database is at schema version ${BINARY_SCHEMA_VERSION}`);
    expect(String((err as Error).message)).toContain(`knows schema versions up to ${schemaVersionOf(older.at(-1)?.name)}`);
    expect(String((err as Error).message)).toContain(MIGRATIONS.at(-1)!.name);
  });

  it('with automatic migration off an older database is refused with the "satgate db migrate" advice, and left unchanged', async () => {
    const old = await createTestDb(engine, MIGRATIONS.slice(0, 2));
    try {
      const err = await prepareSchema(old.db, false).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaBehindError);
      expect(String((err as Error).message)).toMatch(/schema version 2 and this satgate .* needs version \d+.*satgate db migrate/);
      expect((await readSchemaState(old.db)).applied).toEqual(MIGRATIONS.slice(0, 2).map((m) => m.name));
    } finally {
      await old.dispose();
    }
  });

  it('a migration that fails leaves the schema as it was (one transaction)', async () => {
    const old = await createTestDb(engine, MIGRATIONS.slice(0, 1));
    try {
      const broken = [...MIGRATIONS.slice(0, 2), { name: '9998-broken', up: async (k: typeof old.db.kysely) => { await sql`select * from no_such_table`.execute(k); } }];
      await expect(migrateToLatest(old.db, broken)).rejects.toThrow(/9998-broken failed/);
      expect((await readSchemaState(old.db, broken)).applied).toEqual([MIGRATIONS[0]!.name]);
      const tables = (await old.db.kysely.introspection.getTables()).map((t) => t.name);
      expect(tables).not.toContain('rate_records');
    } finally {
      await old.dispose();
    }
  });
});

describe('satgate start and db commands on a newer or older database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'satgate-schema-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('start refuses a database a newer satgate migrated, naming both versions; db version reports it', async () => {
    const db = openDb({ engine: 'sqlite', file: join(dir, 'satgate.sqlite') });
    await migrateToLatest(db);
    await sql`insert into kysely_migration (name, timestamp) values ('9999-from-the-future', '2030-01-01T00:00:00.000Z')`.execute(db.kysely);
    await db.close();
    const start = await runCli(['start'], { SATGATE_DATA_DIR: dir, PORT: '0' });
    expect(start.code).toBe(1);
    expect(start.stderr).toContain('the database is at schema version 9999');
    expect(start.stderr).toContain(`this satgate ${VERSION} knows schema versions up to ${BINARY_SCHEMA_VERSION}`);
    const version = await runCli(['db', 'version'], { SATGATE_DATA_DIR: dir });
    expect(version.code).toBe(1);
    expect(version.stdout).toContain('database schema version 9999');
  });

  it('db migrate upgrades an older database and reports both versions', async () => {
    const sub = mkdtempSync(join(dir, 'old-'));
    const db = openDb({ engine: 'sqlite', file: join(sub, 'satgate.sqlite') });
    await migrateToLatest(db, MIGRATIONS.slice(0, 3));
    await db.close();
    const res = await runCli(['db', 'migrate'], { SATGATE_DATA_DIR: sub });
    expect(res.stderr).toBe('');
    expect(res.stdout).toContain(`schema version ${schemaVersionOf(MIGRATIONS[2]!.name)} -> ${BINARY_SCHEMA_VERSION}`);
  });
});
