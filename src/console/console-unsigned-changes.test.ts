// What add_pub changed without a sign-in, as the owner sees it (issue 30, finding 2): a name payers see that was
// changed through add_pub is flagged on the wallet's page and in the dashboard API until the owner saves it; the
// webhook URL (return_url), which add_pub can no longer change, is the signed-in owner's to change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { lastLoginMail } from '../../test/support/dashboard.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';

const ORIGIN = 'http://console.example';
const CLOCK_MS = Date.UTC(2026, 10, 21, 12, 0, 0);

/** A same-origin browser: keeps the cookie and reads the page's CSRF token. */
class Browser {
  cookie = '';
  constructor(private readonly app: FastifyInstance) {}

  get(url: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: 'GET', url, headers: { host: 'console.example', ...(this.cookie ? { cookie: this.cookie } : {}) } });
  }

  async post(url: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { host: 'console.example', origin: ORIGIN, 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
      payload: new URLSearchParams(form).toString(),
    });
    const set = res.headers['set-cookie'];
    if (typeof set === 'string') this.cookie = set.split(';')[0]!;
    return res;
  }

  token(): string {
    return this.cookie.slice(this.cookie.indexOf('=') + 1);
  }

  async csrf(url: string): Promise<string> {
    const m = /name="csrf" value="([^"]+)"/.exec((await this.get(url)).body);
    if (!m) throw new Error(`no CSRF field on ${url}`);
    return m[1]!;
  }
}

describe.each(testEngines())('changes made without a sign-in, in the console on %s', (engine) => {
  let t: TestApp;
  let owner: Browser;
  let pub: string;
  let apiId: string;
  const email = 'owner@shop.example';

  beforeAll(async () => {
    t = await createTestApp(engine, { clock: () => CLOCK_MS, env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), SATGATE_PUBLIC_URL: ORIGIN } });
    pub = generateNewWallet(true).accountKey;
    const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub, notification_email: email, account_name: 'Corner Shop', return_url: 'https://shop.example/hooks' } });
    apiId = added.json().api_id as string;
    owner = new Browser(t.app);
    await owner.post('/console/login', { email });
    const { code } = await lastLoginMail(t.ctx.db, email);
    expect((await owner.post('/console/login/code', { email, otp: code })).statusCode).toBe(303);
    expect((await owner.post('/console/wallets', { csrf: await owner.csrf('/console/wallets'), pub })).statusCode).toBe(303);
  });
  afterAll(async () => {
    await t?.close();
  });

  const page = () => owner.get(`/console/wallets/${apiId}`);
  const apiView = async () => (await t.app.inject({ method: 'GET', url: `/dashboard/wallets/${apiId}`, headers: { authorization: owner.token() } })).json().wallet;

  it('a name changed through add_pub is flagged on the wallet page and in the dashboard API until the owner saves it', async () => {
    expect((await page()).body).not.toContain('changed without sign-in');
    expect((await apiView()).account_name_check).toBeNull();

    const renamed = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub, account_name: 'Corner Sh0p <b>' } });
    expect(renamed.json().return).toBe('0');

    const flagged = (await page()).body;
    expect(flagged).toContain('Name changed without sign-in on 2026-11-21 12:00 UTC');
    expect(flagged).toContain('&quot;Corner Shop&quot;');
    expect(flagged).toContain('Corner Sh0p &lt;b&gt;');
    expect(flagged).toContain('<input type="hidden" name="account_name" value="Corner Sh0p &lt;b&gt;">');
    expect((await owner.get('/console/wallets')).body).toContain('changed without sign-in');
    expect(await apiView()).toMatchObject({ account_name: 'Corner Sh0p <b>', account_name_check: { changed_at: '2026-11-21T12:00:00.000Z', previous: 'Corner Shop' } });

    // A second unsigned change keeps the name the owner last saw as the one to compare with.
    await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub, account_name: 'Corner Sh0p 2' } });
    expect((await apiView()).account_name_check).toMatchObject({ previous: 'Corner Shop' });

    // Saving settings without the name leaves the flag; saving the name (confirming or correcting it) clears it.
    const csrf = await owner.csrf(`/console/wallets/${apiId}`);
    expect((await owner.post(`/console/wallets/${apiId}`, { csrf, local_currency: 'usd' })).statusCode).toBe(303);
    expect((await apiView()).account_name_check).not.toBeNull();
    const saved = await owner.post(`/console/wallets/${apiId}`, { csrf, account_name: 'Corner Shop' });
    expect(saved.statusCode, saved.body).toBe(303);
    expect((await page()).body).not.toContain('changed without sign-in');
    expect(await apiView()).toMatchObject({ account_name: 'Corner Shop', account_name_check: null });
  });

  it('the owner changes the webhook URL (return_url) in the console and through the dashboard API', async () => {
    const csrf = await owner.csrf(`/console/wallets/${apiId}`);
    const saved = await owner.post(`/console/wallets/${apiId}`, { csrf, webhook_url: 'https://shop.example/new-hooks' });
    expect(saved.statusCode, saved.body).toBe(303);
    expect((await t.ctx.wallets.repo.findByApiId(apiId))!.return_url).toBe('https://shop.example/new-hooks');
    const viaApi = await t.app.inject({ method: 'POST', url: `/dashboard/wallets/${apiId}`, headers: { authorization: owner.token() }, payload: { webhook_url: 'https://shop.example/third' } });
    expect(viaApi.json().return, viaApi.body).toBe('0');
    expect((await apiView()).webhook_url).toBe('https://shop.example/third');
    // add_pub, which needs no sign-in, still cannot.
    const refused = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub, return_url: 'https://attacker.example/' } });
    expect(refused.json().return).toBe('201');
    expect((await t.ctx.wallets.repo.findByApiId(apiId))!.return_url).toBe('https://shop.example/third');
  });
});
