// Operation 14's validation over real HTTP (inject) on both engines: strict types, exact amounts,
// user_fields rules, URLs and the SSRF check at save; nothing is stored for a refused request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { checkFormRequest } from './form-request.ts';
import { parseExactJson } from '../money/exact-json.ts';

const valid = (apiId: string) => ({
  api_id: apiId,
  order_id: 'A-1',
  order_amount: 25,
  order_currency: 'USD',
  payment_cancel_url: 'https://shop.example/cart',
  payment_complete_url: 'https://shop.example/thanks',
  payment_update_url: 'https://shop.example/hooks/satgate',
  site_name: 'Shop',
});

describe('the payment form request checker', () => {
  const check = (body: Record<string, unknown>) => checkFormRequest(parseExactJson(JSON.stringify({ ...valid('test_x'), ...body })), (c) => c === 'USD' || c === 'JPY');
  const fields = (over: Record<string, unknown>) => check(over);

  it('reads order_amount exactly from a JSON number or a decimal string', () => {
    const a = check({ order_amount: 19.99 });
    const b = check({ order_amount: '19.99' });
    expect(a.ok && a.request.order_amount).toBe('19.99');
    expect(b.ok && b.request.order_amount).toBe('19.99');
    expect(checkFormRequest(parseExactJson('{"api_id":"test_x","order_id":"1","order_amount":0.30000000000000004,"order_currency":"USD","payment_cancel_url":"https://a.example/","payment_complete_url":"https://a.example/","payment_update_url":"https://a.example/","site_name":"S"}'), () => true)).toMatchObject({
      ok: false,
    });
  });

  it('refuses more decimals than the currency has, zero, negatives, booleans and words', () => {
    for (const [amount, message] of [
      [1.234, 'at most 2 decimal places for USD'],
      [0, 'must be positive'],
      [-5, 'must be positive'],
      [true, 'must be a number'],
      ['12 USD', 'decimal number'],
      [' 12', 'decimal number'],
    ] as const) {
      const r = check({ order_amount: amount });
      expect(r.ok, String(amount)).toBe(false);
      if (!r.ok) expect(r.problems.map((p) => p.message).join(';')).toContain(message);
    }
    const yen = check({ order_amount: 10.5, order_currency: 'JPY' });
    expect(yen.ok).toBe(false);
  });

  it('takes a plain decimal string exactly and refuses strings that are not one ("1e3", " 5", "5.", "0x10")', () => {
    const r = check({ order_amount: '49.90' });
    expect(r.ok && r.request.order_amount).toBe('49.9');
    for (const bad of ['1e3', ' 5', '5.', '0x10', '-5', '007', '.5']) {
      const refused = check({ order_amount: bad });
      expect(refused.ok, bad).toBe(false);
      if (!refused.ok) expect(refused.problems, bad).toEqual([{ field: 'order_amount', message: expect.stringMatching(/^must be a decimal number like 49\.90/), code: '201' }]);
    }
  });

  it('BTC as the order currency says orders are priced in fiat, with the wallet API code 101', () => {
    const r = check({ order_currency: 'btc' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems).toEqual([
        {
          field: 'order_currency',
          message:
            'must be a fiat currency, a 3-letter ISO 4217 code such as "USD" or "EUR", not BTC: orders are priced in fiat and the payer is asked for the bitcoin amount worked out from order_amount at the exchange rate (a form takes no BTC amount)',
          code: '101',
        },
      ]);
    }
  });

  it('never coerces types: a number where a string is due is an error, not text', () => {
    const r = check({ order_id: 17, site_name: ['x'], user_id: 5 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.map((p) => p.field).sort()).toEqual(['order_id', 'site_name', 'user_id']);
  });

  it('refuses null for the optional fields: leave a field out when there is none (null is not a string or a list)', () => {
    const r = check({ user_id: null, user_email: null, user_fields: null });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.map((p) => p.field).sort()).toEqual(['user_email', 'user_fields', 'user_id']);
  });

  it('checks user_fields: name pattern, unique names, required 0 or 1 (not true), type, at most 20', () => {
    const ok = fields({ user_fields: [{ name: 'phone_1', display_name: 'Phone', required: 1, type: 'text' }] });
    expect(ok.ok && ok.request.user_fields).toEqual([{ name: 'phone_1', display_name: 'Phone', required: 1, type: 'text', value: '' }]);
    const bad = fields({
      user_fields: [
        { name: 'Phone', display_name: 'P', required: 1, type: 'text' },
        { name: 'a', display_name: 'A', required: true, type: 'text' },
        { name: 'a', display_name: 'A2', required: 0, type: 'number' },
        { name: 'b', display_name: '', required: 2, type: 'email', extra: 1 },
      ],
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.problems.map((p) => p.field)).toEqual([
        'user_fields[0].name',
        'user_fields[1].required',
        'user_fields[2].name',
        'user_fields[2].type',
        'user_fields[3].extra',
        'user_fields[3].display_name',
        'user_fields[3].required',
      ]);
    }
    const many = fields({ user_fields: Array.from({ length: 21 }, (_, i) => ({ name: `f${i}`, display_name: 'F', required: 0, type: 'text' })) });
    expect(many.ok).toBe(false);
  });

  it('wants absolute http(s) URLs, a valid user_email, a supported currency and no unknown fields', () => {
    const r = check({ payment_cancel_url: 'javascript:alert(1)', payment_update_url: '/hooks', user_email: 'nope', order_currency: 'EUR', colour: 'red' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems.map((p) => `${p.field}:${p.code}`).sort()).toEqual([
        'colour:201',
        'order_currency:103',
        'payment_cancel_url:201',
        'payment_update_url:201',
        'user_email:308',
      ]);
    }
  });
});

