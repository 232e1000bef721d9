// The merchant's default language for a wallet (issue 35) on both engines: set through the dashboard API and the
// console (strict: an unsupported tag is refused with the list, nothing changed), and used by the payer pages in its
// place in the order — after `?lang=` and the picker's cookie, before Accept-Language. A Greenfield invoice's
// `checkout.defaultLanguage` is checked (422 with its path), echoed, and comes before the wallet's default.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { login } from '../../test/support/dashboard.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };
const ORIGIN = 'http://console.example';

describe.each(testEngines())("the merchant's default language on %s", (engine) => {
  let t: TestApp;
  let apiId: string;
  let session: string;
  let reference: string;
  const email = 'lang-shop@example.com';

  const walletLanguage = async () => (await t.ctx.db.kysely.selectFrom('wallets').select('default_language').where('api_id', '=', apiId).executeTakeFirstOrThrow()).default_language;
  const setByApi = (value: string) =>
    t.app.inject({ method: 'POST', url: `/dashboard/wallets/${apiId}`, headers: { authorization: session }, payload: { default_language: value }, remoteAddress: '198.51.100.1' });
  const page = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
  const lang = (res: LightMyRequestResponse) => res.headers['content-language'];

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: '46000.50' }), SATGATE_PUBLIC_URL: ORIGIN }, chains: DEAD_NODE, start: true });
    apiId = await addSandboxWallet(t.app, { account_name: 'Sprachladen', notification_email: email, local_currency: 'eur' });
    session = await login(t.app, t.ctx.db, email);
    // Registered with the profile's e-mail: adding it by key is proof enough.
    const pub = (await t.ctx.wallets.repo.findByApiId(apiId))!.pub;
    const added = await t.app.inject({ method: 'POST', url: '/dashboard/wallets', headers: { authorization: session }, payload: { pub }, remoteAddress: '198.51.100.1' });
    expect(added.json().return, added.body).toBe('0');
    const bearer = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
    const created = await postPayment(t.app, bearer, customRequest(apiId));
    expect(created.statusCode, created.body).toBe(200);
    reference = created.json().payment_reference as string;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is none at first: the payer page follows the browser, then English', async () => {
    expect(await walletLanguage()).toBeNull();
    const wallet = await t.app.inject({ method: 'GET', url: `/dashboard/wallets/${apiId}`, headers: { authorization: session } });
    expect(wallet.json().wallet.default_language).toBeNull();
    expect(lang(await page(`/pay/${reference}`, { 'accept-language': 'fr-CH, de;q=0.5' }))).toBe('fr');
    expect(lang(await page(`/pay/${reference}`))).toBe('en');
  });

  it('is set through the dashboard API as the table spells it, and an unsupported tag is refused with the list and changes nothing', async () => {
    const saved = await setByApi('ZH-hant');
    expect(saved.json().return, saved.body).toBe('0');
    expect(await walletLanguage()).toBe('zh-Hant');
    for (const bad of ['xx', 'de-XX-foo', 'klingon', 'en-XA']) {
      const refused = await setByApi(bad);
      expect(refused.json().return, refused.body).not.toBe('0');
      expect(refused.json().status).toContain(`default_language "${bad}" is not a supported language`);
      expect(refused.json().status).toContain('de, it');
      expect(await walletLanguage()).toBe('zh-Hant');
    }
    // Nothing else of a refused change is saved either.
    const mixed = await t.app.inject({ method: 'POST', url: `/dashboard/wallets/${apiId}`, headers: { authorization: session }, payload: { account_name: 'Renamed', default_language: 'xx' }, remoteAddress: '198.51.100.1' });
    expect(mixed.json().return).not.toBe('0');
    expect((await t.ctx.wallets.repo.findByApiId(apiId))!.account_name).toBe('Sprachladen');
    expect((await setByApi('')).json().return).toBe('0');
    expect(await walletLanguage()).toBeNull();
    expect((await setByApi('de')).json().return).toBe('0');
    const wallet = await t.app.inject({ method: 'GET', url: `/dashboard/wallets/${apiId}`, headers: { authorization: session } });
    expect(wallet.json().wallet.default_language).toBe('de');
  });

  it('comes after ?lang= and the picker, and before Accept-Language, on the hosted payment page', async () => {
    expect(await walletLanguage()).toBe('de');
    const plain = await page(`/pay/${reference}`, { 'accept-language': 'fr-CH, fr;q=0.9' });
    expect(lang(plain)).toBe('de');
    expect(plain.body).toMatch(/<html[^>]* lang="de"/);
    expect(lang(await page(`/pay/${reference}?lang=ja`, { 'accept-language': 'fr' }))).toBe('ja');
    expect(lang(await page(`/pay/${reference}`, { cookie: 'satgate_lang=es', 'accept-language': 'fr' }))).toBe('es');
    // A payment that is not there has no merchant: its page follows the browser.
    expect(lang(await page('/pay/pay_nothing_here', { 'accept-language': 'fr' }))).toBe('fr');
  });

  it('opens the payment form page in the wallet default, after ?lang= and before Accept-Language', async () => {
    expect(await walletLanguage()).toBe('de');
    const made = await t.app.inject({
      method: 'POST',
      url: '/payment_form',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ api_id: apiId, order_id: 'LANG-1', order_amount: 25, order_currency: 'EUR', payment_cancel_url: 'https://shop.example/cart', payment_complete_url: 'https://shop.example/thanks', payment_update_url: 'https://shop.example/hooks/satgate', site_name: 'Sprachladen' }),
    });
    expect(made.json().return, made.body).toBe('0');
    const url = new URL(made.json().payment_page_url as string).pathname;
    const plain = await page(url, { 'accept-language': 'fr' });
    expect(lang(plain)).toBe('de');
    expect(plain.body).toMatch(/<html[^>]* lang="de"/);
    expect(lang(await page(`${url}?lang=ja`, { 'accept-language': 'fr' }))).toBe('ja');
  });

  it('is set in the console: every language offered by its own name, a bad value refused with a clear message', async () => {
    const headers = (cookie: string) => ({ host: 'console.example', ...(cookie ? { cookie } : {}) });
    const post = (url: string, form: Record<string, string>, cookie: string) =>
      t.app.inject({ method: 'POST', url, headers: { ...headers(cookie), 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, 'sec-fetch-site': 'same-origin' }, payload: new URLSearchParams(form).toString() });
    // The console's cookie holds the same kind of session the dashboard API takes.
    const cookie = `satgate_console=${session}`;
    const view = await t.app.inject({ method: 'GET', url: `/console/wallets/${apiId}`, headers: headers(cookie) });
    expect(view.body).toContain('<select id="default_language" name="default_language">');
    expect(view.body).toContain('<option value="de" lang="de" selected>Deutsch (de)</option>');
    expect(view.body).toContain('<option value="ar" lang="ar">العربية (ar)</option>');
    const csrf = /name="csrf" value="([^"]+)"/.exec(view.body)![1]!;
    const bad = await post(`/console/wallets/${apiId}`, { csrf, default_language: 'xx' }, cookie);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('is not a supported language');
    expect(await walletLanguage()).toBe('de');
    const saved = await post(`/console/wallets/${apiId}`, { csrf, default_language: 'fr' }, cookie);
    expect(saved.statusCode, saved.body).toBe(303);
    expect(await walletLanguage()).toBe('fr');
    const after = await t.app.inject({ method: 'GET', url: `/console/wallets/${apiId}`, headers: headers(cookie) });
    expect(after.body).toContain('<option value="fr" lang="fr" selected>Français (fr)</option>');
  });

  it("takes a Greenfield invoice's checkout.defaultLanguage before the wallet's, echoes it, and refuses an unsupported one with its path", async () => {
    expect(await walletLanguage()).toBe('fr');
    const key = await greenfieldKey(t.ctx, apiId);
    const store = await gf(t.app, key, 'GET', `/api/v1/stores/${apiId}`);
    expect(store.json().defaultLang).toBe('fr');
    const created = await gf(t.app, key, 'POST', `/api/v1/stores/${apiId}/invoices`, { amount: '10', currency: 'EUR', checkout: { defaultLanguage: 'de-DE' } });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().checkout.defaultLanguage).toBe('de-DE');
    const invoiceId = created.json().id as string;
    expect((await gf(t.app, key, 'GET', `/api/v1/stores/${apiId}/invoices/${invoiceId}`)).json().checkout.defaultLanguage).toBe('de-DE');
    const payPath = created.json().checkoutLink.replace(ORIGIN, '') as string;
    const redirect = await page(payPath);
    expect(redirect.statusCode).toBe(302);
    const location = redirect.headers.location as string;
    expect(lang(await page(location, { 'accept-language': 'ja' }))).toBe('de');
    expect(lang(await page(`${location}?lang=ko`))).toBe('ko');

    // BTCPay's region codes and Chinese scripts match; no language given leaves the wallet's default.
    const hk = await gf(t.app, key, 'POST', `/api/v1/stores/${apiId}/invoices`, { amount: '10', currency: 'EUR', checkout: { defaultLanguage: 'zh-HK' } });
    expect(hk.statusCode, hk.body).toBe(200);
    expect(lang(await page((await page(hk.json().checkoutLink.replace(ORIGIN, ''))).headers.location as string))).toBe('zh-Hant');
    const none = await gf(t.app, key, 'POST', `/api/v1/stores/${apiId}/invoices`, { amount: '10', currency: 'EUR', checkout: { defaultLanguage: null } });
    expect(none.json().checkout.defaultLanguage).toBeNull();
    expect(lang(await page((await page(none.json().checkoutLink.replace(ORIGIN, ''))).headers.location as string, { 'accept-language': 'ja' }))).toBe('fr');

    for (const bad of ['xx-YY', 'tlh', 'not a tag', 42]) {
      const refused = await gf(t.app, key, 'POST', `/api/v1/stores/${apiId}/invoices`, { amount: '10', currency: 'EUR', checkout: { defaultLanguage: bad } });
      expect(refused.statusCode, String(bad)).toBe(422);
      expect(refused.json()).toEqual([{ path: 'checkout.defaultLanguage', message: expect.any(String) }]);
    }
  });
});
