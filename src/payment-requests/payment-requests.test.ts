// Payment requests on a real bcoin regtest node and both engines: a request paid in two parts at two rates of the
// moment becomes Completed, one past its due date is Expired and refuses payment, bad input stores nothing, and
// BTCPay's Greenfield payment-requests API answers its documented shapes.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { POLICIES } from '../greenfield/permissions.ts';
import { schemaErrors } from '../../test/support/greenfield-openapi.ts';
import { DomainError } from '../core/domain-errors.ts';
import { openSealedMail } from '../notify/sealed-mail.ts';
import { sessionOwning } from '../../test/support/refund-fixtures.ts';
import { SESSION_COOKIE } from '../console/console-security.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

/**
 * PaymentRequestData, written from BTCPay's swagger.template.payment-requests.json (PaymentRequestBaseData and the
 * id, storeId, status, createdTime it adds; `archived` as BTCPay's answers carry it): decimals as strings, times as
 * Unix seconds.
 */
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const PaymentRequestData = Type.Object(
  {
    id: Type.String(),
    storeId: Type.String(),
    status: Type.Union(['Pending', 'Completed', 'Expired'].map((s) => Type.Literal(s))),
    createdTime: Type.Integer({ minimum: 1_000_000_000, maximum: 10_000_000_000 }),
    archived: Type.Boolean(),
    amount: Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$' }),
    currency: Type.String(),
    title: Type.String(),
    description: Nullable(Type.String()),
    email: Nullable(Type.String()),
    expiryDate: Type.Union([Type.Integer(), Type.Null()]),
    allowCustomPaymentAmounts: Type.Boolean(),
  },
  { additionalProperties: true },
);
const shapeErrors = (value: unknown) => schemaErrors(PaymentRequestData, value);

