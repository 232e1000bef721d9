import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type Db } from './database.ts';
import { migrateToLatest } from './migrate.ts';

let dir: string | undefined;
let db: Db | undefined;
afterEach(async () => {
  await db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  db = undefined;
  dir = undefined;
});

async function open(): Promise<Db> {
  dir = mkdtempSync(join(tmpdir(), 'satgate-batch-'));
  db = openDb({ engine: 'sqlite', file: join(dir, 'satgate.sqlite') });
  await migrateToLatest(db);
  return db;
}

const INSERT = "insert into rate_locks (purpose, currency, rate, rate_at, locked_at, expires_at) values ('payment_request', ?, '1', 0, 0, 0)";
const count = async (d: Db) => Number((await d.kysely.selectFrom('rate_locks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

describe('group commit of SQLite writes', () => {
  it('writes that arrive together commit in one transaction and each caller gets its own result', async () => {
    const d = await open();
    const before = d.sqliteWriteStats!();
    const results = await Promise.all(['EUR', 'USD', 'CHF'].map((c) => d.sqliteWrite!((conn) => (conn.run(INSERT, [c]), c))));
    expect(results).toEqual(['EUR', 'USD', 'CHF']);
    const after = d.sqliteWriteStats!();
    expect(after.writes - before.writes).toBe(3);
    expect(after.batches - before.batches).toBe(1);
    expect(await count(d)).toBe(3);
  });

  it('a write that fails is undone alone: its caller gets the error, the others of its batch are stored', async () => {
    const d = await open();
    const outcomes = await Promise.allSettled([
      d.sqliteWrite!((conn) => conn.run(INSERT, ['EUR'])),
      d.sqliteWrite!((conn) => {
        conn.run(INSERT, ['USD']);
        throw new Error('refused after its first statement');
      }),
      d.sqliteWrite!((conn) => conn.run(INSERT, ['CHF'])),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const currencies = (await d.kysely.selectFrom('rate_locks').select('currency').orderBy('id').execute()).map((r) => r.currency);
    expect(currencies).toEqual(['EUR', 'CHF']);
  });

  it('waits for a transaction of the query builder that is open across awaits, and never writes inside it', async () => {
    const d = await open();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const trx = d.kysely.transaction().execute(async (t) => {
      await t.insertInto('rate_locks').values({ purpose: 'payment_request', currency: 'GBP', rate: '1', rate_at: 0n, locked_at: 0n, expires_at: 0n }).execute();
      await held;
      throw new Error('rolled back');
    });
    let written = false;
    const write = d.sqliteWrite!((conn) => {
      conn.run(INSERT, ['EUR']);
      written = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(written).toBe(false);
    release();
    await expect(trx).rejects.toThrow('rolled back');
    await write;
    const currencies = (await d.kysely.selectFrom('rate_locks').select('currency').execute()).map((r) => r.currency);
    expect(currencies).toEqual(['EUR']);
  });

  it('a write is on disk when its promise resolves: a second connection reads it', async () => {
    const d = await open();
    await d.sqliteWrite!((conn) => conn.run(INSERT, ['EUR']));
    expect(d.reader!.get<{ n: bigint }>('select count(*) as n from rate_locks', [])?.n).toBe(1n);
  });
});
