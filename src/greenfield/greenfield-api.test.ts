// The Greenfield API over the real app (both engines): keys and the authentication hook, permissions and store
// scoping, invoice creation in fiat and in BTC, reading, listing, the checkout link, payment methods and errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { POLICIES } from './permissions.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };

describe.each(testEngines())('Greenfield API on %s', (engine) => {
  let t: TestApp;
  let now = Date.UTC(2026, 10, 23, 8, 0, 0);
  let storeA: string;
  let storeB: string;
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile(), SATGATE_PUBLIC_URL: 'https://pay.example.com' },
      chains: DEAD_NODE,
      clock: () => now,
      start: true,
    });
    storeA = await addSandboxWallet(t.app, { account_name: 'Shop A', local_currency: 'EUR' });
    storeB = await addSandboxWallet(t.app, { account_name: 'Shop B' });
    keyA = await greenfieldKey(t.ctx, storeA);
    keyB = await greenfieldKey(t.ctx, storeB);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the current key answers its permissions, scoped to its store, under both authorization schemes', async () => {
    for (const scheme of ['token', 'Bearer']) {
      const res = await gf(t.app, keyA, 'GET', '/api/v1/api-keys/current', undefined, scheme);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ apiKey: keyA, permissions: expect.arrayContaining([`btcpay.store.cancreateinvoice:${storeA}`]) });
    }
  });

  it('no key, a wrong key or another scheme is 401 with {code, message}', async () => {
    for (const res of [
      await gf(t.app, null, 'GET', '/api/v1/api-keys/current'),
      await gf(t.app, 'f'.repeat(40), 'GET', '/api/v1/api-keys/current'),
      await gf(t.app, keyA, 'GET', '/api/v1/api-keys/current', undefined, 'Basic'),
    ]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ code: 'unauthenticated', message: expect.any(String) });
    }
  });

  it('stores lists the key’s one store; another store is 404 like an unknown one', async () => {
    const list = await gf(t.app, keyA, 'GET', '/api/v1/stores');
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([expect.objectContaining({ id: storeA, name: 'Shop A', defaultCurrency: 'EUR', website: '' })]);
    // Every field the PHP client's Store result reads as a string or int is one (never null).
    const store = list.json()[0];
    for (const f of ['name', 'website', 'defaultCurrency', 'speedPolicy', 'lightningDescriptionTemplate', 'defaultLang', 'customLogo', 'customCSS', 'htmlTitle', 'networkFeeMode', 'defaultPaymentMethod', 'id']) {
      expect(typeof store[f], f).toBe('string');
    }
    for (const f of ['invoiceExpiration', 'monitoringExpiration', 'paymentTolerance', 'recommendedFeeBlockTarget']) expect(Number.isInteger(store[f]), f).toBe(true);
    const other = await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeB}`);
    const unknown = await gf(t.app, keyA, 'GET', '/api/v1/stores/test_0000');
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual(unknown.json());
    const pm = await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/payment-methods`);
    expect(pm.json()).toEqual([expect.objectContaining({ paymentMethodId: 'BTC-CHAIN', enabled: true })]);
  });

  it('server info answers the Greenfield API level, satgate’s version, BTC-CHAIN and whether the chain is synched', async () => {
    const res = await gf(t.app, keyA, 'GET', '/api/v1/server/info');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ version: '2.0.0', supportedPaymentMethods: ['BTC-CHAIN'], onion: '' });
    expect(typeof body.satgateVersion).toBe('string');
    // The node at port 9 never answers: not synched.
    expect(body.fullySynched).toBe(false);
  });

  it('a EUR invoice is a payment of payment API v1: same amounts through GET /api/v1/payment/:reference', async () => {
    const res = await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices`,
      '{"amount":"23.00","currency":"EUR","metadata":{"orderId":"1042","posData":{"cart":[1,2]},"n":0.10},' +
        '"checkout":{"speedPolicy":null,"paymentMethods":["BTC_CHAIN"],"expirationMinutes":null,"monitoringMinutes":null,' +
        '"paymentTolerance":null,"redirectURL":"https://shop.example/thanks","redirectAutomatically":null,"defaultLanguage":null,"requiresRefundEmail":false}}');
    expect(res.statusCode, res.body).toBe(200);
    const inv = res.json();
    expect(inv).toMatchObject({
      storeId: storeA,
      amount: '23',
      currency: 'EUR',
      type: 'Standard',
      status: 'New',
      additionalStatus: 'None',
      createdTime: Math.floor(now / 1000),
      expirationTime: Math.floor(now / 1000) + 15 * 60,
      checkoutLink: `https://pay.example.com/i/${inv.id}`,
      metadata: { orderId: '1042', posData: { cart: [1, 2] }, n: 0.1 },
      checkout: { speedPolicy: 'MediumSpeed', expirationMinutes: 15, paymentMethods: ['BTC-CHAIN'], redirectURL: 'https://shop.example/thanks' },
    });
    const payment = await t.app.inject({ method: 'GET', url: `/api/v1/payment/${inv.paymentReference}` });
    expect(payment.json()).toMatchObject({ order_amount: 23, order_currency: 'EUR', exchange_rate: 46000.5, status: 'unpaid' });
    const pms = await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/invoices/${inv.id}/payment-methods`);
    expect(pms.statusCode).toBe(200);
    const [pm] = pms.json();
    expect(pm).toMatchObject({
      paymentMethodId: 'BTC-CHAIN',
      destination: payment.json().crypto_address,
      rate: '46000.5',
      amount: '0.00050000', // 23 / 46000.5 rounded up to the satoshi
      due: '0.00050000',
      totalPaid: '0.00000000',
      payments: [],
    });
    expect(pm.paymentLink).toBe(`bitcoin:${pm.destination}?amount=0.0005`);

    const redirect = await t.app.inject({ method: 'GET', url: `/i/${inv.id}` });
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe(`/pay/${inv.paymentReference}`);

    const byOrder = await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/invoices?orderId=1042`);
    expect(byOrder.json().map((i: { id: string }) => i.id)).toEqual([inv.id]);

    const updated = await gf(t.app, keyA, 'PUT', `/api/v1/stores/${storeA}/invoices/${inv.id}`, { metadata: { orderId: 1043, note: 'moved' } });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().metadata).toEqual({ orderId: 1043, note: 'moved' });
    const moved = await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/invoices?orderId=1043`);
    expect(moved.json().map((i: { id: string }) => i.id)).toEqual([inv.id]);
  });

  it('a BTC ("sats mode") invoice asks exactly its amount, at rate 1', async () => {
    const res = await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices`, { amount: '0.00012345', currency: 'BTC', metadata: null, checkout: null });
    expect(res.statusCode, res.body).toBe(200);
    const inv = res.json();
    expect(inv).toMatchObject({ amount: '0.00012345', currency: 'BTC', metadata: {} });
    const [pm] = (await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/invoices/${inv.id}/payment-methods`)).json();
    expect(pm).toMatchObject({ rate: '1', amount: '0.00012345' });
    const page = await t.app.inject({ method: 'GET', url: `/pay/${inv.paymentReference}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('0.00012345');
  });

  it('a SATS invoice is paid as BTC: 12345 sats ask 0.00012345 BTC, and echo SATS', async () => {
    const res = await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices`, { amount: '12345', currency: 'SATS' });
    expect(res.statusCode, res.body).toBe(200);
    const inv = res.json();
    expect(inv).toMatchObject({ amount: '12345', currency: 'SATS' });
    const [pm] = (await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/invoices/${inv.id}/payment-methods`)).json();
    expect(pm).toMatchObject({ rate: '1', amount: '0.00012345' });
    const fraction = await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices`, { amount: '1.5', currency: 'SATS' });
    expect(fraction.statusCode).toBe(422);
  });

  it('explicit nulls everywhere mean the defaults: the store currency, 15 minutes, the wallet’s speed, no tolerance', async () => {
    const res = await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices`,
      '{"amount":7.5,"currency":null,"metadata":null,"checkout":{"speedPolicy":null,"paymentMethods":null,"defaultPaymentMethod":null,' +
        '"lazyPaymentMethods":null,"expirationMinutes":null,"monitoringMinutes":null,"paymentTolerance":null,"redirectURL":null,' +
        '"redirectAutomatically":null,"defaultLanguage":null,"requiresRefundEmail":null},"receipt":null}');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      amount: '7.5',
      currency: 'EUR',
      metadata: {},
      checkout: { speedPolicy: 'MediumSpeed', expirationMinutes: 15, paymentTolerance: 0, redirectURL: null, redirectAutomatically: false },
    });
  });

  it('paymentMethods is accepted in every spelling the plugins send', async () => {
    for (const spelling of ['BTC', 'BTC-CHAIN', 'BTC_CHAIN', 'BTC-OnChain']) {
      const res = await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices`, { amount: '1', currency: 'EUR', checkout: { paymentMethods: [spelling] } });
      expect(res.statusCode, spelling).toBe(200);
      expect(res.json().checkout.paymentMethods).toEqual(['BTC-CHAIN']);
    }
  });

  it('bad fields are 422 with every [{path, message}]', async () => {
    const res = await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices`, {
      amount: '1.234',
      currency: 'EUR',
      checkout: { speedPolicy: 'Fast', paymentMethods: ['BTC-LN'], redirectURL: 'ftp://x' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().map((e: { path: string }) => e.path).sort()).toEqual(
      ['amount', 'checkout.paymentMethods[0]', 'checkout.redirectURL', 'checkout.speedPolicy'].sort(),
    );
    const empty = await t.app.inject({
      method: 'POST',
      url: `/api/v1/stores/${storeA}/invoices`,
      headers: { authorization: `token ${keyA}`, 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode, empty.body).toBe(422);
    const getWithJsonType = await t.app.inject({ method: 'GET', url: '/api/v1/stores', headers: { authorization: `token ${keyA}`, 'content-type': 'application/json' } });
    expect(getWithJsonType.statusCode).toBe(200);
    const malformed = await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices`, '{"amount":');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'malformed-body' });
  });

  it('a key for store A cannot read store B’s invoices: 404, as for an unknown invoice', async () => {
    const inv = (await gf(t.app, keyB, 'POST', `/api/v1/stores/${storeB}/invoices`, { amount: '5', currency: 'USD' })).json();
    const cross = await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeB}/invoices/${inv.id}`);
    const viaOwnStore = await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/invoices/${inv.id}`);
    const unknown = await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/invoices/NOSUCHINVOICE`);
    expect(cross.statusCode).toBe(404);
    expect(viaOwnStore.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(viaOwnStore.json()).toEqual(unknown.json());
  });

  it('a key without canmodifyinvoices cannot mark; one with it marks Invalid, recorded with its cause', async () => {
    const viewOnly = await greenfieldKey(t.ctx, storeA, [POLICIES.viewInvoices, POLICIES.createInvoice]);
    const inv = (await gf(t.app, viewOnly, 'POST', `/api/v1/stores/${storeA}/invoices`, { amount: '10', currency: 'EUR' })).json();
    const refused = await gf(t.app, viewOnly, 'POST', `/api/v1/stores/${storeA}/invoices/${inv.id}/status`, { status: 'Invalid' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'missing-permission' });
    const marked = await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices/${inv.id}/status`, { status: 'Invalid' });
    expect(marked.statusCode, marked.body).toBe(200);
    expect(marked.json()).toMatchObject({ status: 'Invalid', additionalStatus: 'Marked', availableStatusesForManualMarking: ['Settled'] });
    const marks = await t.testDb.db.kysely.selectFrom('greenfield_invoice_marks').selectAll().execute();
    expect(marks.map((m) => [m.from_status, m.to_status])).toContainEqual(['New/None', 'Invalid/Marked']);
    expect(marks.at(-1)!.cause).toMatch(/^marked Invalid by API key gfk_/);
    const again = await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices/${inv.id}/status`, { status: 'Invalid' });
    expect(again.statusCode).toBe(200);
    expect((await t.testDb.db.kysely.selectFrom('greenfield_invoice_marks').selectAll().execute()).length).toBe(marks.length);
    const bad = await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices/${inv.id}/status`, { status: 'Complete' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual([{ path: 'status', message: expect.any(String) }]);
  });

  it('a revoked key is refused at once', async () => {
    const key = await greenfieldKey(t.ctx, storeA);
    expect((await gf(t.app, key, 'GET', '/api/v1/stores')).statusCode).toBe(200);
    const [info] = (await t.ctx.greenfield.keys.list(storeA)).slice(-1);
    expect(await t.ctx.greenfield.keys.revoke(info!.keyId)).toBe(true);
    expect((await gf(t.app, key, 'GET', '/api/v1/stores')).statusCode).toBe(401);
    // A client revoking its own key (the PHP client's revokeCurrentApiKey): 200, then refused.
    const own = await greenfieldKey(t.ctx, storeA);
    expect((await gf(t.app, own, 'DELETE', '/api/v1/api-keys/current')).statusCode).toBe(200);
    expect((await gf(t.app, own, 'GET', '/api/v1/api-keys/current')).statusCode).toBe(401);
  });

  it('a method no route has, or a URL that is not valid percent-encoding, answers {code, message} under Greenfield paths', async () => {
    const method = await gf(t.app, keyA, 'PUT', '/api/v1/server/info');
    expect(method.statusCode).toBe(404);
    expect(method.json()).toEqual({ code: 'not-found', message: expect.any(String) });
    const url = await gf(t.app, keyA, 'GET', '/api/v1/stores/%zz');
    expect(url.statusCode).toBe(400);
    expect(url.json()).toEqual({ code: 'malformed-url', message: expect.any(String) });
    // Our own payment API beside them keeps problem details.
    expect((await t.app.inject({ method: 'PUT', url: '/api/v1/payment/request' })).headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('replacing an invoice\'s metadata without the metadata field is 422 and leaves the metadata as it was', async () => {
    const inv = (await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices`, { amount: '5', metadata: { orderId: 'keep-me' } })).json();
    const res = await gf(t.app, keyA, 'PUT', `/api/v1/stores/${storeA}/invoices/${inv.id}`, {});
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual([{ path: 'metadata', message: 'is required' }]);
    const after = await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/invoices/${inv.id}`);
    expect(after.json().metadata).toEqual({ orderId: 'keep-me' });
  });

  it('the OpenAPI document lists the Greenfield routes under their own tag, with the key as their security', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json();
    for (const [path, method] of [
      ['/api/v1/stores/{storeId}/invoices', 'post'],
      ['/api/v1/stores/{storeId}/invoices/{invoiceId}/payment-methods', 'get'],
      ['/api/v1/server/info', 'get'],
      ['/api/v1/api-keys/current', 'get'],
    ] as const) {
      const op = doc.paths[path]?.[method];
      expect(op?.tags, `${method} ${path}`).toEqual(['Greenfield']);
      expect(op.security).toEqual([{ greenfieldToken: [] }]);
    }
    expect(doc.paths['/api-keys/authorize'].get.tags).toEqual(['Greenfield']);
    expect(doc.components.securitySchemes.greenfieldToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
  });

  it('an invoice expires after its expirationMinutes (Expired, None) when nothing was paid', async () => {
    const inv = (await gf(t.app, keyA, 'POST', `/api/v1/stores/${storeA}/invoices`, { amount: '3', currency: 'USD', checkout: { expirationMinutes: 5 } })).json();
    now += 5 * 60_000;
    const read = (await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/invoices/${inv.id}`)).json();
    expect(read).toMatchObject({ status: 'Expired', additionalStatus: 'None' });
  });
});
