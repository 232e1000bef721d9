// Wrong sign-in codes counted per e-mail across codes (NIST SP 800-63B 5.2.2), on the real app and both engines with
// an injected clock: 10 wrong codes in a row are free, each further one doubles a wait before the next check is
// compared, the 100th locks code sign-in for 24 hours on every sign-in path and mails the owner once; a sign-in
// resets the count, and concurrent checks are counted one at a time.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, TEST_MASTER_KEY, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { checkOtp, lastLoginMail, sendOtp } from '../../test/support/dashboard.ts';
import { openSealedMail } from '../notify/sealed-mail.ts';

const EMAIL = 'merchant@shop.example';
const PUBLIC = 'https://pay.example.com';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const wrongFor = (code: string) => (code === '000000' ? '000001' : '000000');

describe.each(testEngines())('wrong sign-in codes per e-mail on %s', (engine) => {
  let t: TestApp;
  let now: number;
  /** The code of the last send_otp while it can still be tried (null once it died). */
  let code: string | null;

  beforeEach(async () => {
    now = Date.UTC(2026, 10, 21, 12, 0, 0);
    code = null;
    t = await createTestApp(engine, { clock: () => now, env: { SATGATE_PUBLIC_URL: PUBLIC } });
  });
  afterEach(async () => {
    await t?.close();
  });

  const retryAfter = (res: LightMyRequestResponse) => Number(res.headers['retry-after']);

  /** A new code, waiting out the per-e-mail send limits on the clock. */
  async function freshCode(): Promise<string> {
    for (;;) {
      const res = await sendOtp(t.app, { email: EMAIL });
      if (res.statusCode === 429) {
        now += retryAfter(res) * 1000;
        continue;
      }
      expect(res.json().return, res.body).toBe('0');
      code = (await lastLoginMail(t.testDb.db, EMAIL)).code;
      return code;
    }
  }

  /**
   * One counted wrong code: waits out any wait on the clock first, and asks a new code when the last one is used,
   * dead or expired (a check against such a code compares nothing and is not counted).
   */
  async function wrongTry(): Promise<LightMyRequestResponse> {
    for (;;) {
      const live = code ?? (await freshCode());
      const res = await checkOtp(t.app, { email: EMAIL, otp: wrongFor(live) });
      if (res.statusCode === 429) {
        now += retryAfter(res) * 1000;
        continue;
      }
      const { return: answer, status } = res.json() as { return: string; status: string };
      if (answer === '305' || /expired|had too many/.test(status)) {
        code = null;
        continue;
      }
      expect(['307', '306'], res.body).toContain(answer);
      if (answer === '306') code = null;
      return res;
    }
  }

  const lockoutMails = async () => {
    const rows = await t.testDb.db.kysely.selectFrom('outbox').selectAll().where('target', '=', EMAIL).orderBy('id').execute();
    return rows.map((r) => JSON.parse(r.payload_json) as Record<string, unknown>).filter((p) => p.event === 'dashboard_lockout');
  };

  it('counts wrong codes across codes: from the 10th in a row each one doubles a wait in which no code is compared, and a sign-in resets the count', async () => {
    const first = await freshCode();
    for (let i = 1; i <= 5; i++) expect((await checkOtp(t.app, { email: EMAIL, otp: wrongFor(first) })).json().return).toBe(i < 5 ? '307' : '306');
    now += MINUTE;
    const second = await freshCode();
    for (let i = 1; i <= 4; i++) expect((await checkOtp(t.app, { email: EMAIL, otp: wrongFor(second) })).json().return, `wrong code ${5 + i}`).toBe('307');
    // The 10th wrong code in a row still ends its code as before (306), and starts a 30 s wait.
    const tenth = await checkOtp(t.app, { email: EMAIL, otp: wrongFor(second) });
    expect([tenth.statusCode, tenth.json().return]).toEqual([401, '306']);
    expect(tenth.json().status).toMatch(/next code check .* in 30 s/);
    now += MINUTE;
    const third = await freshCode();
    // A new code does not reset the count: the 11th wrong code starts a 60 s wait.
    const eleventh = await checkOtp(t.app, { email: EMAIL, otp: wrongFor(third) });
    expect([eleventh.statusCode, eleventh.json().return]).toEqual([401, '307']);
    const waiting = await checkOtp(t.app, { email: EMAIL, otp: third });
    expect([waiting.statusCode, waiting.json().return, waiting.headers['retry-after']]).toEqual([429, '201', '60']);
    expect(waiting.json().status).toMatch(/^Too many requests: .*wrong codes in a row for this e-mail address.*; try again in 60 s$/);
    now += 59_000;
    expect(retryAfter(await checkOtp(t.app, { email: EMAIL, otp: third }))).toBe(1);
    now += 1000;
    // Refused checks were not compared: the code still has 4 tries, and the 12th wrong code waits 120 s.
    const twelfth = await checkOtp(t.app, { email: EMAIL, otp: wrongFor(third) });
    expect([twelfth.json().return, twelfth.json().status]).toEqual(['307', expect.stringContaining('3 tries left for this code')]);
    expect(retryAfter(await checkOtp(t.app, { email: EMAIL, otp: third }))).toBe(120);
    now += 120_000;
    expect((await checkOtp(t.app, { email: EMAIL, otp: third })).json().return).toBe('0');
    code = null;

    // The sign-in reset the count: 10 wrong codes in a row are free again.
    for (let i = 1; i <= 10; i++) {
      const res = await wrongTry();
      if (i < 10) expect(res.json().status, `wrong code ${i}`).not.toMatch(/next code check/);
    }
    const after = await checkOtp(t.app, { email: EMAIL, otp: '123456' });
    expect([after.statusCode, retryAfter(after)]).toEqual([429, 30]);
  });

  it('concurrent checks past the 10th wrong code are counted one at a time: one is compared, the others wait', async () => {
    for (let i = 0; i < 10; i++) await wrongTry();
    now += 30_000;
    const live = code ?? (await freshCode());
    const tries = await Promise.all(Array.from({ length: 8 }, () => checkOtp(t.app, { email: EMAIL, otp: wrongFor(live) })));
    expect(tries.map((r) => r.statusCode).sort()).toEqual([401, 429, 429, 429, 429, 429, 429, 429]);
    const row = await t.testDb.db.kysely.selectFrom('login_failures').selectAll().executeTakeFirstOrThrow();
    expect(row.failures).toBe(11n);
  });

  it('the 100th wrong code in a row locks code sign-in for 24 hours on every sign-in path and mails the owner once', async () => {
    let last!: LightMyRequestResponse;
    for (let i = 1; i <= 12; i++) await wrongTry();
    // The count across codes is shown above; to keep this test short, 95 wrong codes in a row are taken as counted.
    await t.testDb.db.kysely.updateTable('login_failures').set({ failures: 95n, wait_until: 0n }).execute();
    for (let i = 96; i <= 99; i++) {
      last = await wrongTry();
      expect(last.json().status, `wrong code ${i}`).toMatch(new RegExp(`; ${i} wrong codes in a row for this e-mail address: the next code check is accepted in 3600 s$`));
    }
    const lastCode = code;
    expect(await lockoutMails()).toEqual([]);
    last = await wrongTry();
    const lockedAt = now;
    expect(last.json().status).toMatch(/100 wrong codes in a row.*locked for 24 hours/);

    // The owner is told once, through the outbox, what happened and what to do.
    const mails = await lockoutMails();
    expect(mails).toHaveLength(1);
    const mail = openSealedMail(TEST_MASTER_KEY, mails[0]!)!;
    expect(mail.subject).toBe('Sign-in to your satgate dashboard is locked');
    expect(mail.text).toContain('100 wrong sign-in codes in a row');
    expect(mail.text).toContain('198.51.100.1');
    expect(mail.text).toContain(`until ${new Date(lockedAt + 24 * HOUR).toISOString().slice(0, 16).replace('T', ' ')} UTC`);
    const audit = await t.ctx.dashboard.audit({ email: EMAIL });
    expect(audit.filter((a) => a.action === 'login_locked')).toHaveLength(1);

    // Every sign-in path answers the rate-limit refusal with Retry-After; no code is compared, none is mailed.
    const outboxBefore = (await t.testDb.db.kysely.selectFrom('outbox').selectAll().execute()).length;
    const check = await checkOtp(t.app, { email: EMAIL, otp: lastCode ?? '123456' });
    expect([check.statusCode, check.json().return, retryAfter(check)]).toEqual([429, '201', 86_400]);
    expect(check.json().status).toMatch(/sign-in with a code is locked/);
    // Each send below comes a minute after the last, so only the lockout can refuse it.
    const left = () => Math.ceil((lockedAt + 24 * HOUR - now) / 1000);
    now += MINUTE;
    const send = await sendOtp(t.app, { email: EMAIL });
    expect([send.statusCode, send.json().return, retryAfter(send)]).toEqual([429, '201', left()]);
    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    const post = (url: string, fields: Record<string, string>) =>
      t.app.inject({ method: 'POST', url, remoteAddress: '198.51.100.1', headers: { origin: PUBLIC, 'content-type': 'application/x-www-form-urlencoded' }, payload: form(fields) });
    for (const url of ['/console/login', '/console/login/code']) {
      now += MINUTE;
      const res = await post(url, { email: EMAIL, otp: '123456' });
      expect([res.statusCode, retryAfter(res)], url).toEqual([429, left()]);
      expect(res.body, url).toContain('sign-in with a code is locked');
    }
    const authorize = { applicationName: 'WooCommerce', redirect: 'https://shop.example/wp-admin/admin.php', permissions: 'btcpay.store.canviewinvoices', email: EMAIL, otp: '123456' };
    for (const url of ['/api-keys/authorize/code', '/api-keys/authorize/sign-in']) {
      now += MINUTE;
      const res = await post(url, authorize);
      expect([res.statusCode, retryAfter(res)], url).toEqual([429, left()]);
      expect(res.body, url).toContain('sign-in with a code is locked');
    }
    expect((await t.testDb.db.kysely.selectFrom('outbox').selectAll().execute()).length).toBe(outboxBefore);

    // After 24 hours codes can be asked again; a further wrong code locks again at once, without a second mail.
    now = lockedAt + 24 * HOUR;
    code = null;
    const again = await wrongTry();
    expect(again.json().status).toMatch(/locked for 24 hours/);
    expect(retryAfter(await checkOtp(t.app, { email: EMAIL, otp: code ?? '123456' }))).toBe(86_400);
    expect(await lockoutMails()).toHaveLength(1);

    // The right code after the lockout signs in and clears the count.
    now += 24 * HOUR;
    const right = await freshCode();
    expect((await checkOtp(t.app, { email: EMAIL, otp: right })).json().return).toBe('0');
    expect((await t.testDb.db.kysely.selectFrom('login_failures').select('failures').executeTakeFirst())?.failures ?? 0n).toBe(0n);
  });

  it('an e-mail without a profile answers 301 as before, whatever was tried on others', async () => {
    for (let i = 0; i < 12; i++) await wrongTry();
    const res = await checkOtp(t.app, { email: 'nobody@shop.example', otp: '123456' });
    expect([res.statusCode, res.json().return]).toEqual([404, '301']);
  });
});
