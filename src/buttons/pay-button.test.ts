// Pay buttons end to end on both engines and a real bcoin regtest node: the merchant defines a button in the console
// and pastes its HTML into a static page served by another origin; the payer's POST opens a checkout that is paid.
// Page views write nothing and issue no address; the per-IP budget answers 429 with Retry-After; bad input and an
// unknown button are refused clearly with nothing written; the gap limit window refuses when full.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { sessionOwning } from '../../test/support/refund-fixtures.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { SESSION_COOKIE } from '../console/console-security.ts';
import { RateLimitedError } from '../core/domain-errors.ts';
import { RateLimiter } from '../security/rate-limiter.ts';
import { ButtonService } from './button-service.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const unescape = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

describe.each(testEngines())('pay buttons on %s', (engine) => {
  let t: TestApp;
  let base: string;
  let shop: Server;
  let shopOrigin: string;
  let token: string;
  let csrf: string;
  /** Moves the service's clock on, so each test starts with fresh budgets. */
  let offset = 0;
  const pages = new Map<string, string>();

  const count = async () => {
    const k = t.ctx.db.kysely;
    const n = async (table: 'payments' | 'addresses' | 'pay_button_payments' | 'rate_limit_events') =>
      Number((await k.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    return { payments: await n('payments'), addresses: await n('addresses'), links: await n('pay_button_payments'), events: await n('rate_limit_events') };
  };

  /** Defines a button through the console (as the merchant does) and answers its id and its form snippet. */
  async function defineButton(apiId: string, fields: Record<string, string>): Promise<{ id: string; form: string; link: string | null }> {
    const res = await fetch(`${base}/console/buttons`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `${SESSION_COOKIE}=${token}`, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, api_id: apiId, ...fields }).toString(),
    });
    expect(res.status, await res.clone().text()).toBe(303);
    const page = await (await fetch(`${base}/console/buttons`, { headers: { cookie: `${SESSION_COOKIE}=${token}` } })).text();
    const id = /data-button="(btn_[a-z2-7]{24})"/.exec(page)![1]!;
    const form = unescape(new RegExp(`id="snippet-${id}"[^>]*>([^<]*)</textarea>`).exec(page)![1]!);
    const linkMatch = new RegExp(`id="link-${id}"[^>]*>([^<]*)</textarea>`).exec(page);
    return { id, form, link: linkMatch ? unescape(linkMatch[1]!) : null };
  }

  /** What a browser sends when the payer presses the button on the shop's page. */
  const press = (action: string, form: Record<string, string> = {}) =>
    fetch(action, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: shopOrigin, 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: '40000' }), SATGATE_PUBLIC_URL: base, SATGATE_GAP_LIMIT: '3' },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      clock: () => Date.now() + offset,
      start: true,
    });
    await t.app.listen({ port, host: '127.0.0.1' });
    await t.ctx.chains.pollNow();
    shop = createServer((req, res) => {
      const html = pages.get(req.url ?? '');
      res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(html ?? 'not found');
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopOrigin = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    const apiId = await addSandboxWallet(t.app, { local_currency: 'EUR' });
    const wallet = await t.ctx.wallets.repo.findByApiId(apiId);
    token = await sessionOwning(t.ctx, 'blog@example.org', [wallet!.id]);
    const page = await (await fetch(`${base}/console/buttons`, { headers: { cookie: `${SESSION_COOKIE}=${token}` } })).text();
    csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  }, 120_000);
  afterAll(async () => {
    await new Promise<void>((resolve) => shop?.close(() => resolve()));
    await t?.close();
  });

  async function freshWallet(): Promise<string> {
    const apiId = await addSandboxWallet(t.app, { local_currency: 'EUR' });
    const wallet = await t.ctx.wallets.repo.findByApiId(apiId);
    const profile = await t.ctx.db.kysely.selectFrom('profiles').select('id').where('email', '=', 'blog@example.org').executeTakeFirstOrThrow();
    const { associate } = await import('../dashboard/accounts.ts');
    await t.ctx.db.kysely.transaction().execute((trx) => associate(trx, profile.id, wallet!.id, 'operator', Date.now()));
    return apiId;
  }

  it('a button pasted into a page of another origin opens a checkout that is paid on regtest', async () => {
    offset += 120_000;
    const apiId = await freshWallet();
    const button = await defineButton(apiId, { label: 'Donate', currency: 'EUR', kind: 'fixed', amount: '20.00', description: 'Keeps the lights on' });
    expect(button.form).toBe(`<form method="post" action="${base}/button/${button.id}">\n  <button type="submit">Donate (20.00 EUR)</button>\n</form>`);
    expect(button.link).toBe(`<a href="${base}/button/${button.id}">Donate (20.00 EUR)</a>`);
    pages.set('/donate.html', `<!doctype html><title>My blog</title><p>Thanks for reading.</p>${button.form}`);

    const html = await (await fetch(`${shopOrigin}/donate.html`)).text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
    const res = await press(action);
    expect(res.status, await res.clone().text()).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/pay\/pay_[a-z2-7]{24}$/);
    const reference = location.slice('/pay/'.length);

    const checkout = await fetch(`${base}${location}`);
    expect(checkout.status).toBe(200);
    const row = await t.ctx.db.kysely
      .selectFrom('payments')
      .innerJoin('addresses', 'addresses.id', 'payments.address_id')
      .innerJoin('pay_button_payments', 'pay_button_payments.payment_id', 'payments.id')
      .select(['payments.crypto_sats', 'payments.order_amount', 'payments.order_currency', 'payments.status', 'addresses.address', 'addresses.purpose'])
      .where('payments.reference', '=', reference)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ order_amount: '20.00', order_currency: 'EUR', status: 'unpaid', purpose: 'payment' });
    expect(BigInt(row.crypto_sats)).toBe(50_000n); // 20 EUR at 40,000 EUR/BTC
    expect(await checkout.text()).toContain(row.address);

    await node.pay(decodeAddress(row.address).script, BigInt(row.crypto_sats));
    await node.mine(1);
    await t.ctx.chains.pollNow();
    const after = await t.ctx.db.kysely.selectFrom('payments').select('status').where('reference', '=', reference).executeTakeFirstOrThrow();
    // The full amount seen and mined: confirmed, or unconfirmed while the wallet asks for more confirmations.
    expect(after.status).toMatch(/^(unconfirmed|confirmed)$/);
  }, 60_000);

  it('1,000 views of a button page write nothing and issue no address', async () => {
    offset += 120_000;
    const apiId = await freshWallet();
    const fixed = await defineButton(apiId, { label: 'Coffee', currency: 'EUR', kind: 'fixed', amount: '3.50' });
    const custom = await defineButton(apiId, { label: 'Tip jar', currency: 'EUR', kind: 'custom', min_amount: '1', max_amount: '100' });
    const before = await count();
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async (_, j) => {
          const id = (i + j) % 2 === 0 ? fixed.id : custom.id;
          const res = await t.app.inject({ method: 'GET', url: `/button/${id}` });
          expect(res.statusCode).toBe(200);
        }),
      );
    }
    expect(await count()).toEqual(before);
    const page = await t.app.inject({ method: 'GET', url: `/button/${custom.id}`, headers: { 'accept-language': 'de' } });
    expect(page.body).toContain('Betrag in EUR, von 1 bis 100');
    expect(page.body).toContain('<button type="submit" class="button">Bezahlen</button>');
    expect(page.body).toContain(`<form method="post" action="/button/${custom.id}">`);
    expect(page.headers['content-language']).toBe('de');
    const fixedPage = await t.app.inject({ method: 'GET', url: `/button/${fixed.id}` });
    expect(fixedPage.body).toContain('<strong id="button-amount">3.50</strong>');
  }, 120_000);

  it('the per-IP budget answers 429 with Retry-After, and counts nothing it refused', async () => {
    offset += 120_000;
    const apiId = await freshWallet();
    // A gap limit of 3 would refuse the fourth address first: these payments go to a pay button of a wallet each.
    const buttons = [];
    for (let i = 0; i < 3; i++) {
      const wallet = i === 0 ? apiId : await freshWallet();
      buttons.push(await defineButton(wallet, { label: `Item ${i}`, currency: 'BTC', kind: 'fixed', amount: '0.0001' }));
    }
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await press(`${base}/button/${buttons[i % 3]!.id}`)).status);
    expect(statuses).toEqual([303, 303, 303, 303, 303, 303]);
    const before = await count();
    const refused = await press(`${base}/button/${buttons[0]!.id}`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await refused.text()).toContain('Too many payments just now');
    expect(await count()).toEqual(before);
    offset += 61_000;
    expect((await press(`${base}/button/${buttons[0]!.id}`)).status).toBe(303);
  }, 60_000);

  it('the per-button budget holds against payers from many IP addresses', async () => {
    offset += 120_000;
    const apiId = await freshWallet();
    const button = await defineButton(apiId, { label: 'Raffle', currency: 'EUR', kind: 'fixed', amount: '1.00' });
    // The same service as the app's, with a budget of 2 a minute per button and none per IP.
    const service = new ButtonService({
      db: t.ctx.db,
      clock: () => Date.now() + offset,
      repo: t.ctx.wallets.repo,
      payments: t.ctx.payments.service,
      limiter: new RateLimiter(t.ctx.db),
      isSupportedCurrency: () => true,
      budgets: { perIp: 0, perButton: 2 },
    });
    await service.pay(button.id, undefined, '198.51.100.1');
    await service.pay(button.id, undefined, '198.51.100.2');
    const before = await count();
    const refused = await service.pay(button.id, undefined, '198.51.100.3').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).message).toContain('2 payments through this pay button every 1 min');
    expect(await count()).toEqual(before);
  });

  it('an address only within the gap limit: a full window refuses clearly and writes nothing', async () => {
    offset += 120_000;
    const apiId = await freshWallet();
    const button = await defineButton(apiId, { label: 'Sticker', currency: 'EUR', kind: 'fixed', amount: '2.00' });
    for (let i = 0; i < 3; i++) expect((await press(`${base}/button/${button.id}`)).status).toBe(303);
    const before = await count();
    const res = await press(`${base}/button/${button.id}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/no address can be reserved within the wallet&#39;s gap limit of 3/);
    expect(await count()).toEqual(before);
  }, 60_000);

  it('refuses bad input and an unknown button clearly, writing nothing', async () => {
    offset += 120_000;
    const apiId = await freshWallet();
    const fixed = await defineButton(apiId, { label: 'Book', currency: 'EUR', kind: 'fixed', amount: '12.00' });
    const custom = await defineButton(apiId, { label: 'Gift', currency: 'EUR', kind: 'custom', min_amount: '5', max_amount: '50' });
    const before = await count();
    const cases: [string, Record<string, string>, number, RegExp][] = [
      [custom.id, { amount: '4.99' }, 400, /must be from 5 to 50 EUR/],
      [custom.id, { amount: '50.01' }, 400, /must be from 5 to 50 EUR/],
      [custom.id, { amount: 'ten' }, 400, /must be a positive decimal number/],
      [custom.id, { amount: '1e1' }, 400, /must be a positive decimal number/],
      [custom.id, { amount: '10.001' }, 400, /at most 2 decimal places for EUR/],
      [custom.id, {}, 400, /is required: from 5 to 50 EUR/],
      [fixed.id, { amount: '1.00' }, 400, /must be left out: this button charges 12.00 EUR/],
      [fixed.id, { price: '1' }, 400, /price is not a field of a pay button/],
      ['btn_aaaaaaaaaaaaaaaaaaaaaaaa', {}, 404, /Pay button not found/],
      ['../console', {}, 404, /Pay button not found/],
    ];
    for (const [id, form, status, text] of cases) {
      const res = await press(`${base}/button/${encodeURIComponent(id)}`, form);
      const body = await res.text();
      expect(res.status, `${id} ${JSON.stringify(form)}: ${body}`).toBe(status);
      expect(body, JSON.stringify(form)).toMatch(text);
    }
    // A repeated field and a JSON body are no HTML form's.
    const twice = await fetch(`${base}/button/${custom.id}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'amount=10&amount=20' });
    expect(twice.status).toBe(400);
    expect(await twice.text()).toMatch(/must be given once/);
    const json = await fetch(`${base}/button/${custom.id}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/json' }, body: '{"amount":"10"}' });
    expect(json.status).toBe(400);
    expect(await json.text()).toMatch(/posts an HTML form/);
    expect((await fetch(`${base}/button/btn_aaaaaaaaaaaaaaaaaaaaaaaa`)).status).toBe(404);
    expect(await count()).toEqual(before);
    // The refused amount is shown on the button's page with the field kept.
    const again = await press(`${base}/button/${custom.id}`, { amount: '4.99' });
    expect(await again.text()).toMatch(/<input id="amount" name="amount"[^>]* value="4.99" aria-invalid="true"/);
    // And a good amount within the bounds opens a checkout.
    const ok = await press(`${base}/button/${custom.id}`, { amount: '5' });
    expect(ok.status).toBe(303);
  }, 60_000);

  it('the console refuses a button with bad fields, and one on a wallet of someone else', async () => {
    const apiId = await freshWallet();
    const post = (fields: Record<string, string>) =>
      fetch(`${base}/console/buttons`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: `${SESSION_COOKIE}=${token}`, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, api_id: apiId, label: 'X', currency: 'EUR', ...fields }).toString(),
      });
    const before = Number((await t.ctx.db.kysely.selectFrom('pay_buttons').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    let res = await post({ kind: 'custom', min_amount: '10', max_amount: '5' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('max_amount must not be less than the minimum');
    res = await post({ kind: 'fixed', amount: '1.234' });
    expect(await res.text()).toContain('amount must have at most 2 decimal places for EUR');
    res = await post({ kind: 'fixed', amount: '1', currency: 'XYZ' });
    expect(await res.text()).toContain('currency must be BTC or a 3-letter ISO 4217 code');
    res = await post({ kind: 'other' });
    expect(await res.text()).toContain('kind must be');
    const stranger = await addSandboxWallet(t.app, { local_currency: 'EUR' });
    res = await post({ api_id: stranger, kind: 'fixed', amount: '1' });
    expect(res.status).toBe(404);
    const after = Number((await t.ctx.db.kysely.selectFrom('pay_buttons').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    expect(after).toBe(before);
  });
});
