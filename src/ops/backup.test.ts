// Online backup under a payment workload and restore: a backup taken while payments are created, paid and confirmed
// is a consistent snapshot, restores into an empty data directory with the right master key only, and a service
// started on the restored copy answers every balance and status as the original does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, TEST_MASTER_KEY, type TestApp } from '../../test/support/test-app.ts';
import { createTestDb, type TestDb } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';
import { dumpTables } from '../../test/support/db-dump.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { openDb, type Db } from '../db/database.ts';
import { MasterKey } from '../security/master-key.ts';
import { BackupError, backupSqlite, manifestPath, restoreSqlite, type BackupManifest } from './backup.ts';

let node: RegtestNode;
let t: TestApp;
const work = mkdtempSync(join(tmpdir(), 'satgate-backup-'));
const ratesFile = writeRatesFile({ USD: '50000.00' });

beforeAll(async () => {
  node = await startRegtestNode();
  t = await createTestApp('sqlite', { env: { SATGATE_RATES_FILE: ratesFile }, chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } }, start: true });
  await t.ctx.chains.pollNow();
});
afterAll(async () => {
  await t?.close();
  await node?.stop();
  rmSync(work, { recursive: true, force: true });
});

function dbFile(): string {
  return join(t.testDb.env.SATGATE_DATA_DIR!, 'satgate.sqlite');
}

/** Restores a backup into a new data directory (the master key put back first) and opens it as a test database. */
function restoreInto(backup: string, key = TEST_MASTER_KEY): { dir: string; testDb: TestDb; manifest: BackupManifest } {
  const dir = mkdtempSync(join(work, 'restored-'));
  const keyFile = join(dir, 'master.key');
  const manifest = restoreSqlite(backup, dir, join(dir, 'satgate.sqlite'), keyFile, key);
  const file = join(dir, 'satgate.sqlite');
  const db = openDb({ engine: 'sqlite', file });
  return {
    dir,
    manifest,
    testDb: { db, engine: 'sqlite', reopen: () => openDb({ engine: 'sqlite', file }), env: { SATGATE_DATA_DIR: dir }, dispose: async () => db.close() },
  };
}

/** What a consistent snapshot must satisfy: foreign keys hold, every payment's status is its last stored transition's. */
async function expectConsistent(db: Db): Promise<number> {
  expect((await sql`pragma foreign_key_check`.execute(db.kysely)).rows).toEqual([]);
  const payments = await db.kysely.selectFrom('payments').select(['id', 'status']).execute();
  for (const p of payments) {
    const last = await db.kysely.selectFrom('payment_transitions').select('to_status').where('payment_id', '=', p.id).orderBy('id', 'desc').limit(1).executeTakeFirst();
    expect(last?.to_status).toBe(p.status);
  }
  return payments.length;
}

describe('satgate backup and restore (SQLite online backup)', () => {
  it('backs up while payments are created, paid and confirmed; each backup is consistent; a restored copy answers the same balances and statuses', async () => {
    const apiId = await addSandboxWallet(t.app, { account_name: 'Backup Shop' });
    const token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
    const references: string[] = [];
    let done = false;

    const workload = (async () => {
      try {
        for (let i = 0; i < 12; i++) {
          const res = await postPayment(t.app, token, customRequest(apiId, { order_amount: 10 + i, payer_id: `p-${i}` }));
          expect(res.statusCode, res.body).toBe(200);
          const body = res.json() as { payment_reference: string; crypto_address: string };
          references.push(body.payment_reference);
          if (i % 3 !== 2) await node.pay(decodeAddress(body.crypto_address).script, 20_000n + BigInt(i));
          if (i % 4 === 3) await node.mine(1);
          await t.ctx.chains.pollNow();
        }
      } finally {
        done = true;
      }
    })();

    const underLoad: string[] = [];
    while (!done) {
      const file = join(work, `under-load-${underLoad.length}.sqlite`);
      await backupSqlite(dbFile(), file, TEST_MASTER_KEY);
      underLoad.push(file);
      await new Promise((r) => setTimeout(r, 50));
    }
    await workload;
    expect(underLoad.length).toBeGreaterThan(1);
    for (const file of underLoad) {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const restored = restoreInto(file);
      try {
        expect(await expectConsistent(restored.testDb.db)).toBeLessThanOrEqual(references.length);
      } finally {
        await restored.testDb.dispose();
      }
    }

    // At rest (background work stopped, the server still answering), a backup equals the original row for row.
    await t.ctx.stopBackground();
    const final = join(work, 'final.sqlite');
    const manifest = await backupSqlite(dbFile(), final, TEST_MASTER_KEY);
    expect(manifest.master_key_fingerprint).toBe(TEST_MASTER_KEY.fingerprint());
    expect(existsSync(manifestPath(final))).toBe(true);
    const restored = restoreInto(final);
    expect(await dumpTables(restored.testDb.db)).toBe(await dumpTables(t.testDb.db));

    const copy = await createTestApp('sqlite', { testDb: restored.testDb, env: { SATGATE_RATES_FILE: ratesFile } });
    try {
      const statuses = new Set<string>();
      for (const reference of references) {
        const [a, b] = await Promise.all([
          t.app.inject({ url: `/api/v1/payment/${reference}` }),
          copy.app.inject({ url: `/api/v1/payment/${reference}` }),
        ]);
        expect(b.statusCode).toBe(200);
        expect(b.json()).toEqual(a.json());
        statuses.add((a.json() as { status: string }).status);
      }
      // Unpaid ones, and paid ones (exactly, or less than asked: the workload pays about 20 000 sat) confirmed.
      expect(statuses).toContain('unpaid');
      expect([...statuses].some((s) => s.startsWith('confirmed'))).toBe(true);
    } finally {
      await copy.stop();
    }
  });

  it('restore refuses a mismatched master key, a missing key, a non-empty data directory, and never overwrites a backup', async () => {
    const file = join(work, 'refusals.sqlite');
    await backupSqlite(dbFile(), file, TEST_MASTER_KEY);
    await expect(backupSqlite(dbFile(), file, TEST_MASTER_KEY)).rejects.toThrow(/exists/);
    const dir = mkdtempSync(join(work, 'target-'));
    const other = MasterKey.fromBytes(new Uint8Array(32).fill(9));
    const attempt = (key: MasterKey | null) => () => restoreSqlite(file, dir, join(dir, 'satgate.sqlite'), join(dir, 'master.key'), key);
    expect(attempt(other)).toThrow(BackupError);
    expect(attempt(other)).toThrow(new RegExp(`fingerprint ${other.fingerprint()}.*${TEST_MASTER_KEY.fingerprint()}`));
    expect(attempt(null)).toThrow(/master key file .* is missing: put back the key with fingerprint/);
    expect(existsSync(join(dir, 'satgate.sqlite'))).toBe(false);
    writeFileSync(join(dir, 'notes.txt'), 'x');
    expect(attempt(TEST_MASTER_KEY)).toThrow(/not empty \(notes.txt\)/);
  });
});
