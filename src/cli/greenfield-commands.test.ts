// satgate greenfield key create / list / revoke, run as the operator runs them, on each engine; the key is
// then checked the way the authentication hook checks it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { runCli } from '../../test/support/server-process.ts';
import { registerRegtestWallet } from '../../test/support/regtest-wallet.ts';
import { MasterKey } from '../security/master-key.ts';
import { GreenfieldKeys } from '../greenfield/api-keys.ts';

const masterKey = MasterKey.fromBytes(new Uint8Array(32).fill(5));

describe.each(testEngines())('satgate greenfield key on %s', (engine) => {
  let testDb: TestDb;
  let apiId: string;

  beforeEach(async () => {
    testDb = await createTestDb(engine);
    apiId = await registerRegtestWallet(testDb.db, masterKey);
  });
  afterEach(async () => {
    await testDb.dispose();
  });

  it('creates a key with the WooCommerce plugin’s permissions by default, lists it without the key, and revokes it at once', async () => {
    const created = await runCli(['greenfield', 'key', 'create', '--store', apiId, '--json'], testDb.env);
    expect(created.code, created.stderr).toBe(0);
    const out = JSON.parse(created.stdout) as { apiKey: string; storeId: string; permissions: string[] };
    expect(out.storeId).toBe(apiId);
    expect(out.apiKey).toMatch(/^[0-9a-f]{40}$/);
    expect(out.permissions.sort()).toEqual(
      [
        'btcpay.store.canviewinvoices',
        'btcpay.store.cancreateinvoice',
        'btcpay.store.canmodifyinvoices',
        'btcpay.store.webhooks.canmodifywebhooks',
        'btcpay.store.canviewstoresettings',
        'btcpay.store.cancreatenonapprovedpullpayments',
      ].map((p) => `${p}:${apiId}`).sort(),
    );
    const keys = new GreenfieldKeys(testDb.db, Date.now);
    expect((await keys.verify(out.apiKey))?.storeId).toBe(apiId);

    const listed = await runCli(['greenfield', 'key', 'list', '--json'], testDb.env);
    expect(listed.stdout).not.toContain(out.apiKey);
    const [info] = JSON.parse(listed.stdout) as { keyId: string; revokedAt: number | null }[];
    expect(info!.revokedAt).toBeNull();

    const revoked = await runCli(['greenfield', 'key', 'revoke', info!.keyId], testDb.env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await keys.verify(out.apiKey)).toBeUndefined();
    const again = await runCli(['greenfield', 'key', 'revoke', info!.keyId], testDb.env);
    expect(again.code).toBe(2);
  });

  it('takes explicit permissions, and refuses unknown ones, another store’s and an unknown store', async () => {
    const viewOnly = await runCli(['greenfield', 'key', 'create', '--store', apiId, '--permission', 'btcpay.store.canviewinvoices', '--json'], testDb.env);
    expect(JSON.parse(viewOnly.stdout).permissions).toEqual([`btcpay.store.canviewinvoices:${apiId}`]);
    const [unknown, other, noStore] = await Promise.all([
      runCli(['greenfield', 'key', 'create', '--store', apiId, '--permission', 'btcpay.server.canmodifyserversettings'], testDb.env),
      runCli(['greenfield', 'key', 'create', '--store', apiId, '--permission', 'btcpay.store.canviewinvoices:test_other'], testDb.env),
      runCli(['greenfield', 'key', 'create', '--store', 'test_nope'], testDb.env),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown permission');
    expect(other.code).toBe(2);
    expect(noStore.stderr).toBe('satgate: no wallet with API ID test_nope\n');
  });
});
