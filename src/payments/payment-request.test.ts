import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';

// A test chain whose node is never reached: validation happens before any address is issued.
const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };

describe.each(testEngines())('operation 26 validation on %s', (engine) => {
  let t: TestApp;
  let apiId: string;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile() }, chains: DEAD_NODE, start: true });
    apiId = await addSandboxWallet(t.app);
    token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
  });
  afterAll(async () => {
    await t?.close();
  });

  async function problems(over: Record<string, unknown>, drop: string[] = []) {
    const body = customRequest(apiId, over);
    for (const k of drop) delete body[k];
    const res = await postPayment(t.app, token, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const json = res.json() as { type: string; title: string; status: number; errors: { field: string; message: string }[] };
    expect(json).toMatchObject({ status: 400 });
    expect(json.type).toMatch(/\/problems\/invalid-request$/);
    return json.errors;
  }
  const fields = async (over: Record<string, unknown>, drop: string[] = []) => (await problems(over, drop)).map((e) => e.field).sort();

  it('every missing required field is listed at once', async () => {
    expect(await fields({}, ['type', 'api_id', 'crypto_currency', 'order_currency', 'order_amount', 'payer_id'])).toEqual(
      ['api_id', 'crypto_currency', 'order_amount', 'order_currency', 'payer_id', 'type'],
    );
  });

  it('the type must be custom or hosted; custom needs payer_ip and hosted needs success_url and cancel_url', async () => {
    expect(await fields({ type: 'shop' })).toEqual(['type']);
    expect(await fields({}, ['payer_ip'])).toEqual(['payer_ip']);
    // The base request is a custom one: its payer_ip is not a field of hosted requests, so it is named too.
    expect(await fields({ type: 'hosted' })).toEqual(['cancel_url', 'payer_ip', 'success_url']);
    expect(await fields({ type: 'hosted', success_url: 'javascript:alert(1)', cancel_url: 'ftp://x' })).toEqual(['cancel_url', 'payer_ip', 'success_url']);
    expect(await fields({ cancel_url: {} })).toEqual(['cancel_url']);
  });

  it('the crypto currency must match the API ID: testBTC for sandbox IDs', async () => {
    const errors = await problems({ crypto_currency: 'BTC' });
    expect(errors).toEqual([{ field: 'crypto_currency', message: 'must be "testBTC" for a sandbox API ID' }]);
    expect(await fields({ crypto_currency: 'ETH' })).toEqual(['crypto_currency']);
  });

  it('the order currency must be an ISO 4217 code with a rate', async () => {
    expect(await fields({ order_currency: 'XYZ' })).toEqual(['order_currency']);
    expect(await fields({ order_currency: 'US' })).toEqual(['order_currency']);
    const gbp = await problems({ order_currency: 'GBP' });
    expect(gbp[0]).toMatchObject({ field: 'order_currency', message: expect.stringMatching(/no exchange rate/) });
  });

  it('the order amount must be positive with at most the currency minor units', async () => {
    expect(await fields({ order_amount: 0 })).toEqual(['order_amount']);
    expect(await fields({ order_amount: -5 })).toEqual(['order_amount']);
    expect(await fields({ order_amount: 'ten' })).toEqual(['order_amount']);
    const cents = await problems({ order_amount: 10.005 });
    expect(cents[0]).toMatchObject({ field: 'order_amount', message: 'must have at most 2 decimal places for USD' });
    expect(await fields({ order_currency: 'JPY', order_amount: 100.5 })).toEqual(['order_amount']);
  });

  it('an order worth less than the dust limit is refused: 0.01 USD would ask for 20 sat (0.0000002 BTC)', async () => {
    expect(await problems({ order_amount: 0.01 })).toEqual([
      { field: 'order_amount', message: 'is worth 0.0000002 BTC, less than 0.00000546 BTC (546 sat), the smallest payment the Bitcoin network relays (dust limit)' },
    ]);
    // 0.27 USD at 50,000 USD is 540 sat; 0.28 USD is 560 sat, above the limit.
    expect(await fields({ order_amount: 0.27 })).toEqual(['order_amount']);
    const ok = await postPayment(t.app, token, customRequest(apiId, { order_amount: 0.28 }));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ crypto_amount: 0.0000056, order_amount: 0.28 });
    // 1e15 USD would be 20 billion BTC: refused by its digits before any rate is asked.
    expect(await problems({ order_amount: 1e15 })).toEqual([{ field: 'order_amount', message: 'must have at most 15 digits before the decimal point' }]);
  });

  it('the order amount may be an exact decimal string; strings that are not plain decimals are refused', async () => {
    const ok = await postPayment(t.app, token, customRequest(apiId, { order_amount: '49.90' }));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ order_amount: 49.9, crypto_amount: 0.000998 });
    for (const bad of ['1e3', ' 5', '5.', '0x10', '-5', '007', '.5', '']) {
      const errors = await problems({ order_amount: bad });
      expect(errors, bad).toEqual([{ field: 'order_amount', message: expect.stringMatching(/^must be a decimal number like 49\.90/) }]);
    }
    // The same bounds as a number: dust, digits, minor units.
    expect(await fields({ order_amount: '0.01' })).toEqual(['order_amount']);
    expect(await fields({ order_amount: '1000000000000000' })).toEqual(['order_amount']);
    expect(await problems({ order_amount: '10.005' })).toEqual([{ field: 'order_amount', message: 'must have at most 2 decimal places for USD' }]);
    // Cart amounts take the same spellings.
    const cartOk = await postPayment(t.app, token, customRequest(apiId, { order_amount: '26.00', cart: cart({ shipping_cost: '4.99', tax_cost: '0.50' }) }));
    expect(cartOk.statusCode, cartOk.body).toBe(200);
    expect(await fields({ order_amount: 26, cart: cart({ tax_cost: '5e-1' }) })).toEqual(['cart.tax_cost']);
  });

  it('BTC as the order currency is answered with where bitcoin goes: orders are priced in fiat', async () => {
    expect(await problems({ order_currency: 'BTC' })).toEqual([
      {
        field: 'order_currency',
        message:
          'must be a fiat currency, a 3-letter ISO 4217 code such as "USD" or "EUR", not BTC: orders are priced in fiat and the bitcoin amount is worked out at the exchange rate and answered as crypto_amount; "BTC" or "testBTC" goes in crypto_currency',
      },
    ]);
    expect(await problems({ order_currency: 'XYZ' })).toEqual([{ field: 'order_currency', message: 'must be a 3-letter ISO 4217 currency code such as "USD" or "EUR"' }]);
  });

  it('phone numbers must be E.164, payer IPs IPv4 or IPv6, e-mails and URLs well formed', async () => {
    expect(await fields({ payer_phone: '0044 20 7946 0000' })).toEqual(['payer_phone']);
    expect(await fields({ payer_phone: '+0123456' })).toEqual(['payer_phone']);
    expect(await fields({ payer_phone: '+1234567890123456' })).toEqual(['payer_phone']);
    expect(await fields({ payer_ip: '300.1.2.3' })).toEqual(['payer_ip']);
    expect(await fields({ payer_ip: 'fe80::1::2' })).toEqual(['payer_ip']);
    expect(await fields({ payer_email: 'not-mail', notify_email: 'x@', notify_url: 'mailto:a@b.c' })).toEqual(['notify_email', 'notify_url', 'payer_email']);
  });

  it('a webhook URL pointing at a loopback, private or metadata address is refused', async () => {
    const loop = await problems({ notify_url: 'http://127.0.0.1:8080/hook' });
    expect(loop[0]).toMatchObject({ field: 'notify_url', message: expect.stringMatching(/not allowed/) });
    expect(await fields({ notify_url: 'http://169.254.169.254/latest' })).toEqual(['notify_url']);
    expect(await fields({ notify_url: 'http://10.1.2.3/' })).toEqual(['notify_url']);
  });

  const cart = (over: Record<string, unknown> = {}) => ({
    items: [
      { amount: 20, quantity: 2, label: 'Mug', sku: 'MUG-1' },
      { amount: 2.5, quantity: 1, label: 'Sticker', sku: 'ST-9' },
    ],
    shipping_cost: 4.99,
    shipping_discount: 1.99,
    tax_cost: 0.5,
    ...over,
  });

  it('a cart must add up exactly to the order amount, in exact decimal arithmetic', async () => {
    const errors = await problems({ order_amount: 26.01, cart: cart() });
    expect(errors).toEqual([{ field: 'cart', message: 'items + shipping_cost - shipping_discount + tax_cost is 26.00, not the order_amount 26.01' }]);
    // 20 + 2.5 + 4.99 - 1.99 + 0.5 is 26 exactly, though not in binary floating point.
    const ok = await postPayment(t.app, token, customRequest(apiId, { order_amount: 26, cart: cart() }));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().cart).toEqual(cart());
  });

  it('every cart field is required, shipping_discount must not be negative and quantities are whole', async () => {
    const c = cart();
    delete (c as Record<string, unknown>).tax_cost;
    expect(await fields({ order_amount: 25.5, cart: c })).toEqual(['cart.tax_cost']);
    expect(await fields({ order_amount: 25.5, cart: cart({ shipping_discount: -1.99 }) })).toEqual(['cart.shipping_discount']);
    expect(
      await fields({ order_amount: 25.5, cart: cart({ items: [{ amount: 20, quantity: 1.5, label: '', sku: 'A' }, { quantity: 1, label: 'x' }] }) }),
    ).toEqual(['cart.items[0].label', 'cart.items[0].quantity', 'cart.items[1].amount', 'cart.items[1].sku']);
    expect(await fields({ order_amount: 25.5, cart: cart({ items: 'none' }) })).toEqual(['cart.items']);
    expect(await fields({ order_amount: 25.5, cart: cart({ tax_cost: 0.001 }) })).toEqual(['cart.tax_cost']);
  });

  it('a body that is not JSON, or not an object, is a 400 problem', async () => {
    const res = await postPayment(t.app, token, '{"type": "custom",');
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(await postPayment(t.app, token, '[1,2]').then((r) => r.statusCode)).toBe(400);
  });
});