describe.each(testEngines())('payment requests on regtest on %s', (engine) => {
  let t: TestApp;
  let store: string;
  let key: string;
  let viewKey: string;
  const ratesFile = writeRatesFile({ EUR: '40000' });

  beforeAll(async () => {
    t = await createTestApp(engine, {
      // Rates re-read every second from the file, so a test can move the rate of the moment.
      env: { SATGATE_RATES_FILE: ratesFile, SATGATE_RATE_INTERVAL: '1s', SATGATE_POLL_MS: '600000' },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.ctx.chains.pollNow();
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'eur' } });
    store = (res.json() as { api_id: string }).api_id;
    key = await greenfieldKey(t.ctx, store, [POLICIES.modifyPaymentRequests]);
    viewKey = await greenfieldKey(t.ctx, store, [POLICIES.viewInvoices]);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const base = () => `/api/v1/stores/${store}/payment-requests`;
  const setRate = async (eur: string) => {
    writeFileSync(ratesFile, JSON.stringify({ EUR: eur }));
    const until = Date.now() + 15_000;
    while ((await t.ctx.rates.spot('EUR')).rate !== eur) {
      if (Date.now() > until) throw new Error(`the rate never became ${eur}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const payPart = async (requestId: string, amount: string | null) => {
    const reference = await t.ctx.paymentRequests.pay(requestId, amount);
    const row = await t.ctx.db.kysely
      .selectFrom('payments as p')
      .innerJoin('addresses as a', 'a.id', 'p.address_id')
      .select(['p.crypto_sats', 'a.address', 'p.exchange_rate', 'p.order_amount'])
      .where('p.reference', '=', reference)
      .executeTakeFirstOrThrow();
    await node.pay(decodeAddress(row.address).script, BigInt(row.crypto_sats));
    await t.ctx.chains.pollNow();
    return row;
  };

  it('a 100 EUR request paid 40 then 60 at two rates of the moment becomes Completed', async () => {
    const created = await gf(t.app, key, 'POST', base(), { amount: '100', currency: 'EUR', title: 'Website work, March', allowCustomPaymentAmounts: true, email: 'client@example.com' });
    expect(created.statusCode, created.body).toBe(200);
    const pr = created.json();
    expect(shapeErrors(pr)).toEqual([]);
    expect(pr).toMatchObject({ storeId: store, status: 'Pending', amount: '100', currency: 'EUR', allowCustomPaymentAmounts: true, archived: false, email: 'client@example.com' });
    expect(pr.id).toMatch(/^req_[a-z2-7]{24}$/);
    // The payer's mail is in the outbox with the request, sealed (the link is the request's secret).
    const mail = await t.ctx.db.kysely.selectFrom('outbox').selectAll().where('target', '=', 'client@example.com').executeTakeFirstOrThrow();
    expect(mail.kind).toBe('email');
    expect(mail.payload_json).not.toContain(pr.id);
    const message = openSealedMail(t.ctx.masterKey, JSON.parse(mail.payload_json) as Record<string, unknown>)!;
    expect(message.subject).toBe('Payment request: Website work, March');
    expect(message.text).toContain('Amount: 100.00 EUR');
    expect(message.text).toContain(`/request/${pr.id}`);

    await setRate('40000');
    const first = await payPart(pr.id, '40');
    await setRate('50000');
    const second = await payPart(pr.id, '60');
    expect(first).toMatchObject({ exchange_rate: '40000', order_amount: '40', crypto_sats: 100_000n });
    expect(second).toMatchObject({ exchange_rate: '50000', order_amount: '60', crypto_sats: 120_000n });

    // Both seen, none confirmed: paid in full so far, not yet Completed, nothing more due.
    let view = (await t.ctx.paymentRequests.publicView(pr.id))!.view;
    expect(view).toMatchObject({ status: 'Pending', paid: '100', settled: '0', due: '0' });
    await expect(t.ctx.paymentRequests.pay(pr.id, null)).rejects.toThrow(/already paid/);

    await node.mine(1);
    await t.ctx.chains.pollNow();
    view = (await t.ctx.paymentRequests.publicView(pr.id))!.view;
    expect(view.status).toBe('Completed');
    expect(view.parts.map((p) => [p.amount, p.rate, p.btc, p.settled])).toEqual([
      ['40', '40000', '0.001', true],
      ['60', '50000', '0.0012', true],
    ]);
    expect((await gf(t.app, key, 'GET', `${base()}/${pr.id}`)).json()).toMatchObject({ id: pr.id, status: 'Completed' });
    // On completion the payer's "paid in full" mail is queued, once (another block adds none).
    await node.mine(1);
    await t.ctx.chains.pollNow();
    const mails = await t.ctx.db.kysely.selectFrom('outbox').selectAll().where('target', '=', 'client@example.com').orderBy('id').execute();
    expect(mails).toHaveLength(2);
    const paidMail = openSealedMail(t.ctx.masterKey, JSON.parse(mails[1]!.payload_json) as Record<string, unknown>)!;
    expect(paidMail.subject).toBe('Paid in full: Website work, March');
    expect(paidMail.text).toContain('Thank you: the payment request Website work, March is paid in full.');
  }, 120_000);

  it('a request past its due date is Expired and refuses payment, with nothing created', async () => {
    const past = Math.floor(Date.now() / 1000) - 60;
    const pr = (await gf(t.app, key, 'POST', base(), { amount: '0.001', currency: 'BTC', title: 'Late', expiryDate: past })).json();
    expect(pr).toMatchObject({ status: 'Expired', expiryDate: past, currency: 'BTC', allowCustomPaymentAmounts: false });
    const before = await t.ctx.db.kysely.selectFrom('payments').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const refused = await t.ctx.paymentRequests.pay(pr.id, null).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).message).toMatch(/expired/);
    const after = await t.ctx.db.kysely.selectFrom('payments').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('a request without partial payments is paid in full only, and no part may exceed what is due', async () => {
    const pr = (await gf(t.app, key, 'POST', base(), { amount: '25', title: 'Whole only' })).json();
    expect(pr.currency).toBe('EUR'); // the store's default currency, as BTCPay does
    await expect(t.ctx.paymentRequests.pay(pr.id, '10')).rejects.toMatchObject({ fields: [{ field: 'amount', message: 'this request is paid in full only' }] });
    await expect(t.ctx.paymentRequests.pay(pr.id, '30')).rejects.toMatchObject({ fields: [{ field: 'amount', message: expect.stringContaining('at most the amount due') }] });
    const reference = await t.ctx.paymentRequests.pay(pr.id, null);
    expect(reference).toMatch(/^pay_/);
    const row = await t.ctx.db.kysely.selectFrom('payments').select(['order_amount', 'order_currency']).where('reference', '=', reference).executeTakeFirstOrThrow();
    expect(row).toEqual({ order_amount: '25', order_currency: 'EUR' });
  });

  it("a public request's parts take addresses only within the wallet's gap limit: a full window refuses and writes nothing", async () => {
    // A wallet of its own, so the window holds only this test's addresses.
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'eur' } });
    const own = (res.json() as { api_id: string }).api_id;
    const ownKey = await greenfieldKey(t.ctx, own, [POLICIES.modifyPaymentRequests]);
    const pr = (await gf(t.app, ownKey, 'POST', `/api/v1/stores/${own}/payment-requests`, { amount: '5', currency: 'EUR', title: 'Pressed again and again' })).json();
    const gap = t.ctx.config.gapLimit;
    for (let i = 0; i < gap; i++) expect(await t.ctx.paymentRequests.pay(pr.id, null)).toMatch(/^pay_/);
    const count = async () => Number((await t.ctx.db.kysely.selectFrom('payments').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const refused = await t.ctx.paymentRequests.pay(pr.id, null).catch((e: unknown) => e);
    expect(String((refused as Error).message)).toMatch(/gap limit/);
    expect(await count()).toBe(before);
  });

  it('bad input answers 422 with every bad field under its BTCPay name, and stores nothing', async () => {
    const count = async () => Number((await t.ctx.db.kysely.selectFrom('payment_requests').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const res = await gf(t.app, key, 'POST', base(), { amount: '-5', currency: 'XXQ', title: '', email: 'not-an-address', expiryDate: 'tomorrow', allowCustomPaymentAmounts: 'yes' });
    expect(res.statusCode).toBe(422);
    const paths = (res.json() as { path: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['allowCustomPaymentAmounts', 'amount', 'currency', 'email', 'expiryDate', 'title']);
    expect(res.json()).toContainEqual({ path: 'currency', message: 'must be BTC or a 3-letter ISO 4217 currency code' });
    const res3 = await gf(t.app, key, 'POST', base(), { amount: '1.234', currency: 'EUR', title: 'Cents', color: 'red' });
    expect((res3.json() as { path: string; message: string }[]).map((e) => e.path).sort()).toEqual(['amount', 'color']);
    expect(await count()).toBe(before);
  });

  it('lists, updates and archives with BTCPay shapes; permissions and other ids answer as BTCPay does', async () => {
    const pr = (await gf(t.app, key, 'POST', base(), { amount: '12.5', currency: 'EUR', title: 'Old title', description: 'Two hours' })).json();
    const updated = await gf(t.app, key, 'PUT', `${base()}/${pr.id}`, { amount: '15', currency: 'EUR', title: 'New title', description: null, allowCustomPaymentAmounts: true });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(shapeErrors(updated.json())).toEqual([]);
    expect(updated.json()).toMatchObject({ id: pr.id, amount: '15', title: 'New title', description: null, allowCustomPaymentAmounts: true });
    const list = (await gf(t.app, key, 'GET', base())).json() as { id: string }[];
    expect(list.flatMap((x) => shapeErrors(x))).toEqual([]);
    expect(list[0]!.id).toBe(pr.id);
    expect((await gf(t.app, key, 'DELETE', `${base()}/${pr.id}`)).statusCode).toBe(200);
    expect(((await gf(t.app, key, 'GET', base())).json() as { id: string }[]).map((x) => x.id)).not.toContain(pr.id);
    expect(((await gf(t.app, key, 'GET', `${base()}?includeArchived=true`)).json() as { id: string }[]).map((x) => x.id)).toContain(pr.id);
    expect((await gf(t.app, key, 'GET', `${base()}/${pr.id}`)).json()).toMatchObject({ archived: true });
    await expect(t.ctx.paymentRequests.pay(pr.id, null)).rejects.toThrow(/withdrawn/);

    const unknown = await gf(t.app, key, 'GET', `${base()}/req_nosuchrequest`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'payment-request-not-found' });
    const denied = await gf(t.app, viewKey, 'GET', base());
    expect(denied.statusCode).toBe(403);
  });
  it('the public page shows the request and its paid parts, pays a part by a plain form, and refuses when expired', async () => {
    const pr = (await gf(t.app, key, 'POST', base(), { amount: '50', currency: 'EUR', title: 'Garden <design>', description: 'Two visits', allowCustomPaymentAmounts: true })).json();
    const page = await t.app.inject({ method: 'GET', url: `/request/${pr.id}`, headers: { 'accept-language': 'en' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('Garden &lt;design&gt;');
    expect(page.body).toContain('Two visits');
    expect(page.body).toMatch(/Amount due<\/dt><dd><bdi dir="ltr" id="request-due">50\.00 EUR/);
    expect(page.body).toContain('Pay the amount due');
    expect(page.body).toContain('<label for="part-amount">Amount (EUR)</label>');
    const count = async () => Number((await t.ctx.db.kysely.selectFrom('payments').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    expect(before).toBeGreaterThan(0);

    const bad = await t.app.inject({ method: 'POST', url: `/request/${pr.id}/pay`, payload: 'amount=80', headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' } });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('Enter an amount greater than zero and no more than the amount due.');
    expect(await count()).toBe(before);

    const paid = await t.app.inject({ method: 'POST', url: `/request/${pr.id}/pay`, payload: 'amount=20', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(paid.statusCode).toBe(303);
    const reference = /^\/pay\/(pay_[a-z2-7]{24})$/.exec(String(paid.headers.location))?.[1];
    expect(reference).toBeDefined();
    const part = await t.ctx.db.kysely.selectFrom('payments as p').innerJoin('addresses as a', 'a.id', 'p.address_id').select(['p.crypto_sats', 'a.address']).where('p.reference', '=', reference!).executeTakeFirstOrThrow();
    expect((await t.app.inject({ method: 'GET', url: `/pay/${reference}` })).statusCode).toBe(200);
    await node.pay(decodeAddress(part.address).script, BigInt(part.crypto_sats));
    await node.mine(1);
    await t.ctx.chains.pollNow();
    const german = await t.app.inject({ method: 'GET', url: `/request/${pr.id}`, headers: { 'accept-language': 'de' } });
    expect(german.headers['content-language']).toBe('de');
    expect(german.body).toContain('Offener Betrag');
    expect(german.body).toMatch(/id="request-due">30,00 EUR/);
    expect(german.body).toMatch(/<ul id="parts"><li><bdi dir="ltr">20,00 EUR<\/bdi> · <bdi dir="ltr">[0-9,]+ BTC<\/bdi> · bezahlt<\/li><\/ul>/);

    const late = (await gf(t.app, key, 'POST', base(), { amount: '5', currency: 'EUR', title: 'Late', expiryDate: Math.floor(Date.now() / 1000) - 5 })).json();
    const latePage = await t.app.inject({ method: 'GET', url: `/request/${late.id}`, headers: { 'accept-language': 'en' } });
    expect(latePage.body).toContain('This payment request has expired and can no longer be paid.');
    expect(latePage.body).not.toContain('Pay the amount due');
    const n = await count();
    const refused = await t.app.inject({ method: 'POST', url: `/request/${late.id}/pay`, payload: '', headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' } });
    expect(refused.statusCode).toBe(410);
    expect(refused.body).toContain('This payment request has expired and can no longer be paid.');
    expect(await count()).toBe(n);

    const unknown = await t.app.inject({ method: 'GET', url: '/request/req_aaaaaaaaaaaaaaaaaaaaaaaa', headers: { 'accept-language': 'en' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('Payment request not found');
  }, 60_000);
  it('the console lists the merchant\'s requests and creates one; a bad form keeps its values and stores nothing', async () => {
    const wallet = (await t.ctx.wallets.repo.findByApiId(store))!;
    const token = await sessionOwning(t.ctx, 'freelancer@example.com', [wallet.id]);
    const headers = { host: 'shop.test', cookie: `${SESSION_COOKIE}=${token}` };
    const page = await t.app.inject({ method: 'GET', url: '/console/requests', headers });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('<a href="/console/requests" aria-current="page">Requests</a>');
    expect(page.body).toContain('Website work, March');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const post = (form: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/console/requests', headers: { ...headers, origin: 'http://shop.test', 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ csrf, ...form }).toString() });
    const count = async () => Number((await t.ctx.db.kysely.selectFrom('payment_requests').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const bad = await post({ api_id: store, title: 'Logo', amount: '12.345', currency: 'EUR', due_date: '2026-02-30x' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('due date must be a day written as YYYY-MM-DD');
    expect(bad.body).toContain('value="12.345"');
    const bad2 = await post({ api_id: store, title: 'Logo', amount: '12.345', currency: 'EUR' });
    expect(bad2.statusCode).toBe(422);
    expect(bad2.body).toContain('amount must have at most 2 decimal places for EUR');
    const other = await post({ api_id: 'test_not_mine', title: 'Logo', amount: '12', currency: 'EUR' });
    expect(other.statusCode).toBe(404);
    expect(await count()).toBe(before);
    const ok = await post({ api_id: store, title: 'Logo design', amount: '120', currency: 'eur', due_date: '2099-12-31', payer_email: 'client@example.com', allow_partial: '1' });
    expect(ok.statusCode, ok.body).toBe(303);
    expect(ok.headers.location).toBe('/console/requests?ok=created');
    const created = await t.ctx.db.kysely.selectFrom('payment_requests').selectAll().where('title', '=', 'Logo design').executeTakeFirstOrThrow();
    expect(created).toMatchObject({ amount: '120', currency: 'EUR', payer_email: 'client@example.com', due_at: BigInt(Date.parse('2099-12-31T23:59:59.999Z')) });
    expect(Number(created.allow_partial)).toBe(1);
    const listed = await t.app.inject({ method: 'GET', url: '/console/requests?ok=created', headers });
    expect(listed.body).toContain(`/request/${created.request_id}`);
  });
});
