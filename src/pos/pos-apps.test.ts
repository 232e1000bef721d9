// Point of sale apps on a real bcoin regtest node and both engines: a cart of two items and a 10 % tip is priced on
// the server, paid, and only then takes its items out of the stock; sold out items are refused at Charge with
// nothing written; bad input stores nothing; the checkout's status and the e-mailed receipt; and BTCPay's apps API
// answers its documented shapes (schemas written from BTCPay's OpenAPI document), its invoices carrying posData.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type, type TSchema } from '@sinclair/typebox';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { schemaErrors } from '../../test/support/greenfield-openapi.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { POLICIES } from '../greenfield/permissions.ts';
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

/** BasicAppData and PointOfSaleAppData with AppItem, written from BTCPay's swagger.template.apps.json (v2 items). */
const Str = Type.String();
const NullStr = Type.Union([Type.String(), Type.Null()]);
const BasicAppData = Type.Object(
  { id: Str, appName: Str, storeId: Str, created: Type.Integer({ minimum: 1_000_000_000, maximum: 10_000_000_000 }), appType: Type.Literal('PointOfSale') },
  { additionalProperties: true },
);
const AppItem = Type.Object(
  {
    id: Str,
    title: Str,
    description: NullStr,
    image: NullStr,
    price: Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$' }),
    priceType: Type.Union([Type.Literal('Fixed'), Type.Literal('Topup'), Type.Literal('Minimum')]),
    inventory: Type.Union([Type.Integer(), Type.Null()]),
    disabled: Type.Boolean(),
  },
  { additionalProperties: true },
);
const PointOfSaleAppData = Type.Intersect([
  BasicAppData,
  Type.Object(
    {
      title: Str,
      description: NullStr,
      defaultView: Type.Union(['Static', 'Cart', 'Light', 'Print'].map((v) => Type.Literal(v))),
      showCustomAmount: Type.Boolean(),
      enableTips: Type.Boolean(),
      customTipPercentages: Type.Array(Type.Integer()),
      currency: Str,
      items: Type.Array(AppItem),
    },
    { additionalProperties: true },
  ),
]);
const shape = (schema: TSchema, value: unknown) => schemaErrors(schema, value);

