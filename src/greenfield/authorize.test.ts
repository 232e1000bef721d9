// The key-authorization page as the WooCommerce plugin uses it, on both engines: the merchant signs in with a
// code mailed through real SMTP, sees what is asked, picks a store, approves, and the page posts apiKey, userId
// and permissions[] to the redirect; refusing creates nothing; bad redirects, cross-origin posts, a forged CSRF
// token and another merchant's store are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { startSmtpCapture, takeLoginMail, type SmtpCapture } from '../../test/support/smtp-capture.ts';
import { gf } from '../../test/support/greenfield.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };
const PUBLIC = 'https://pay.example.com';
const REDIRECT = 'https://shop.example/wp-admin/admin.php?page=wc-settings&btcpay-settings-callback=1';
const WOO = ['btcpay.store.canviewinvoices', 'btcpay.store.cancreateinvoice', 'btcpay.store.canviewstoresettings', 'btcpay.store.canmodifyinvoices', 'btcpay.store.cancreatenonapprovedpullpayments', 'btcpay.store.webhooks.canmodifywebhooks'];

const query = (redirect = REDIRECT) =>
  `${WOO.map((p) => `permissions=${encodeURIComponent(p)}`).join('&')}&applicationName=WooCommerce&strict=true&selectiveStores=true&redirect=${encodeURIComponent(redirect)}&applicationIdentifier=woocommerce`;
const form = (fields: [string, string][]) => fields.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
const carried = (): [string, string][] => [
  ['applicationName', 'WooCommerce'],
  ['applicationIdentifier', 'woocommerce'],
  ['redirect', REDIRECT],
  ...WOO.map((p): [string, string] => ['permissions', p]),
  ['strict', 'true'],
  ['selectiveStores', 'true'],
];

