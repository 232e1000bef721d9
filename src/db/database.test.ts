import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { sql } from 'kysely';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { migrateToLatest } from './migrate.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dbTargetFromConfig, openDb } from './database.ts';

const BIG = 9_007_199_254_740_993n; // 2^53 + 1: loses its last digit as a JavaScript number

function walletRow(n: number, createdAt: bigint) {
  return {
    api_id: `live_db_test_${n}`,
    pub: `xpub_db_test_${n}`,
    mode: 'live' as const,
    network: 'mainnet',
    script_type: 'p2wpkh',
    wallet_type: 3n,
    local_currency: 'usd',
    box_public_key: 'b',
    box_secret_sealed: 'v1:b',
    sign_public_key: 's',
    sign_secret_sealed: 'v1:s',
    created_at: createdAt,
    updated_at: createdAt,
  };
}

describe.each(testEngines())('database on %s', (engine) => {
  let t: TestDb;
  beforeEach(async () => {
    t = await createTestDb(engine);
  });
  afterEach(async () => {
    await t.dispose();
  });

  it('migrations create every foundation table', async () => {
    const tables = (await t.db.kysely.introspection.getTables()).map((x) => x.name);
    expect(tables).toEqual(expect.arrayContaining(['wallets', 'addresses', 'address_notes']));
  });

  it('running the migrations again applies nothing', async () => {
    expect(await migrateToLatest(t.db)).toEqual([]);
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(t.db.kysely);
    expect(applied.rows.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
  });

  it('a second handle on the same database sees the schema as current', async () => {
    const other = t.reopen();
    try {
      expect(await migrateToLatest(other)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('BIGINT columns read back as bigint without losing precision', async () => {
    const row = await t.db.kysely.insertInto('wallets').values(walletRow(1, BIG)).returningAll().executeTakeFirstOrThrow();
    expect(typeof row.id).toBe('bigint');
    expect(row.created_at).toBe(BIG);
    const read = await t.db.kysely.selectFrom('wallets').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(read.created_at).toBe(BIG);
    expect(read.wallet_type).toBe(3n);
    expect(read.required_confirmations).toBe(1n);
    expect(typeof read.id).toBe('bigint');
  });

  it('an address for an unknown wallet violates the foreign key', async () => {
    await expect(
      t.db.kysely
        .insertInto('addresses')
        .values({ wallet_id: 424242n, derivation_index: 0n, address: 'bc1qunknown', script_hex: '00', created_at: 1n })
        .execute(),
    ).rejects.toThrow(/foreign key/i);
  });

  it('a note for an unknown address violates the foreign key', async () => {
    await expect(
      t.db.kysely.insertInto('address_notes').values({ address_id: 99n, info: 'x', created_at: 1n }).execute(),
    ).rejects.toThrow(/foreign key/i);
  });

  it('an address for a known wallet is stored, and its index is unique per wallet', async () => {
    const w = await t.db.kysely.insertInto('wallets').values(walletRow(2, 1n)).returningAll().executeTakeFirstOrThrow();
    const addr = { wallet_id: w.id, derivation_index: 0n, address: 'bc1qone', script_hex: '00', created_at: 1n };
    await t.db.kysely.insertInto('addresses').values(addr).execute();
    await expect(t.db.kysely.insertInto('addresses').values({ ...addr, address: 'bc1qtwo' }).execute()).rejects.toThrow(/unique|duplicate/i);
  });

  it('two wallets cannot share a public key', async () => {
    await t.db.kysely.insertInto('wallets').values(walletRow(3, 1n)).execute();
    await expect(
      t.db.kysely.insertInto('wallets').values({ ...walletRow(3, 1n), api_id: 'live_other' }).execute(),
    ).rejects.toThrow(/unique|duplicate/i);
  });

  it('ping answers on an open database', async () => {
    await expect(t.db.ping()).resolves.toBeUndefined();
  });
});

// PostgreSQL only: schemas are how several databases share one server (tenants, tests, other apps).
if (testEngines().includes('postgres')) {
  describe('migrations on postgres', () => {
    it('a schema migrates even when another schema already holds Kysely migration tables', async () => {
      const neighbour = await createTestDb('postgres'); // its schema has kysely_migration and kysely_migration_lock
      const url = process.env.TEST_DATABASE_URL!;
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      const db = openDb({ engine: 'postgres', url, schema, poolSize: 2 });
      try {
        expect(await migrateToLatest(db)).toEqual(MIGRATIONS.map((m) => m.name));
        const tables = await admin.query(
          `select table_name from information_schema.tables where table_schema = $1 order by table_name`,
          [schema],
        );
        expect(tables.rows.map((r: { table_name: string }) => r.table_name)).toEqual(
          expect.arrayContaining(['wallets', 'kysely_migration', 'kysely_migration_lock']),
        );
        expect(await migrateToLatest(neighbour.db)).toEqual([]);
      } finally {
        await db.close();
        await admin.query(`drop schema ${schema} cascade`);
        await admin.end();
        await neighbour.dispose();
      }
    });

    it('introspection sees only the connection\'s own schema', async () => {
      const mine = await createTestDb('postgres');
      const neighbour = await createTestDb('postgres');
      try {
        await sql`create table only_in_neighbour (id bigint generated by default as identity primary key)`.execute(neighbour.db.kysely);
        const tables = await mine.db.kysely.introspection.getTables();
        expect(tables.map((x) => x.name)).not.toContain('only_in_neighbour');
        const schemas = new Set(tables.map((x) => x.schema));
        expect(schemas.size).toBe(1);
        const wallets = tables.find((x) => x.name === 'wallets')!;
        const id = wallets.columns.find((c) => c.name === 'id')!;
        expect(id).toMatchObject({ dataType: 'int8', isAutoIncrementing: true, isNullable: false });
        expect(wallets.columns.find((c) => c.name === 'notification_email')).toMatchObject({ dataType: 'text', isNullable: true });
        expect(tables.map((x) => x.name)).not.toContain('kysely_migration');
        expect((await mine.db.kysely.introspection.getTables({ withInternalKyselyTables: true })).map((x) => x.name)).toContain('kysely_migration');
      } finally {
        await mine.dispose();
        await neighbour.dispose();
      }
    });

    it('migrations succeed while other schemas are being created and dropped', async () => {
      const url = process.env.TEST_DATABASE_URL!;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      let churning = true;
      const churn = (async () => {
        while (churning) {
          const s = `t_churn_${randomBytes(4).toString('hex')}`;
          await admin.query(`create schema ${s}; create table ${s}.x (id bigserial primary key, v text)`);
          await admin.query(`drop schema ${s} cascade`);
        }
      })();
      const dbs: TestDb[] = [];
      try {
        for (let i = 0; i < 4; i++) dbs.push(await createTestDb('postgres'));
        for (const d of dbs) expect(await migrateToLatest(d.db)).toEqual([]);
      } finally {
        churning = false;
        await churn;
        await admin.end();
        for (const d of dbs) await d.dispose();
      }
    });
  });
}

describe('dbTargetFromConfig', () => {
  it('chooses PostgreSQL from DATABASE_URL and otherwise the SQLite file in the data directory', () => {
    expect(dbTargetFromConfig({ databaseUrl: 'postgres://h/db', dataDir: '/d' })).toEqual({ engine: 'postgres', url: 'postgres://h/db' });
    expect(dbTargetFromConfig({ databaseUrl: null, dataDir: '/d' })).toEqual({ engine: 'sqlite', file: '/d/satgate.sqlite' });
  });
});
