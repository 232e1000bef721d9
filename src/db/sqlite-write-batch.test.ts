import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { engineHandles, openDb, type Db } from './database.ts';
import { migrateToLatest } from './migrate.ts';
import { SqliteWriterThread } from './sqlite-writer.ts';

let dir: string | undefined;
let db: Db | undefined;
afterEach(async () => {
  await db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  db = undefined;
  dir = undefined;
});

async function open(file?: string): Promise<Db> {
  dir = mkdtempSync(join(tmpdir(), 'satgate-batch-'));
  db = openDb({ engine: 'sqlite', file: file ?? join(dir, 'satgate.sqlite') });
  await migrateToLatest(db);
  return db;
}

const INSERT = "insert into rate_locks (purpose, currency, rate, rate_at, locked_at, expires_at) values ('payment_request', ?, '1', 0, 0, 0)";
const insert = (currency: string | null) => ({ sql: INSERT, params: [currency] });
const count = async (d: Db) => Number((await d.kysely.selectFrom('rate_locks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const currencies = async (d: Db) => (await d.kysely.selectFrom('rate_locks').select('currency').orderBy('id').execute()).map((r) => r.currency);
/** Changes when another connection commits to the file (SQLite's own counter, per connection). */
const dataVersion = async (d: Db) => (await sql<{ data_version: bigint }>`pragma data_version`.execute(d.kysely)).rows[0]!.data_version;

describe('group commit of SQLite writes', () => {
  it('writes that arrive together commit in one transaction and each caller gets its own result', async () => {
    const d = await open();
    const before = d.sqliteWriteStats!();
    const results = await Promise.all(['EUR', 'USD', 'CHF'].map((c) => engineHandles(d).sqliteWrite!('statements', [insert(c), insert(c)])));
    expect(results).toEqual([1, 1, 1]);
    const after = d.sqliteWriteStats!();
    expect(after.writes - before.writes).toBe(3);
    expect(after.batches - before.batches).toBe(1);
    expect(await count(d)).toBe(6);
  });

  it('a write that fails is undone alone: its caller gets the error with its SQLite code, the others of its batch are stored', async () => {
    const d = await open();
    const outcomes = await Promise.allSettled([
      engineHandles(d).sqliteWrite!('statements', [insert('EUR')]),
      engineHandles(d).sqliteWrite!('statements', [insert('USD'), insert(null)]),
      engineHandles(d).sqliteWrite!('statements', [insert('CHF')]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = (outcomes[1] as PromiseRejectedResult).reason as Error & { code?: string };
    expect(refused).toBeInstanceOf(Error);
    expect(refused.code).toBe('SQLITE_CONSTRAINT_NOTNULL');
    expect(refused.message).toMatch(/NOT NULL/);
    expect(await currencies(d)).toEqual(['EUR', 'CHF']);
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
    const write = engineHandles(d).sqliteWrite!('statements', [insert('EUR')]).then(() => (written = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(written).toBe(false);
    release();
    await expect(trx).rejects.toThrow('rolled back');
    await write;
    expect(await currencies(d)).toEqual(['EUR']);
  });

  it('a query-builder transaction waits while a batch commits, and sees the batch once it starts', async () => {
    const d = await open();
    const write = engineHandles(d).sqliteWrite!('statements', [insert('EUR')]);
    // The batch takes the main connection in the turn after it was queued; the transaction queues behind it.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const seen = await d.kysely.transaction().execute(async (t) => (await t.selectFrom('rate_locks').select('currency').execute()).map((r) => r.currency));
    await write;
    expect(seen).toEqual(['EUR']);
  });

  it('a write is on disk when its promise resolves: a second connection reads it', async () => {
    const d = await open();
    await engineHandles(d).sqliteWrite!('statements', [insert('EUR')]);
    expect(engineHandles(d).reader!.get<{ n: bigint }>('select count(*) as n from rate_locks', [])?.n).toBe(1n);
  });

  it('on a file the batches commit on the writer thread, whose connection is not the main one', async () => {
    const d = await open();
    const before = await dataVersion(d);
    await engineHandles(d).sqliteWrite!('statements', [insert('EUR')]);
    // The main connection's counter moves only for commits of another connection.
    expect(await dataVersion(d)).not.toBe(before);
    expect(await currencies(d)).toEqual(['EUR']);
  });

  it('an in-memory database commits its batches on its one connection', async () => {
    const d = await open(':memory:');
    const before = await dataVersion(d);
    await engineHandles(d).sqliteWrite!('statements', [insert('EUR')]);
    expect(await dataVersion(d)).toBe(before);
    expect(await currencies(d)).toEqual(['EUR']);
  });

  it('databases on two files share the writer thread, each committing to its own file, and one closing leaves the other writing', async () => {
    const first = await open();
    const otherDir = mkdtempSync(join(tmpdir(), 'satgate-batch-'));
    const second = openDb({ engine: 'sqlite', file: join(otherDir, 'satgate.sqlite') });
    try {
      await migrateToLatest(second);
      await Promise.all([engineHandles(first).sqliteWrite!('statements', [insert('EUR')]), engineHandles(second).sqliteWrite!('statements', [insert('USD')])]);
      expect(await currencies(first)).toEqual(['EUR']);
      expect(await currencies(second)).toEqual(['USD']);
      await second.close();
      await engineHandles(first).sqliteWrite!('statements', [insert('CHF')]);
      expect(await currencies(first)).toEqual(['EUR', 'CHF']);
    } finally {
      await second.close().catch(() => {});
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('a process with nothing but a write to wait for stays alive until the write is stored (a CLI command)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'satgate-batch-'));
    const script = join(dir, 'write-once.mts');
    const src = (m: string) => JSON.stringify(fileURLToPath(new URL(m, import.meta.url)));
    writeFileSync(
      script,
      `import { openDb } from ${src('./database.ts')};
import { migrateToLatest } from ${src('./migrate.ts')};
const db = openDb({ engine: 'sqlite', file: ${JSON.stringify(join(dir, 'cli.sqlite'))} });
await migrateToLatest(db);
const changes = await db.sqliteWrite!('statements', [{ sql: ${JSON.stringify(INSERT)}, params: ['EUR'] }]);
console.log('stored', changes);
await db.close();
`,
    );
    const runTs = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
    // Before the fix the thread, unreferenced while it started, let the process end here with exit code 13.
    const { stdout } = await promisify(execFile)(process.execPath, [runTs, script], { timeout: 30_000 });
    expect(stdout.trim()).toBe('stored 1');
  });

  it('a writer thread that cannot open its connection leaves the batches to the main connection', async () => {
    let onMain = 0;
    const writer = new SqliteWriterThread(join(tmpdir(), 'satgate-no-such-dir', 'nested', 'x.sqlite'), (batch) => {
      onMain += batch.length;
      return batch.map(() => ({ ok: true, value: 'on main' }));
    });
    expect(await writer.commit([{ op: 'statements', args: [] }])).toEqual([{ ok: true, value: 'on main' }]);
    expect(await writer.commit([{ op: 'statements', args: [] }])).toEqual([{ ok: true, value: 'on main' }]);
    expect(onMain).toBe(2);
    await writer.close();
  });
});
