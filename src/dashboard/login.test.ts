// Operations 18 and 19 and sessions on the real app (SQLite and PostgreSQL), with an injected clock: every
// error code of the login, the failure count across resends, single use, expiry, and limits held in the database.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { authed, checkOtp, lastLoginMail, login, sendOtp } from '../../test/support/dashboard.ts';

const EMAIL = 'merchant@shop.example';
const MINUTE = 60_000;

describe.each(testEngines())('dashboard login on %s', (engine) => {
  let t: TestApp;
  let now: number;

  beforeEach(async () => {
    now = Date.UTC(2026, 10, 21, 12, 0, 0);
    t = await createTestApp(engine, { clock: () => now });
  });
  afterEach(async () => {
    await t?.close();
  });

  const count = async (table: 'profiles' | 'outbox' | 'dashboard_otps' | 'dashboard_sessions') =>
    Number((await t.testDb.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow()).n);

  it('send_otp creates the profile, answers only the envelope and queues a sealed mail that says what the code is for', async () => {
    const res = await sendOtp(t.app, { email: 'Merchant@Shop.example' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ return: '0', status: 'OK' });
    const profile = await t.testDb.db.kysely.selectFrom('profiles').selectAll().executeTakeFirstOrThrow();
    expect(profile.email).toBe(EMAIL);
    const mail = await lastLoginMail(t.testDb.db, EMAIL);
    expect(mail.subject).toBe('Your satgate dashboard login code');
    expect(mail.text).toMatch(/log in to the satgate merchant dashboard is:/);
    expect(mail.text).toMatch(/valid for 10 minutes and works once/);
    expect(mail.text).toMatch(/If you did not ask for it, you can ignore this e-mail/);
    expect(mail.text).toMatch(/Requested from the IP address 198\.51\.100\.1/);
    const outbox = await t.testDb.db.kysely.selectFrom('outbox').selectAll().executeTakeFirstOrThrow();
    expect(outbox.payload_json).not.toContain(mail.code);
    expect(JSON.parse(outbox.payload_json)).toMatchObject({ event: 'dashboard_otp' });
  });

  it('answers 308 for a malformed e-mail and 201 for wrong types, storing nothing', async () => {
    for (const email of ['not-an-email', ' merchant@shop.example', 'merchant@shop.example ', 'a@b', 'two@@shop.example', '']) {
      const res = await sendOtp(t.app, { email });
      expect([res.statusCode, res.json().return], email).toEqual([400, '308']);
    }
    for (const body of [{ email: 7 }, { email: [EMAIL] }, {}, { email: EMAIL, firstname: 5 }, { email: EMAIL, mobile: null }, { email: EMAIL, extra: 'x' }]) {
      const res = await sendOtp(t.app, body);
      expect([res.statusCode, res.json().return], JSON.stringify(body)).toEqual([400, '201']);
    }
    const emptyBody = await t.app.inject({ method: 'POST', url: '/send_otp' });
    expect(emptyBody.json().return).toBe('201');
    expect(await count('profiles')).toBe(0);
    expect(await count('outbox')).toBe(0);
    await sendOtp(t.app, { email: EMAIL });
    const { code } = await lastLoginMail(t.testDb.db, EMAIL);
    for (const body of [{ email: EMAIL, otp: Number(code) }, { email: EMAIL, otp: code, expiration: '7200' }, { email: EMAIL, otp: code, expiration: 1.5 }, { email: EMAIL, otp: '12345' }, { email: EMAIL, otp: ` ${code}` }]) {
      const res = await checkOtp(t.app, body);
      expect([res.statusCode, res.json().return], JSON.stringify(body)).toEqual([400, '201']);
    }
    expect(await count('dashboard_sessions')).toBe(0);
    // None of those counted as a wrong try: the code still works.
    expect((await checkOtp(t.app, { email: EMAIL, otp: code })).json().return).toBe('0');
  });

  it('answers 301 for an e-mail that never asked for a code', async () => {
    const res = await checkOtp(t.app, { email: 'nobody@shop.example', otp: '123456' });
    expect([res.statusCode, res.json().return]).toEqual([404, '301']);
  });

  it('answers 305 when no code was asked for the profile, and for a code already used', async () => {
    const apiId = (await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC' } })).json().api_id as string;
    await t.ctx.dashboard.associateByOperator(apiId, EMAIL);
    const none = await checkOtp(t.app, { email: EMAIL, otp: '123456' });
    expect([none.statusCode, none.json().return]).toEqual([401, '305']);

    await sendOtp(t.app, { email: EMAIL });
    const { code } = await lastLoginMail(t.testDb.db, EMAIL);
    expect((await checkOtp(t.app, { email: EMAIL, otp: code })).json().return).toBe('0');
    const again = await checkOtp(t.app, { email: EMAIL, otp: code });
    expect([again.statusCode, again.json().return]).toEqual([401, '305']);
    expect(await count('dashboard_sessions')).toBe(1);
  });

  it('answers 307 for a wrong code, 306 on the 5th wrong try, and the code is then dead even when right', async () => {
    await sendOtp(t.app, { email: EMAIL });
    const { code } = await lastLoginMail(t.testDb.db, EMAIL);
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 1; i <= 4; i++) {
      const res = await checkOtp(t.app, { email: EMAIL, otp: wrong });
      expect([res.statusCode, res.json().return], `try ${i}`).toEqual([401, '307']);
      expect(res.json().status).toContain(`${5 - i} ${5 - i === 1 ? 'try' : 'tries'} left`);
    }
    const fifth = await checkOtp(t.app, { email: EMAIL, otp: wrong });
    expect([fifth.statusCode, fifth.json().return]).toEqual([401, '306']);
    const right = await checkOtp(t.app, { email: EMAIL, otp: code });
    expect(right.json().return).toBe('306');
    expect(await count('dashboard_sessions')).toBe(0);

    // A new code starts afresh and logs in.
    now += MINUTE;
    await sendOtp(t.app, { email: EMAIL });
    const fresh = await lastLoginMail(t.testDb.db, EMAIL);
    expect((await checkOtp(t.app, { email: EMAIL, otp: fresh.code === '000000' ? '000001' : '000000' })).json().return).toBe('307');
    expect((await checkOtp(t.app, { email: EMAIL, otp: fresh.code })).json().return).toBe('0');
  });

  it('concurrent tries count exactly: one login per code, and exactly four 307s before the code dies', async () => {
    await sendOtp(t.app, { email: EMAIL });
    const { code } = await lastLoginMail(t.testDb.db, EMAIL);
    const wrong = code === '000000' ? '000001' : '000000';
    const tries = await Promise.all(Array.from({ length: 10 }, () => checkOtp(t.app, { email: EMAIL, otp: wrong })));
    const codes = tries.map((r) => r.json().return as string).sort();
    expect(codes).toEqual(['306', '306', '306', '306', '306', '306', '307', '307', '307', '307']);

    now += MINUTE;
    await sendOtp(t.app, { email: EMAIL });
    const fresh = await lastLoginMail(t.testDb.db, EMAIL);
    const logins = await Promise.all(Array.from({ length: 4 }, () => checkOtp(t.app, { email: EMAIL, otp: fresh.code })));
    expect(logins.map((r) => r.json().return as string).sort()).toEqual(['0', '305', '305', '305']);
    expect(await count('dashboard_sessions')).toBe(1);
  });

  it('a resent code replaces the previous one but keeps its failure count', async () => {
    await sendOtp(t.app, { email: EMAIL });
    const first = await lastLoginMail(t.testDb.db, EMAIL);
    const wrongFor = (c: string) => (c === '999999' ? '999998' : '999999');
    for (let i = 0; i < 3; i++) expect((await checkOtp(t.app, { email: EMAIL, otp: wrongFor(first.code) })).json().return).toBe('307');
    now += MINUTE;
    await sendOtp(t.app, { email: EMAIL });
    const second = await lastLoginMail(t.testDb.db, EMAIL);
    if (second.code !== first.code) expect((await checkOtp(t.app, { email: EMAIL, otp: first.code })).json().return).toBe('307');
    else expect((await checkOtp(t.app, { email: EMAIL, otp: wrongFor(second.code) })).json().return).toBe('307');
    const fifth = await checkOtp(t.app, { email: EMAIL, otp: wrongFor(second.code) });
    expect(fifth.json().return).toBe('306');
    expect((await checkOtp(t.app, { email: EMAIL, otp: second.code })).json().return).toBe('306');
  });

  it('answers 306 for a code past its 10 minutes', async () => {
    await sendOtp(t.app, { email: EMAIL });
    const { code } = await lastLoginMail(t.testDb.db, EMAIL);
    now += 10 * MINUTE;
    const res = await checkOtp(t.app, { email: EMAIL, otp: code });
    expect([res.statusCode, res.json().return]).toEqual([401, '306']);
    expect(res.json().status).toMatch(/expired/);
  });

  it('a session lasts 7200 s by default or its expiration, then answers 304; logout ends it (303)', async () => {
    const token = await login(t.app, t.testDb.db, EMAIL);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    now += 7199 * 1000;
    expect((await authed(t.app, token, 'GET', '/get_profile')).json().return).toBe('0');
    now += 1000;
    const expired = await authed(t.app, token, 'GET', '/get_profile');
    expect([expired.statusCode, expired.json().return]).toEqual([401, '304']);

    now += MINUTE;
    await sendOtp(t.app, { email: EMAIL });
    const { code } = await lastLoginMail(t.testDb.db, EMAIL);
    const res = await checkOtp(t.app, { email: EMAIL, otp: code, expiration: 60 });
    expect(res.json()).toMatchObject({ return: '0', expiration: 60 });
    const short = res.json().token as string;
    expect((await authed(t.app, short, 'GET', '/get_profile', undefined)).json().return).toBe('0');
    now += 60_000;
    expect((await authed(t.app, short, 'GET', '/get_profile')).json().return).toBe('304');

    for (const expiration of [0, 30 * 86_400 + 1, -5]) {
      now += MINUTE;
      await sendOtp(t.app, { email: EMAIL });
      const c = await lastLoginMail(t.testDb.db, EMAIL);
      expect((await checkOtp(t.app, { email: EMAIL, otp: c.code, expiration })).json().return, String(expiration)).toBe('201');
    }

    now += MINUTE;
    const fresh = await login(t.app, t.testDb.db, EMAIL, { expiration: 30 * 86_400 });
    expect((await authed(t.app, fresh, 'POST', '/logout')).json().return).toBe('0');
    const after = await authed(t.app, fresh, 'GET', '/get_profile');
    expect([after.statusCode, after.json().return]).toEqual([401, '303']);
    const missing = await t.app.inject({ method: 'GET', url: '/get_profile' });
    expect([missing.statusCode, missing.json().return]).toEqual([401, '302']);
    now += MINUTE;
    const bearer = await login(t.app, t.testDb.db, EMAIL);
    const viaBearer = await t.app.inject({ method: 'GET', url: '/get_profile', headers: { authorization: `Bearer ${bearer}` } });
    expect(viaBearer.json().email).toBe(EMAIL);
  });

  it('profile fields posted with send_otp apply once the code is used; update_profile sets and empty unsets', async () => {
    await sendOtp(t.app, { email: EMAIL, firstname: 'Ada', lastname: 'Lovelace', country: 'GB' });
    let profile = await t.testDb.db.kysely.selectFrom('profiles').selectAll().executeTakeFirstOrThrow();
    expect(profile.firstname).toBeNull(); // not proven yet
    const { code } = await lastLoginMail(t.testDb.db, EMAIL);
    const token = (await checkOtp(t.app, { email: EMAIL, otp: code })).json().token as string;
    expect((await authed(t.app, token, 'GET', '/get_profile')).json()).toEqual({
      return: '0',
      status: 'OK',
      email: EMAIL,
      firstname: 'Ada',
      lastname: 'Lovelace',
      mobile: null,
      country: 'GB',
    });
    const updated = await authed(t.app, token, 'POST', '/update_profile', { mobile: '+447911123456', lastname: '' });
    expect(updated.json()).toEqual({ return: '0', status: 'OK' });
    expect((await authed(t.app, token, 'GET', '/get_profile')).json()).toMatchObject({ firstname: 'Ada', lastname: null, mobile: '+447911123456', country: 'GB' });
    for (const body of [{ firstname: 5 }, { email: 'other@shop.example' }, { country: 'x'.repeat(101) }, { firstname: 'a\u0000b' }]) {
      expect((await authed(t.app, token, 'POST', '/update_profile', body)).json().return, JSON.stringify(body)).toBe('201');
    }
    // Someone else asking a code for this e-mail cannot change the profile.
    now += MINUTE;
    await sendOtp(t.app, { email: EMAIL, firstname: 'Mallory', country: '' }, '203.0.113.66');
    profile = await t.testDb.db.kysely.selectFrom('profiles').selectAll().executeTakeFirstOrThrow();
    expect([profile.firstname, profile.country]).toEqual(['Ada', 'GB']);
  });

  it('limits codes per e-mail (1 a minute, 10 an hour) and checks per IP (30 in 5 minutes) with Retry-After, across a restart', async () => {
    expect((await sendOtp(t.app, { email: EMAIL })).json().return).toBe('0');
    now += 20_000;
    const soon = await sendOtp(t.app, { email: EMAIL });
    expect([soon.statusCode, soon.json().return]).toEqual([429, '201']);
    expect(soon.json().status).toMatch(/Too many requests: at most 1 code a minute for this e-mail address; try again in 40 s/);
    expect(soon.headers['retry-after']).toBe('40');
    expect(await count('outbox')).toBe(1);

    // A restarted service (a new process on the same database) still knows.
    const testDb = t.testDb;
    await t.stop();
    t = await createTestApp(engine, { clock: () => now, testDb: { ...testDb, db: testDb.reopen() } });
    const afterRestart = await sendOtp(t.app, { email: EMAIL });
    expect([afterRestart.statusCode, afterRestart.headers['retry-after']]).toEqual([429, '40']);

    for (let i = 2; i <= 10; i++) {
      now += MINUTE;
      expect((await sendOtp(t.app, { email: EMAIL })).json().return, `code ${i}`).toBe('0');
    }
    now += MINUTE;
    const hourly = await sendOtp(t.app, { email: EMAIL });
    expect([hourly.statusCode, hourly.json().status]).toEqual([429, expect.stringMatching(/10 codes an hour/)]);
    expect(Number(hourly.headers['retry-after'])).toBeGreaterThan(0);
    // Other addresses are not affected.
    expect((await sendOtp(t.app, { email: 'other@shop.example' })).json().return).toBe('0');

    const { code } = await lastLoginMail(t.testDb.db, EMAIL);
    for (let i = 0; i < 30; i++) await checkOtp(t.app, { email: 'nobody@shop.example', otp: '123456' }, '192.0.2.9');
    const blocked = await checkOtp(t.app, { email: EMAIL, otp: code }, '192.0.2.9');
    expect([blocked.statusCode, blocked.json().return]).toEqual([429, '201']);
    expect(blocked.headers['retry-after']).toBe('300');
    // The limit is per IP, and a limited try does not touch the code.
    expect((await checkOtp(t.app, { email: EMAIL, otp: code }, '192.0.2.10')).json().return).toBe('0');
  });

  it('believes X-Forwarded-For only from a proxy named in SATGATE_TRUST_PROXY', async () => {
    const viaProxy = (app: typeof t.app, remoteAddress: string) =>
      app.inject({ method: 'POST', url: '/send_otp', payload: { email: EMAIL }, remoteAddress, headers: { 'x-forwarded-for': '203.0.113.50' } });
    await viaProxy(t.app, '127.0.0.1');
    const testDb = t.testDb;
    await t.stop();
    t = await createTestApp(engine, { clock: () => now, testDb: { ...testDb, db: testDb.reopen() }, env: { SATGATE_TRUST_PROXY: '127.0.0.1' } });
    now += MINUTE;
    await viaProxy(t.app, '127.0.0.1');
    now += MINUTE;
    await viaProxy(t.app, '198.51.100.77'); // not a trusted proxy: its header is ignored
    expect((await t.ctx.dashboard.audit({ email: EMAIL })).map((a) => a.ip)).toEqual(['127.0.0.1', '203.0.113.50', '198.51.100.77']);
  });

  it('records logins, failed tries and logouts with time and IP in the audit trail', async () => {
    await sendOtp(t.app, { email: EMAIL }, '203.0.113.5');
    const { code } = await lastLoginMail(t.testDb.db, EMAIL);
    await checkOtp(t.app, { email: EMAIL, otp: code === '111111' ? '111112' : '111111' }, '203.0.113.6');
    const token = (await checkOtp(t.app, { email: EMAIL, otp: code }, '203.0.113.7')).json().token as string;
    const out = await t.app.inject({ method: 'POST', url: '/logout', headers: { authorization: token }, remoteAddress: '203.0.113.8' });
    expect(out.json(), out.body).toEqual({ return: '0', status: 'OK' });
    const audit = await t.ctx.dashboard.audit({ email: EMAIL });
    expect(audit.map((a) => [a.action, a.ip, a.at])).toEqual([
      ['otp_sent', '203.0.113.5', now],
      ['otp_failed', '203.0.113.6', now],
      ['login', '203.0.113.7', now],
      ['logout', '203.0.113.8', now],
    ]);
    expect(JSON.stringify(audit)).not.toContain(code);
    expect(JSON.stringify(audit)).not.toContain(token);
  });

  it('OpenAPI documents the dashboard operations and their token', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json() as {
      paths: Record<string, Record<string, { security?: unknown[]; requestBody?: unknown }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    for (const path of ['/send_otp', '/check_otp', '/get_profile', '/update_profile', '/get_accounts', '/logout', '/tx/{value}']) expect(doc.paths, path).toHaveProperty([path]);
    expect(doc.paths['/get_profile']!.get!.security).toEqual([{ dashboardToken: [] }]);
    expect(doc.paths['/check_otp']!.post!.requestBody).toBeDefined();
    expect(doc.components.securitySchemes.dashboardToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
  });
});
