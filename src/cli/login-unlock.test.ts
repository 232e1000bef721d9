// satgate login unlock, run as the operator runs it, against a database on each engine: it lifts an e-mail's
// wrong-code wait or lockout, forgets the count, and records who was unlocked in the audit trail.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { runCli } from '../../test/support/server-process.ts';

describe.each(testEngines())('satgate login unlock on %s', (engine) => {
  let testDb: TestDb;
  let profileId: bigint;

  beforeEach(async () => {
    testDb = await createTestDb(engine);
    const at = BigInt(Date.now());
    profileId = (
      await testDb.db.kysely
        .insertInto('profiles')
        .values({ email: 'owner@shop.example', firstname: null, lastname: null, mobile: null, country: null, created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  });
  afterEach(async () => {
    await testDb.dispose();
  });

  it('lifts a lockout, forgets the wrong codes and records it in the audit trail', async () => {
    const until = Date.now() + 20 * 3_600_000;
    await testDb.db.kysely.insertInto('login_failures').values({ profile_id: profileId, failures: 100n, wait_until: BigInt(until), updated_at: 0n }).execute();
    const res = await runCli(['login', 'unlock', 'Owner@Shop.example'], testDb.env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`owner@shop.example: code sign-in unlocked (it was locked until ${new Date(until).toISOString()} after 100 wrong codes in a row)\n`);
    expect(await testDb.db.kysely.selectFrom('login_failures').selectAll().execute()).toEqual([]);
    const audit = await runCli(['audit', '--json'], testDb.env);
    expect(JSON.parse(audit.stdout)).toEqual([
      { at: expect.stringMatching(/^\d{4}-/), action: 'login_unlocked', email: 'owner@shop.example', ip: null, detail: { in_a_row: 100, was_locked: true } },
    ]);
  });

  it('says so when the e-mail was not locked, and refuses an unknown or malformed e-mail', async () => {
    const [notLocked, unknown, malformed, missing] = await Promise.all([
      runCli(['login', 'unlock', 'owner@shop.example'], testDb.env),
      runCli(['login', 'unlock', 'nobody@shop.example'], testDb.env),
      runCli(['login', 'unlock', 'not an email'], testDb.env),
      runCli(['login', 'unlock'], testDb.env),
    ]);
    expect([notLocked.code, notLocked.stdout]).toEqual([0, 'owner@shop.example: not locked (0 wrong codes in a row); nothing to do\n']);
    expect([unknown.code, unknown.stderr]).toEqual([2, 'satgate: no dashboard profile has the e-mail nobody@shop.example\n']);
    expect([malformed.code, malformed.stderr]).toEqual([2, 'satgate: not a valid e-mail address: not an email\n']);
    expect([missing.code, missing.stderr]).toEqual([2, 'satgate: usage: satgate login unlock <email>\n']);
  });
});