describe.each(testEngines())('point of sale on regtest on %s', (engine) => {
  let t: TestApp;
  let store: string;
  let key: string;
  const ratesFile = writeRatesFile({ EUR: '40000' });

  beforeAll(async () => {
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: ratesFile, SATGATE_RATE_INTERVAL: '1s', SATGATE_POLL_MS: '600000', SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1' },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.ctx.chains.pollNow();
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'eur' } });
    store = (res.json() as { api_id: string }).api_id;
    key = await greenfieldKey(t.ctx, store, [POLICIES.modifyStoreSettings]);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const cafe = {
    appName: 'Counter 1',
    title: 'Café Lisboa',
    currency: 'EUR',
    defaultView: 'Cart',
    enableTips: true,
    customTipPercentages: [5, 10, 15],
    items: [
      { id: 'coffee', title: 'Coffee', price: '3.45', priceType: 'Fixed', inventory: 10 },
      { id: 'cake', title: 'Cake', price: '4.10', priceType: 'Fixed', inventory: 1, description: 'Pastel de nata' },
      { id: 'tea', title: 'Tea', price: '2', priceType: 'Fixed', inventory: null },
    ],
  };
  const publicIdOf = async (appId: string) => (await t.ctx.db.kysely.selectFrom('pos_apps').select('public_id').where('app_id', '=', appId).executeTakeFirstOrThrow()).public_id;
  const stock = async (appId: string) =>
    Object.fromEntries(
      (await t.ctx.db.kysely.selectFrom('pos_items as i').innerJoin('pos_apps as a', 'a.id', 'i.app_id').select(['i.item_code', 'i.stock']).where('a.app_id', '=', appId).execute()).map((r) => [
        r.item_code,
        r.stock === null ? null : Number(r.stock),
      ]),
    );
  const charge = (publicId: string, body: unknown) => t.app.inject({ method: 'POST', url: `/pos/${publicId}/charges`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const count = async (table: 'payments' | 'pos_charges' | 'pos_apps') => Number((await t.ctx.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('a cart of two items and a 10 % tip is priced on the server, and the stock decrements when it is paid, not before', async () => {
    const created = await gf(t.app, key, 'POST', `/api/v1/stores/${store}/apps/pos`, cafe);
    expect(created.statusCode, created.body).toBe(200);
    const app = created.json();
    expect(shape(PointOfSaleAppData, app)).toEqual([]);
    const publicId = await publicIdOf(app.id);
    expect(publicId).toMatch(/^pos_[a-z2-7]{24}$/);
    // The store's Greenfield webhook hears the charge's invoice as any other.
    const hook = await gf(t.app, key, 'POST', `/api/v1/stores/${store}/webhooks`, { url: 'http://127.0.0.1:9/hook' });
    expect(hook.statusCode, hook.body).toBe(200);

    const page = await t.app.inject({ method: 'GET', url: `/pos/${publicId}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    // Item images may come from the merchant's https origins; nothing else is loosened.
    expect(page.headers['content-security-policy']).toContain("img-src 'self' data: https:;");
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(page.body).toContain('Café Lisboa');

    const res = await charge(publicId, { lines: [{ code: 'coffee', quantity: 2 }, { code: 'cake', quantity: 1 }], tip: { percent: 10 } });
    expect(res.statusCode, res.body).toBe(201);
    const { reference } = res.json() as { reference: string };
    // 2 × 3.45 + 4.10 = 11.00; tip 1.10; total 12.10 EUR, priced from the stored items.
    const payment = await t.ctx.db.kysely
      .selectFrom('payments as p')
      .innerJoin('addresses as a', 'a.id', 'p.address_id')
      .select(['p.order_amount', 'p.order_currency', 'p.crypto_sats', 'a.address'])
      .where('p.reference', '=', reference)
      .executeTakeFirstOrThrow();
    expect(payment).toMatchObject({ order_amount: '12.1', order_currency: 'EUR', crypto_sats: 30_250n });
    expect(await stock(app.id)).toEqual({ coffee: 10, cake: 1, tea: null });

    const status = async () => (await t.app.inject({ method: 'GET', url: `/pos/${publicId}/charges/${reference}` })).json().charge;
    expect(await status()).toMatchObject({ state: 'waiting', btc: '0.0003025', rate: '40000', cart: { subtotal: '11', tip: '1.1', tipPercent: 10, total: '12.1' } });
    // A receipt is for a paid charge only.
    const early = await t.app.inject({ method: 'POST', url: `/pos/${publicId}/charges/${reference}/receipt`, headers: { 'content-type': 'application/json' }, payload: '{"email":"payer@example.com"}' });
    expect(early.statusCode).toBe(400);
    expect(early.json()).toEqual({ return: '201', status: 'Wrong or missing argument: reference the payment is not paid yet' });

    const { txid } = await node.pay(decodeAddress(payment.address).script, BigInt(payment.crypto_sats));
    await t.ctx.chains.pollNow();
    const paid = await status();
    expect(paid).toMatchObject({ state: 'paid', txids: [txid] });
    expect(await stock(app.id)).toEqual({ coffee: 8, cake: 0, tea: null });
    // Once: a block confirming it takes nothing more.
    await node.mine(1);
    await t.ctx.chains.pollNow();
    expect(await stock(app.id)).toEqual({ coffee: 8, cake: 0, tea: null });

    // The receipt by e-mail, through the outbox, in the page's language, once.
    for (let i = 0; i < 2; i++) {
      const sent = await t.app.inject({ method: 'POST', url: `/pos/${publicId}/charges/${reference}/receipt`, headers: { 'content-type': 'application/json', 'accept-language': 'en' }, payload: '{"email":"payer@example.com"}' });
      expect(sent.statusCode, sent.body).toBe(202);
    }
    const mails = await t.ctx.db.kysely.selectFrom('outbox').selectAll().where('target', '=', 'payer@example.com').execute();
    expect(mails).toHaveLength(1);
    const mail = openSealedMail(t.ctx.masterKey, JSON.parse(mails[0]!.payload_json) as Record<string, unknown>)!;
    expect(mail.subject).toBe('Your payment receipt from Café Lisboa');
    expect(mail.text).toContain('2 × Coffee: 6.90 EUR');
    expect(mail.text).toContain('Tip: 1.10 EUR');
    expect(mail.text).toContain('Total: 12.10 EUR');
    expect(mail.text).toContain(txid);

    const paymentId = (await t.ctx.db.kysely.selectFrom('payments').select('id').where('reference', '=', reference).executeTakeFirstOrThrow()).id;
    const hooks = await t.ctx.db.kysely.selectFrom('outbox').select('payload_json').where('kind', '=', 'webhook').where('payment_id', '=', paymentId).orderBy('id').execute();
    expect(hooks.map((h) => (JSON.parse(h.payload_json) as { type: string }).type).slice(0, 3)).toEqual(['InvoiceCreated', 'InvoiceReceivedPayment', 'InvoiceProcessing']);
    // The charge is a Greenfield invoice of the store with BTCPay's POS metadata.
    const invoices = (await gf(t.app, key, 'GET', `/api/v1/stores/${store}/invoices`)).json() as { metadata: Record<string, unknown>; amount: string }[];
    const invoice = invoices.find((i) => (i.metadata.posData as { total?: string } | undefined)?.total === '12.1');
    expect(invoice?.metadata).toMatchObject({
      orderId: `pos-app_${app.id}`,
      itemDesc: 'Café Lisboa',
      posData: { cart: [{ id: 'coffee', title: 'Coffee', price: '3.45', count: 2 }, { id: 'cake', title: 'Cake', price: '4.1', count: 1 }], subTotal: '11', tip: '1.1', total: '12.1' },
    });
  }, 120_000);

  it('a paid charge the chain takes back (a double spend mined instead) gives its items back to the stock', async () => {
    const app = (await gf(t.app, key, 'POST', `/api/v1/stores/${store}/apps/pos`, { ...cafe, items: [{ id: 'jar', title: 'Honey jar', price: '2', inventory: 3 }] })).json();
    const publicId = await publicIdOf(app.id);
    const res = await charge(publicId, { lines: [{ code: 'jar', quantity: 2 }] });
    expect(res.statusCode, res.body).toBe(201);
    const { reference } = res.json() as { reference: string };
    const payment = await t.ctx.db.kysely
      .selectFrom('payments as p')
      .innerJoin('addresses as a', 'a.id', 'p.address_id')
      .select(['p.crypto_sats', 'a.address'])
      .where('p.reference', '=', reference)
      .executeTakeFirstOrThrow();
    const { txid } = await node.pay(decodeAddress(payment.address).script, BigInt(payment.crypto_sats));
    await t.ctx.chains.pollNow();
    expect(await stock(app.id)).toEqual({ jar: 1 });
    // The payer's transaction is replaced by a conflicting one, mined: the payment is no longer paid.
    await node.replaceWithConflict(txid);
    await t.ctx.chains.pollNow();
    const after = await t.ctx.db.kysely.selectFrom('payments').select('status').where('reference', '=', reference).executeTakeFirstOrThrow();
    expect(after.status).not.toMatch(/^(unconfirmed|confirmed)$/);
    expect(await stock(app.id)).toEqual({ jar: 3 });
  }, 120_000);

  it('sold out items are refused at Charge, and nothing is written', async () => {
    const app = (await gf(t.app, key, 'POST', `/api/v1/stores/${store}/apps/pos`, { ...cafe, items: [{ id: 'last', title: 'Last slice', price: '3', inventory: 0 }, { id: 'two', title: 'Two left', price: '1', inventory: 2 }] })).json();
    const publicId = await publicIdOf(app.id);
    const before = [await count('payments'), await count('pos_charges')];
    const soldOut = await charge(publicId, { lines: [{ code: 'last', quantity: 1 }] });
    expect(soldOut.statusCode).toBe(400);
    expect(soldOut.json()).toEqual({ return: '201', status: 'Wrong or missing argument: Sold out: Last slice is sold out.' });
    const tooMany = await charge(publicId, { lines: [{ code: 'two', quantity: 3 }] });
    expect(tooMany.json().status).toContain('only 2 of Two left left');
    expect([await count('payments'), await count('pos_charges')]).toEqual(before);
    // The page shows it sold out (its button disabled).
    const page = await t.app.inject({ method: 'GET', url: `/pos/${publicId}` });
    expect(page.body).toMatch(/data-code="last"[^>]*disabled/);
  });

  it('a keypad-only app charges a typed amount', async () => {
    const app = (await gf(t.app, key, 'POST', `/api/v1/stores/${store}/apps/pos`, { appName: 'Keypad', currency: 'EUR', defaultView: 'Light', enableTips: false })).json();
    expect(app).toMatchObject({ defaultView: 'Light', items: [], enableTips: false });
    const publicId = await publicIdOf(app.id);
    const res = await charge(publicId, { lines: [], amount: '7.5' });
    expect(res.statusCode, res.body).toBe(201);
    const row = await t.ctx.db.kysely.selectFrom('payments').select(['order_amount']).where('reference', '=', res.json().reference).executeTakeFirstOrThrow();
    expect(row.order_amount).toBe('7.5');
    expect((await charge(publicId, { amount: '7.5', tip: { percent: 10 } })).json().status).toBe('Wrong or missing argument: tip must be one of the offered tips: none');
  });

  it('bad input is refused with every field named and nothing stored; client prices are never read', async () => {
    const apps = await count('pos_apps');
    const bad = await gf(t.app, key, 'POST', `/api/v1/stores/${store}/apps/pos`, {
      appName: '',
      currency: 'XYZ',
      defaultView: 'Print',
      customTipPercentages: [0],
      items: [{ id: 'a b', title: '', price: '-1', priceType: 'Topup', inventory: 1.5, colour: 'red' }],
      colour: 'blue',
    });
    expect(bad.statusCode).toBe(422);
    expect((bad.json() as { path: string }[]).map((e) => e.path).sort()).toEqual(
      ['appName', 'colour', 'currency', 'customTipPercentages', 'defaultView', 'items[0].colour', 'items[0].id', 'items[0].inventory', 'items[0].priceType', 'items[0].title'].sort(),
    );
    expect(await count('pos_apps')).toBe(apps);

    const app = (await gf(t.app, key, 'POST', `/api/v1/stores/${store}/apps/pos`, cafe)).json();
    const publicId = await publicIdOf(app.id);
    const payments = await count('payments');
    const priced = await charge(publicId, { lines: [{ code: 'coffee', quantity: 1, price: '0.01' }] });
    expect(priced.statusCode).toBe(400);
    expect(priced.json().status).toContain('prices come from the server');
    for (const body of ['not json', '[]', '{"lines":"coffee"}', '{"lines":[{"code":"coffee","quantity":"2"}]}', '{"lines":[{"code":"coffee","quantity":1}],"tip":{"percent":12}}', '{"amount":"5"}']) {
      const res = await t.app.inject({ method: 'POST', url: `/pos/${publicId}/charges`, headers: { 'content-type': 'application/json' }, payload: body });
      expect(res.statusCode, body).toBe(400);
      expect(res.json().return, body).toBe('201');
    }
    const form = await t.app.inject({ method: 'POST', url: `/pos/${publicId}/charges`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'lines=coffee' });
    expect(form.statusCode).toBeGreaterThanOrEqual(400);
    expect(form.statusCode).toBeLessThan(500);
    expect(await count('payments')).toBe(payments);
    expect((await t.app.inject({ method: 'GET', url: '/pos/pos_aaaaaaaaaaaaaaaaaaaaaaaa' })).statusCode).toBe(404);
  });

  it("BTCPay's apps API: get, update, list, delete in its shapes; another store's app is not found; a view-only key may not change it", async () => {
    const app = (await gf(t.app, key, 'POST', `/api/v1/stores/${store}/apps/pos`, { ...cafe, template: undefined })).json();
    const got = await gf(t.app, key, 'GET', `/api/v1/apps/pos/${app.id}`);
    expect(shape(PointOfSaleAppData, got.json())).toEqual([]);
    const basic = (await gf(t.app, key, 'GET', `/api/v1/apps/${app.id}`)).json();
    expect(shape(BasicAppData, basic)).toEqual([]);
    expect(basic).toMatchObject({ id: app.id, appName: 'Counter 1', storeId: store, appType: 'PointOfSale' });
    // The older clients' template: the same items as JSON text.
    const put = await gf(t.app, key, 'PUT', `/api/v1/apps/pos/${app.id}`, { appName: 'Counter 1', title: 'Café Porto', currency: 'EUR', template: JSON.stringify([{ id: 'bica', title: 'Bica', price: 1.2, inventory: 5 }]) });
    expect(put.statusCode, put.body).toBe(200);
    expect(shape(PointOfSaleAppData, put.json())).toEqual([]);
    expect(put.json()).toMatchObject({ title: 'Café Porto', items: [{ id: 'bica', title: 'Bica', price: '1.2', inventory: 5, priceType: 'Fixed' }] });
    const list = (await gf(t.app, key, 'GET', `/api/v1/stores/${store}/apps`)).json() as unknown[];
    for (const a of list) expect(shape(BasicAppData, a)).toEqual([]);
    expect(list.map((a) => (a as { id: string }).id)).toContain(app.id);

    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'eur' } });
    const other = (res.json() as { api_id: string }).api_id;
    const otherKey = await greenfieldKey(t.ctx, other, [POLICIES.modifyStoreSettings]);
    expect((await gf(t.app, otherKey, 'GET', `/api/v1/apps/${app.id}`)).statusCode).toBe(404);
    const viewKey = await greenfieldKey(t.ctx, store, [POLICIES.viewStoreSettings]);
    expect((await gf(t.app, viewKey, 'GET', `/api/v1/apps/pos/${app.id}`)).statusCode).toBe(200);
    expect((await gf(t.app, viewKey, 'DELETE', `/api/v1/apps/${app.id}`)).statusCode).toBe(403);

    const publicId = await publicIdOf(app.id);
    expect((await gf(t.app, key, 'DELETE', `/api/v1/apps/${app.id}`)).statusCode).toBe(200);
    expect((await gf(t.app, key, 'GET', `/api/v1/apps/${app.id}`)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/pos/${publicId}` })).statusCode).toBe(404);
  });
  it('the console defines a point of sale from typed item lines; a bad form keeps its values, names every problem and stores nothing', async () => {
    const wallet = (await t.ctx.wallets.repo.findByApiId(store))!;
    const token = await sessionOwning(t.ctx, 'cafe@example.com', [wallet.id]);
    const headers = { host: 'shop.test', cookie: `${SESSION_COOKIE}=${token}` };
    const page = await t.app.inject({ method: 'GET', url: '/console/pos', headers });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('<a href="/console/pos" aria-current="page">Point of sale</a>');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const post = (url: string, form: Record<string, string>) =>
      t.app.inject({ method: 'POST', url, headers: { ...headers, origin: 'http://shop.test', 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ csrf, ...form }).toString() });
    const before = await count('pos_apps');
    const bad = await post('/console/pos', { api_id: store, title: 'Kiosk', currency: 'EUR', mode: 'items', items: 'Coffee | 3.505\nTea\nCake | 2 | -1', tip_presets: '10, lots' });
    expect(bad.statusCode).toBe(422);
    for (const text of ['items line 2 must be name | price', 'tip presets must be whole percentages', 'items[0].price must have at most 2 decimal places for EUR', 'items[1].stock must be a whole number']) expect(bad.body).toContain(text);
    expect(bad.body).toContain('Coffee | 3.505');
    const other = await post('/console/pos', { api_id: 'test_not_mine', title: 'Kiosk', currency: 'EUR', mode: 'keypad' });
    expect(other.statusCode).toBe(404);
    expect(await count('pos_apps')).toBe(before);

    const ok = await post('/console/pos', { api_id: store, title: 'Kiosk', currency: 'eur', mode: 'items', items: 'Coffee | 3.50 | 40\nPastel de nata | 1.80 |  | https://img.example/nata.jpg | Warm', tip_presets: '5, 10', custom_tip: '1', default_language: 'pt' });
    expect(ok.statusCode, ok.body).toBe(303);
    expect(ok.headers.location).toBe('/console/pos?ok=created');
    const app = await t.ctx.db.kysely.selectFrom('pos_apps').selectAll().where('title', '=', 'Kiosk').executeTakeFirstOrThrow();
    expect(app).toMatchObject({ currency: 'EUR', tip_presets: '[5,10]', default_language: 'pt' });
    const items = await t.ctx.db.kysely.selectFrom('pos_items').select(['item_code', 'price', 'stock', 'image_url', 'description']).where('app_id', '=', app.id).orderBy('position').execute();
    expect(items).toEqual([
      { item_code: 'coffee', price: '3.5', stock: 40n, image_url: null, description: null },
      { item_code: 'pastel-de-nata', price: '1.8', stock: null, image_url: 'https://img.example/nata.jpg', description: 'Warm' },
    ]);
    const listed = await t.app.inject({ method: 'GET', url: '/console/pos?ok=created', headers });
    expect(listed.body).toContain(`/pos/${app.public_id}`);
    // The counter page speaks the app's default language.
    const counter = await t.app.inject({ method: 'GET', url: `/pos/${app.public_id}` });
    expect(counter.body).toContain('<html lang="pt"');
    expect(counter.body).toContain('Cobrar');

    const deleted = await post('/console/pos/delete', { pos_id: app.public_id });
    expect(deleted.statusCode).toBe(303);
    expect((await t.app.inject({ method: 'GET', url: `/pos/${app.public_id}` })).statusCode).toBe(404);
  });
});