describe.each(testEngines())('the key-authorization page on %s', (engine) => {
  let t: TestApp;
  let smtp: SmtpCapture;
  let mine: string;
  let theirs: string;
  const email = 'owner@woo-shop.example';

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile(), SATGATE_PUBLIC_URL: PUBLIC, SATGATE_SMTP_URL: smtp.url },
      chains: DEAD_NODE,
      start: true,
    });
    mine = await addSandboxWallet(t.app, { account_name: 'Woo Shop' });
    theirs = await addSandboxWallet(t.app, { account_name: 'Not Yours' });
    await t.ctx.dashboard.associateByOperator(mine, email);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const post = (url: string, fields: [string, string][], headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC, ...headers }, payload: form(fields) });

  // One sign-in for the whole file: the dashboard limits how often a code may be mailed to one address.
  let signedIn: Promise<{ cookie: string; csrf: string; page: string }> | undefined;
  const signIn = () => (signedIn ??= signInOnce());
  async function signInOnce(): Promise<{ cookie: string; csrf: string; page: string }> {
    const asked = await post('/api-keys/authorize/code', [...carried(), ['email', email]]);
    expect(asked.statusCode, asked.body).toBe(200);
    const { code } = await takeLoginMail(smtp, email);
    const signed = await post('/api-keys/authorize/sign-in', [...carried(), ['email', email], ['otp', code]]);
    expect(signed.statusCode, signed.body).toBe(200);
    const setCookie = String(signed.headers['set-cookie']);
    expect(setCookie).toMatch(/^satgate_gf_authorize=[^;]+; Path=\/api-keys\/; Max-Age=1800; HttpOnly; SameSite=Strict; Secure$/);
    const csrf = /name="csrf" value="([^"]+)"/.exec(signed.body)![1]!;
    return { cookie: setCookie.split(';')[0]!, csrf, page: signed.body };
  }

  it('signed out, the page asks for the e-mail and carries the request; its CSP lets forms post only here and to the shop', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api-keys/authorize?${query()}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('action="/api-keys/authorize/code"');
    expect(res.body).toContain('name="permissions" value="btcpay.store.canmodifyinvoices"');
    expect(res.headers['content-security-policy']).toContain("form-action 'self' https://shop.example");
  });

  it('approving posts apiKey, userId and permissions[] to the redirect, and the key works with exactly those permissions', async () => {
    const { cookie, csrf, page } = await signIn();
    expect(page).toContain('Woo Shop');
    expect(page).not.toContain(theirs);
    const res = await post('/api-keys/authorize/decide', [...carried(), ['csrf', csrf], ['storeId', mine], ['decision', 'approve']], { cookie });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toContain(`action="${REDIRECT.replace(/&/g, '&amp;')}"`);
    const apiKey = /name="apiKey" value="([0-9a-f]{40})"/.exec(res.body)![1]!;
    expect(res.body).toMatch(/name="userId" value="profile-\d+"/);
    const posted = [...res.body.matchAll(/name="permissions\[\]" value="([^"]+)"/g)].map((m) => m[1]);
    expect(posted.sort()).toEqual(WOO.map((p) => `${p}:${mine}`).sort());
    // What the plugin checks next: GET api-keys/current, each permission policy:storeId of one store.
    const current = await gf(t.app, apiKey, 'GET', '/api/v1/api-keys/current');
    expect(current.json().permissions.sort()).toEqual(posted);
    expect((await t.app.inject({ method: 'GET', url: '/api-keys/authorize.js' })).body).toContain("getElementById('hand-off')");
  });

  it('refusing creates no key and posts nothing', async () => {
    const before = (await t.ctx.greenfield.keys.list()).length;
    const { cookie, csrf } = await signIn();
    const res = await post('/api-keys/authorize/decide', [...carried(), ['csrf', csrf], ['storeId', mine], ['decision', 'refuse']], { cookie });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('name="apiKey"');
    expect(res.body).toContain('No key was created');
    expect((await t.ctx.greenfield.keys.list()).length).toBe(before);
  });

  it('refuses every POST step that carries neither Origin nor Referer, as the console does; a same-origin Referer alone is enough', async () => {
    const { cookie, csrf } = await signIn();
    const outbox = async () => (await t.ctx.db.kysely.selectFrom('outbox').select('id').execute()).length;
    const keys = (await t.ctx.greenfield.keys.list()).length;
    const mails = await outbox();
    const bare = (url: string, fields: [string, string][], headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: form(fields) });
    const steps: [string, [string, string][]][] = [
      ['/api-keys/authorize/code', [...carried(), ['email', email]]],
      ['/api-keys/authorize/sign-in', [...carried(), ['email', email], ['otp', '123456']]],
      ['/api-keys/authorize/decide', [...carried(), ['csrf', csrf], ['storeId', mine], ['decision', 'approve']]],
    ];
    for (const [url, fields] of steps) {
      const res = await bare(url, fields, { cookie });
      expect(res.statusCode, url).toBe(400);
      expect(res.body, url).toContain('Forms must come from this page.');
      expect(res.headers['set-cookie'], url).toBeUndefined();
    }
    expect(await outbox()).toBe(mails);
    expect((await t.ctx.greenfield.keys.list()).length).toBe(keys);
    const viaReferer = await bare('/api-keys/authorize/decide', [...carried(), ['csrf', csrf], ['storeId', mine], ['decision', 'refuse']], {
      cookie,
      referer: `${PUBLIC}/api-keys/authorize?${query()}`,
    });
    expect(viaReferer.statusCode, viaReferer.body).toBe(200);
    expect(viaReferer.body).toContain('No key was created');
  });

  it('refuses a non-http redirect, a post from another origin, a forged CSRF token and a store that is not the merchant’s', async () => {
    const js = await t.app.inject({ method: 'GET', url: `/api-keys/authorize?${query('javascript:alert(1)')}` });
    expect(js.statusCode).toBe(400);
    const cross = await post('/api-keys/authorize/code', [...carried(), ['email', email]], { origin: 'https://evil.example' });
    expect(cross.statusCode).toBe(400);
    const before = (await t.ctx.greenfield.keys.list()).length;
    const { cookie, csrf } = await signIn();
    const forged = await post('/api-keys/authorize/decide', [...carried(), ['csrf', 'x'.repeat(43)], ['storeId', mine], ['decision', 'approve']], { cookie });
    expect(forged.statusCode).toBe(403);
    const notMine = await post('/api-keys/authorize/decide', [...carried(), ['csrf', csrf], ['storeId', theirs], ['decision', 'approve']], { cookie });
    expect(notMine.statusCode).toBe(403);
    const noSession = await post('/api-keys/authorize/decide', [...carried(), ['csrf', csrf], ['storeId', mine], ['decision', 'approve']]);
    expect(noSession.statusCode).toBe(401);
    expect((await t.ctx.greenfield.keys.list()).length).toBe(before);
  });
});
