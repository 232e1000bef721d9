// The merchant console over HTTP (inject) on both engines: sign-in by mailed code into an HttpOnly SameSite=Strict
// cookie, the same-origin and CSRF checks on every POST, wallets with balances, adding and editing wallets, the
// payments list with filters and pages, the detail of a payment, redelivery, the profile and its sign-in history,
// what another merchant's session sees, and sign-out. The dashboard API's merchant views answer the same data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { lastLoginMail } from '../../test/support/dashboard.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { enqueueNotifications } from '../notify/outbox.ts';
import { CONSOLE_CSP } from './console-headers.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };
const ORIGIN = 'http://console.example';

/** A browser-like client of the console: keeps the cookie, sends same-origin headers and the page's CSRF token. */
class Browser {
  cookie = '';
  constructor(private readonly app: FastifyInstance) {}

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: 'GET', url, headers: { host: 'console.example', ...(this.cookie ? { cookie: this.cookie } : {}) } });
  }

  async post(url: string, form: Record<string, string>, headers: Record<string, string> = { origin: ORIGIN, 'sec-fetch-site': 'same-origin' }): Promise<LightMyRequestResponse> {
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { host: 'console.example', 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}), ...headers },
      payload: new URLSearchParams(form).toString(),
    });
    const set = res.headers['set-cookie'];
    if (typeof set === 'string') this.cookie = set.split(';')[0]!.endsWith('=') ? '' : set.split(';')[0]!;
    return res;
  }

  /** The session token in the cookie: the same kind of session the dashboard API takes in Authorization. */
  token(): string {
    return this.cookie.slice(this.cookie.indexOf('=') + 1);
  }

  /** The CSRF token of a page's forms. */
  async csrf(url = '/console/wallets'): Promise<string> {
    const page = await this.get(url);
    const m = /name="csrf" value="([^"]+)"/.exec(page.body);
    if (!m) throw new Error(`no CSRF field on ${url}: ${page.statusCode} ${page.body.slice(0, 200)}`);
    return m[1]!;
  }
}

async function signIn(app: FastifyInstance, t: TestApp, email: string): Promise<Browser> {
  const b = new Browser(app);
  const asked = await b.post('/console/login', { email });
  expect(asked.statusCode, asked.body).toBe(200);
  const { code } = await lastLoginMail(t.ctx.db, email);
  const res = await b.post('/console/login/code', { email, otp: code });
  expect(res.statusCode, res.body).toBe(303);
  expect(res.headers.location).toBe('/console/wallets');
  return b;
}

