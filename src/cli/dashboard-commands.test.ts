// satgate wallet associate and satgate audit, run as the operator runs them, against a database on each engine.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { runCli } from '../../test/support/server-process.ts';
import { registerRegtestWallet } from '../../test/support/regtest-wallet.ts';
import { MasterKey } from '../security/master-key.ts';
import { profileWallets } from '../dashboard/accounts.ts';
import { recordAudit } from '../security/audit.ts';

const masterKey = MasterKey.fromBytes(new Uint8Array(32).fill(5));

describe.each(testEngines())('satgate wallet associate and satgate audit on %s', (engine) => {
  let testDb: TestDb;
  let apiId: string;

  beforeEach(async () => {
    testDb = await createTestDb(engine);
    apiId = await registerRegtestWallet(testDb.db, masterKey);
  });
  afterEach(async () => {
    await testDb.dispose();
  });

  it('associates a wallet with an e-mail (creating its profile), idempotently, and records it in the audit trail', async () => {
    const first = await runCli(['wallet', 'associate', apiId, 'Owner@Shop.example'], testDb.env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`${apiId} is now associated with owner@shop.example (new profile; they log in with POST /send_otp)\n`);
    const again = await runCli(['wallet', 'associate', apiId, 'owner@shop.example'], testDb.env);
    expect(again.stdout).toBe(`${apiId} was already associated with owner@shop.example\n`);

    const profile = await testDb.db.kysely.selectFrom('profiles').selectAll().executeTakeFirstOrThrow();
    expect(profile.email).toBe('owner@shop.example');
    expect((await profileWallets(testDb.db, profile.id)).map((w) => w.api_id)).toEqual([apiId]);

    const audit = await runCli(['audit', '--json'], testDb.env);
    expect(audit.code, audit.stderr).toBe(0);
    expect(JSON.parse(audit.stdout)).toEqual([
      { at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), action: 'wallet_associated', email: 'owner@shop.example', ip: null, detail: { api_id: apiId, via: 'operator' } },
    ]);
  });

  it('refuses an unknown API ID, a malformed e-mail and missing arguments with a clear message', async () => {
    const [unknown, malformed, missing] = await Promise.all([
      runCli(['wallet', 'associate', 'test_nope', 'owner@shop.example'], testDb.env),
      runCli(['wallet', 'associate', apiId, 'not an email'], testDb.env),
      runCli(['wallet', 'associate', apiId], testDb.env),
    ]);
    expect([unknown.code, unknown.stderr]).toEqual([2, 'satgate: no wallet with api_id test_nope\n']);
    expect([malformed.code, malformed.stderr]).toEqual([2, 'satgate: not a valid e-mail address: not an email\n']);
    expect([missing.code, missing.stderr]).toEqual([2, 'satgate: usage: satgate wallet associate <api_id> <email>\n']);
    expect(await testDb.db.kysely.selectFrom('profile_wallets').selectAll().execute()).toEqual([]);
  });

  it('lists the audit trail, narrowed to one e-mail with --email', async () => {
    const at = Date.UTC(2026, 10, 21, 12, 0, 0);
    await recordAudit(testDb.db.kysely, { action: 'login', email: 'a@shop.example', ip: '203.0.113.1', detail: { session_seconds: 7200 } }, at);
    await recordAudit(testDb.db.kysely, { action: 'otp_failed', email: 'b@shop.example', ip: '203.0.113.2', detail: { failures: 1 } }, at + 1000);
    const all = await runCli(['audit'], testDb.env);
    expect(all.stdout.trim().split('\n')).toEqual([
      '2026-11-21T12:00:00.000Z  login                a@shop.example                203.0.113.1      {"session_seconds":7200}',
      '2026-11-21T12:00:01.000Z  otp_failed           b@shop.example                203.0.113.2      {"failures":1}',
    ]);
    const one = await runCli(['audit', '--email', 'B@shop.example'], testDb.env);
    expect(one.stdout).toMatch(/^2026-11-21T12:00:01.000Z {2}otp_failed/);
    expect(one.stdout.trim().split('\n')).toHaveLength(1);
    const none = await runCli(['audit', '--email', 'c@shop.example'], testDb.env);
    expect(none.stdout).toBe('no audit records for c@shop.example\n');
    const bad = await runCli(['audit', '--limit', 'lots'], testDb.env);
    expect([bad.code, bad.stderr]).toEqual([2, 'satgate: --limit must be a whole number from 1 to 999999\n']);
  });
});