describe.each(testEngines())('POST /payment_form validation on %s', (engine) => {
  let t: TestApp;
  let apiId: string;
  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }) }, start: true });
    apiId = await addSandboxWallet(t.app);
  });
  afterAll(async () => {
    await t?.close();
  });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/payment_form', headers: { 'content-type': 'application/json', ...headers }, payload: typeof body === 'string' ? body : JSON.stringify(body) });

  it('answers 201 listing every bad field, and stores nothing', async () => {
    const res = await post({ ...valid(apiId), order_amount: '1.234', user_fields: [{ name: 'X', display_name: 'x', required: 1, type: 'text' }] });
    expect(res.statusCode).toBe(400);
    const body = res.json() as { return: string; status: string };
    expect(body.return).toBe('201');
    expect(body.status).toContain('order_amount must have at most 2 decimal places for USD');
    expect(body.status).toContain('user_fields[0].name');
    expect(await t.ctx.db.kysely.selectFrom('payment_forms').select('id').execute()).toEqual([]);
  });

  it('refuses a payment_update_url that points inside the network (SSRF check at save)', async () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/x', 'http://10.0.0.7/h']) {
      const res = await post({ ...valid(apiId), payment_update_url: url });
      expect((res.json() as { return: string }).return, url).toBe('201');
      expect((res.json() as { status: string }).status).toContain('payment_update_url is not allowed');
    }
  });

  it('answers code 201 for malformed JSON and an unknown api_id, 308 for a bad e-mail, 103 for a currency without a rate', async () => {
    expect((await post('{"api_id":')).json()).toMatchObject({ return: '201' });
    expect((await post({ ...valid('test_nope') })).json()).toMatchObject({ return: '201', status: 'Wrong or missing argument: unknown api_id' });
    expect((await post({ ...valid(apiId), user_email: 'a@b' })).json()).toMatchObject({ return: '308' });
    expect((await post({ ...valid(apiId), order_currency: 'EUR' })).json()).toMatchObject({ return: '103' });
  });

  it('documents both operations in the OpenAPI description', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    expect(doc.paths['/payment_form']?.post?.requestBody).toBeDefined();
    expect(JSON.stringify(doc.paths['/payment_form'])).toContain('payment_update_url');
    expect(doc.paths['/payment_form/{form_token}']?.get).toBeDefined();
  });

  it('GET /payment_form with an unknown token answers 201 with a clear status', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/payment_form/no-such-token' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ return: '201', status: expect.stringContaining('no payment form with this token') });
  });
});