describe.each(testEngines())('the merchant console on %s', (engine) => {
  let t: TestApp;
  let apiId: string;
  let bearer: string;
  let merchant: Browser;
  const email = 'shop@example.com';

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: '46000.50' }), SATGATE_PUBLIC_URL: ORIGIN }, chains: DEAD_NODE, start: true });
    apiId = await addSandboxWallet(t.app, { account_name: 'Corner Shop', notification_email: email, local_currency: 'usd' });
    bearer = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('signs in with the mailed code into an HttpOnly, SameSite=Strict cookie for /console/ only, and every page carries the strict policy', async () => {
    const b = new Browser(t.app);
    const page = await b.get('/console/login');
    expect(page.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(page.headers['referrer-policy']).toBe('same-origin');
    expect(page.body).toContain('<label for="email">');
    expect(page.body).not.toMatch(/<script>|\sstyle="|\son[a-z]+="/);
    const asked = await b.post('/console/login', { email });
    expect(asked.body).toContain('<label for="otp">');
    const { code } = await lastLoginMail(t.ctx.db, email);
    const wrong = await b.post('/console/login/code', { email, otp: code === '000000' ? '111111' : '000000' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const res = await b.post('/console/login/code', { email, otp: code });
    expect(res.statusCode).toBe(303);
    const cookie = res.headers['set-cookie'] as string;
    expect(cookie).toMatch(/^satgate_console=[A-Za-z0-9_-]{43}; Path=\/console\/; Max-Age=7200; HttpOnly; SameSite=Strict$/);
    const empty = await b.get('/console/wallets');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('No wallets yet');
    // The key was registered with this e-mail as its notification e-mail: adding it by key is proof enough.
    const pub = (await t.ctx.wallets.repo.findByApiId(apiId))!.pub;
    const added = await b.post('/console/wallets', { csrf: await b.csrf(), pub });
    expect(added.headers.location).toBe('/console/wallets?ok=wallet_added');
    const wallets = await b.get('/console/wallets?ok=wallet_added');
    expect(wallets.body).toContain('Corner Shop');
    expect(wallets.body).toContain('Wallet added.');
    merchant = b;
  });

  it('says when a new code cannot be sent yet (the dashboard limits apply), with Retry-After', async () => {
    const again = await new Browser(t.app).post('/console/login', { email });
    expect(again.statusCode).toBe(429);
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    expect(again.body).toContain('Too many requests: at most 1 code a minute');
    expect(again.body).toContain(`value="${email}"`);
  });

  it('sets the cookie Secure when the console is served over https', async () => {
    const s = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile(), SATGATE_PUBLIC_URL: 'https://pay.example.com' }, chains: DEAD_NODE });
    try {
      await s.app.inject({ method: 'POST', url: '/console/login', headers: { origin: 'https://pay.example.com', 'content-type': 'application/x-www-form-urlencoded' }, payload: 'email=a%40example.com' });
      const { code } = await lastLoginMail(s.ctx.db, 'a@example.com');
      const res = await s.app.inject({
        method: 'POST',
        url: '/console/login/code',
        headers: { origin: 'https://pay.example.com', 'content-type': 'application/x-www-form-urlencoded' },
        payload: `email=a%40example.com&otp=${code}&remember=1`,
      });
      expect(res.headers['set-cookie']).toMatch(/; Max-Age=604800; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      await s.close();
    }
  });

  it('refuses a POST from another origin, one without Origin or Referer, and one without the session CSRF token', async () => {
    const csrf = await merchant.csrf();
    const form = { csrf, account_name: 'Hijacked' };
    const url = `/console/wallets/${apiId}`;
    for (const headers of <Record<string, string>[]>[
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'same-site', origin: ORIGIN },
      { origin: 'null' },
      {},
    ]) {
      const res = await merchant.post(url, form, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
    }
    expect((await merchant.post(url, { account_name: 'Hijacked' })).statusCode).toBe(403);
    expect((await merchant.post(url, { account_name: 'Hijacked', csrf: `${csrf.slice(0, -2)}xx` })).statusCode).toBe(403);
    expect((await t.ctx.wallets.repo.findByApiId(apiId))!.account_name).toBe('Corner Shop');
    // Origin: null (a no-referrer page) with a same-origin Referer passes: the console never relies on Origin alone.
    const ok = await merchant.post(url, { csrf, account_name: 'Corner Shop' }, { origin: 'null', referer: `${ORIGIN}/console/wallets` });
    expect(ok.statusCode, ok.body).toBe(303);
  });

  it('lists wallets with balances in BTC and the local currency, adds a new key, refuses a key registered with another e-mail, and edits settings', async () => {
    const csrf = await merchant.csrf();
    const page = await merchant.get('/console/wallets');
    expect(page.body).toContain('0 testBTC');
    expect(page.body).toContain('0.00 USD');
    expect(page.body).toContain('native segwit');

    const fresh = generateNewWallet(true).accountKey;
    const added = await merchant.post('/console/wallets', { csrf, pub: fresh, account_name: 'Second till', local_currency: 'eur' });
    expect(added.statusCode, added.body).toBe(303);
    const wallet = (await t.ctx.wallets.repo.findByPub(fresh))!;
    expect(wallet).toMatchObject({ account_name: 'Second till', local_currency: 'eur', notification_email: email, registration_email: email });

    const theirs = await addSandboxWallet(t.app, { notification_email: 'other@example.com', account_name: 'Not yours' });
    const theirKey = (await t.ctx.wallets.repo.findByApiId(theirs))!.pub;
    const refused = await merchant.post('/console/wallets', { csrf, pub: theirKey });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('registered with another notification e-mail');
    expect((await t.ctx.wallets.repo.findByApiId(theirs))!.account_name).toBe('Not yours');
    expect(refused.body).not.toContain('Not yours');

    const bad = await merchant.post(`/console/wallets/${wallet.api_id}`, { csrf, local_currency: 'xx1' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Currency is not valid');
    const saved = await merchant.post(`/console/wallets/${wallet.api_id}`, {
      csrf,
      account_name: 'Till <2>',
      local_currency: 'usd',
      notification_email: 'till@example.com',
      webhook_url: 'https://shop.example.com/hook',
    });
    expect(saved.headers.location).toBe(`/console/wallets/${wallet.api_id}?ok=wallet_saved`);
    expect(await t.ctx.wallets.repo.findByApiId(wallet.api_id)).toMatchObject({ account_name: 'Till <2>', local_currency: 'usd', notification_email: 'till@example.com', return_url: 'https://shop.example.com/hook' });
    const view = await merchant.get(`/console/wallets/${wallet.api_id}?ok=wallet_saved`);
    expect(view.body).toContain('Till &lt;2&gt;');
    expect(view.body).toContain('Wallet settings saved.');
    expect(view.body).toContain('<svg id="received-chart"');
    const cleared = await merchant.post(`/console/wallets/${wallet.api_id}`, { csrf, webhook_url: '' });
    expect(cleared.statusCode).toBe(303);
    expect((await t.ctx.wallets.repo.findByApiId(wallet.api_id))!.return_url).toBeNull();

    // The dashboard API's view is the same.
    const api = await t.app.inject({ method: 'GET', url: '/dashboard/wallets', headers: { authorization: merchant.token() } });
    expect(api.json().wallets.map((w: { api_id: string }) => w.api_id)).toEqual([apiId, wallet.api_id]);
    expect(api.json().wallets[0].balance).toEqual({ confirmed: '0', unconfirmed: '0', confirmed_local: '0.00', unconfirmed_local: '0.00', rate: '50000' });
  });

  it('lists payments newest first with status and date filters and server-side pages, and opens a detail with its transitions and notifications', async () => {
    const references: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await postPayment(t.app, bearer, customRequest(apiId, { order_amount: 10 + i, notify_url: 'https://shop.example.com/hook' }));
      expect(res.statusCode, res.body).toBe(200);
      references.push(res.json().payment_reference);
    }
    const list = await merchant.get('/console/orders');
    expect(list.statusCode).toBe(200);
    const order = references.map((r) => list.body.indexOf(r));
    expect(order[2]).toBeLessThan(order[1]!);
    expect(order[1]).toBeLessThan(order[0]!);
    expect(list.body).toContain('data-poll="/console/orders.json"');

    const json = await merchant.get('/console/orders.json?status=unpaid');
    expect(json.json().orders.map((o: { reference: string }) => o.reference)).toEqual([...references].reverse());
    expect((await merchant.get('/console/orders.json?status=confirmed')).json().orders).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await merchant.get(`/console/orders.json?from=${today}&to=${today}`)).json().total).toBe(3);
    expect((await merchant.get('/console/orders.json?to=2020-01-01')).json().total).toBe(0);

    const token = merchant.token();
    const paged = await t.app.inject({ method: 'GET', url: '/dashboard/orders?page=2&page_size=2', headers: { authorization: token } });
    expect(paged.json()).toMatchObject({ return: '0', page: 2, page_size: 2, total: 3 });
    expect(paged.json().orders.map((o: { reference: string }) => o.reference)).toEqual([references[0]]);
    const badStatus = await t.app.inject({ method: 'GET', url: '/dashboard/orders?status=paid-ish', headers: { authorization: token } });
    expect(badStatus.statusCode).toBe(400);

    const first = json.json().orders.find((o: { reference: string }) => o.reference === references[0]);
    const payment = await t.ctx.db.kysely.selectFrom('payments').selectAll().where('reference', '=', references[0]!).executeTakeFirstOrThrow();
    await t.ctx.db.kysely.transaction().execute((trx) =>
      enqueueNotifications(trx, [{ kind: 'webhook', target: 'https://shop.example.com/hook', walletId: payment.wallet_id, paymentId: payment.id, payload: { status: 'unpaid' } }], Date.now()),
    );
    const event = await t.ctx.db.kysely.selectFrom('outbox').selectAll().where('payment_id', '=', payment.id).executeTakeFirstOrThrow();
    await t.ctx.db.kysely.updateTable('outbox').set({ state: 'failed', attempts: 1n }).where('id', '=', event.id).execute();
    await t.ctx.db.kysely.insertInto('outbox_attempts').values({ outbox_id: event.id, attempt: 1n, at: BigInt(Date.now()), http_status: 502n, error: 'HTTP 502', duration_ms: 3n }).execute();

    const detail = await merchant.get(`/console/orders/payment/${first.id}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.body).toContain(references[0]);
    expect(detail.body).toContain(payment.crypto_sats === 0n ? '' : 'Status changes');
    expect(detail.body).toContain('HTTP 502');
    expect(detail.body).toContain(event.event_id);
    const apiDetail = await t.app.inject({ method: 'GET', url: `/dashboard/orders/payment/${first.id}`, headers: { authorization: token } });
    expect(apiDetail.json().order).toMatchObject({ kind: 'payment', reference: references[0], status: 'unpaid', transitions: [{ from: null, to: 'unpaid' }] });
    expect(apiDetail.json().order.deliveries[0].attempts[0]).toMatchObject({ attempt: 1, http_status: 502 });

    const csrf = await merchant.csrf();
    const redelivered = await merchant.post(`/console/orders/payment/${first.id}/redeliver`, { csrf, event_id: event.event_id });
    expect(redelivered.statusCode, redelivered.body).toBe(303);
    expect((await t.ctx.db.kysely.selectFrom('outbox').select('state').where('id', '=', event.id).executeTakeFirstOrThrow()).state).toBe('pending');
    const unknownEvent = await merchant.post(`/console/orders/payment/${first.id}/redeliver`, { csrf, event_id: 'evt_nope' });
    expect(unknownEvent.statusCode).toBe(404);
  });

  it('lists payment forms and set_addr orders beside payment requests, each with its own detail', async () => {
    const form = await t.app.inject({
      method: 'POST',
      url: '/payment_form',
      payload: {
        api_id: apiId,
        order_id: 'ORD-<b>7</b>',
        order_amount: '12.50',
        order_currency: 'usd',
        user_email: 'payer@example.com',
        payment_cancel_url: 'https://shop.example/cart',
        payment_complete_url: 'https://shop.example/thanks',
        payment_update_url: 'https://shop.example/updates',
        site_name: 'Corner Shop',
      },
    });
    expect(form.json().return, form.body).toBe('0');
    const order = await t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id: apiId, client_txid: 'till-42' } });
    expect(order.json().return, order.body).toBe('0');
    const page = (await merchant.get('/console/orders.json')).json().orders as { kind: string; id: string; reference: string; status: string }[];
    expect(page.slice(0, 2).map((o) => [o.kind, o.reference, o.status])).toEqual([
      ['order', 'till-42', 'pending'],
      ['form', 'ORD-<b>7</b>', 'pending'],
    ]);
    expect((await merchant.get('/console/orders.json?status=pending')).json().total).toBe(2);
    const formDetail = await merchant.get(`/console/orders/form/${page[1]!.id}`);
    expect(formDetail.statusCode).toBe(200);
    expect(formDetail.body).toContain('ORD-&lt;b&gt;7&lt;/b&gt;');
    expect(formDetail.body).not.toContain('<b>7</b>');
    const orderDetail = await merchant.get(`/console/orders/order/${page[0]!.id}`);
    expect(orderDetail.body).toContain(order.json().addr);
    const api = await t.app.inject({ method: 'GET', url: `/dashboard/orders/order/${page[0]!.id}`, headers: { authorization: merchant.token() } });
    expect(api.json().order).toMatchObject({ kind: 'order', reference: 'till-42', address: order.json().addr, transactions: [], deliveries: [] });
  });

  it('answers the merchant views in the dashboard API with the session token, and lists them in the OpenAPI document', async () => {
    const token = merchant.token();
    const received = await t.app.inject({ method: 'GET', url: `/dashboard/wallets/${apiId}/received?days=7`, headers: { authorization: token } });
    expect(received.json()).toMatchObject({ return: '0', api_id: apiId, currency: 'USD', rate: '50000' });
    expect(received.json().days).toHaveLength(7);
    expect(received.json().days[6]).toEqual({ day: new Date().toISOString().slice(0, 10), sats: '0', btc: '0', local: '0.00' });
    expect((await t.app.inject({ method: 'GET', url: `/dashboard/wallets/${apiId}/received?days=0`, headers: { authorization: token } })).statusCode).toBe(400);
    const logins = await t.app.inject({ method: 'GET', url: '/dashboard/logins', headers: { authorization: token } });
    expect(logins.json().logins.map((l: { action: string }) => l.action)).toContain('login');
    expect((await t.app.inject({ method: 'GET', url: '/dashboard/orders' })).json().return).toBe('302');
    const added = await t.app.inject({ method: 'POST', url: '/dashboard/wallets', headers: { authorization: token }, payload: { pub: 'xpub-nonsense' } });
    expect(added.json().return).toBe('102');
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, unknown> };
    for (const path of ['/dashboard/wallets', '/dashboard/wallets/{api_id}', '/dashboard/wallets/{api_id}/received', '/dashboard/orders', '/dashboard/orders/{kind}/{id}', '/dashboard/orders/{kind}/{id}/redeliver', '/dashboard/logins']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(doc.paths['/console/login/code']).toBeUndefined();
  });

  it("answers 404 for another merchant's payment, wallet and redelivery, as for one that does not exist", async () => {
    const otherApi = await addSandboxWallet(t.app, { notification_email: 'b@example.com' });
    const otherBearer = await tokenFor(t.app, await createClient(t.ctx, [otherApi]));
    const res = await postPayment(t.app, otherBearer, customRequest(otherApi));
    const theirs = await t.ctx.db.kysely.selectFrom('payments').select('id').where('reference', '=', res.json().payment_reference).executeTakeFirstOrThrow();
    const b = await signIn(t.app, t, 'b@example.com');
    expect((await b.get(`/console/orders/payment/${theirs.id}`)).statusCode).toBe(404); // B has not added the wallet yet
    const mine = await merchant.get(`/console/orders/payment/${theirs.id}`);
    expect(mine.statusCode).toBe(404);
    expect(mine.body).not.toContain(res.json().payment_reference);
    expect((await merchant.get('/console/orders/payment/999999')).statusCode).toBe(404);
    expect((await merchant.get(`/console/wallets/${otherApi}`)).statusCode).toBe(404);
    expect((await merchant.post(`/console/orders/payment/${theirs.id}/redeliver`, { csrf: await merchant.csrf(), event_id: 'x' })).statusCode).toBe(404);
    expect((await merchant.get('/console/orders/nonsense/1')).statusCode).toBe(404);
  });

  it('edits the profile and shows the sign-in history', async () => {
    const csrf = await merchant.csrf('/console/profile');
    const saved = await merchant.post('/console/profile', { csrf, firstname: 'Ada', lastname: '', mobile: '+1 555', country: 'NZ' });
    expect(saved.headers.location).toBe('/console/profile?ok=profile_saved');
    const page = await merchant.get('/console/profile');
    expect(page.body).toContain('value="Ada"');
    expect(page.body).toContain('Signed in');
    expect(page.body).toContain('Sign-in code sent');
    expect(page.body).toContain('Wrong sign-in code');
  });

  it('signs out: the session ends and the cookie is removed', async () => {
    const csrf = await merchant.csrf();
    const cookie = merchant.cookie;
    const res = await merchant.post('/console/logout', { csrf });
    expect(res.statusCode).toBe(303);
    expect(res.headers['set-cookie']).toMatch(/^satgate_console=; Path=\/console\/; Max-Age=0/);
    const after = await t.app.inject({ method: 'GET', url: '/console/wallets', headers: { cookie } });
    expect(after.statusCode).toBe(303);
    expect(after.headers.location).toBe('/console/login');
    expect((await t.app.inject({ method: 'GET', url: '/console/orders.json', headers: { cookie } })).statusCode).toBe(401);
  });
});
