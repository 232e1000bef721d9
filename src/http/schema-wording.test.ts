// What a schema refusal says (issue 33): each names the field and what is expected in plain words, in the face's own
// shape, with the HTTP status and code of before. Validator jargon ("must NOT have additional properties") and
// framework titles ("Unsupported Media Type") are not answers a client can act on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, tokenFor } from '../../test/support/payment-api.ts';
import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import { toFieldProblem, toFieldProblems } from './error-answers.ts';
import { installErrorHandling } from './error-handler.ts';
import { useStrictSchemas } from './strict-schema.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };

describe('the shared wording of schema refusals', () => {
  const say = (keyword: string, params: Record<string, unknown>, instancePath = '/field', operation?: string) =>
    toFieldProblem({ keyword, params, instancePath, message: 'ajv jargon' }, 'body', operation);

  it('names the field and what is expected for every validator keyword', () => {
    expect(say('additionalProperties', { additionalProperty: 'colour' }, '', 'POST /add_pub')).toEqual({ field: 'colour', message: 'is not a field of POST /add_pub' });
    expect(say('required', { missingProperty: 'api_id' }, '')).toEqual({ field: 'api_id', message: 'is required' });
    expect(say('type', { type: 'string' })).toEqual({ field: 'field', message: 'must be a string' });
    expect(say('type', { type: 'integer' })).toEqual({ field: 'field', message: 'must be a whole number' });
    expect(say('type', { type: 'number' })).toEqual({ field: 'field', message: 'must be a number' });
    expect(say('type', { type: 'object' })).toEqual({ field: 'field', message: 'must be a JSON object' });
    expect(say('type', { type: 'array' })).toEqual({ field: 'field', message: 'must be a list (a JSON array)' });
    expect(say('type', { type: 'boolean' })).toEqual({ field: 'field', message: 'must be true or false' });
    expect(say('pattern', { pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' })).toEqual({ field: 'field', message: 'must be a date like 2024-01-31' });
    expect(say('pattern', { pattern: '^x+$' })).toEqual({ field: 'field', message: 'is not in the expected form (it must match ^x+$)' });
    expect(say('minimum', { comparison: '>=', limit: 60 })).toEqual({ field: 'field', message: 'must be at least 60' });
    expect(say('maximum', { comparison: '<=', limit: 86400 })).toEqual({ field: 'field', message: 'must be at most 86400' });
    expect(say('exclusiveMinimum', { comparison: '>', limit: 0 })).toEqual({ field: 'field', message: 'must be more than 0' });
    expect(say('enum', { allowedValues: ['text', 'email'] })).toEqual({ field: 'field', message: 'must be one of "text", "email"' });
    expect(say('const', { allowedValue: 'client_credentials' })).toEqual({ field: 'field', message: 'must be "client_credentials"' });
    expect(say('format', { format: 'email' })).toEqual({ field: 'field', message: 'must be an e-mail address' });
    expect(say('format', { format: 'uri' })).toEqual({ field: 'field', message: 'must be an absolute URL' });
    expect(say('minLength', { limit: 1 })).toEqual({ field: 'field', message: 'must not be empty' });
    expect(say('minLength', { limit: 3 })).toEqual({ field: 'field', message: 'must be at least 3 characters' });
    expect(say('maxLength', { limit: 256 })).toEqual({ field: 'field', message: 'must be at most 256 characters' });
    expect(say('maxItems', { limit: 20 })).toEqual({ field: 'field', message: 'must have at most 20 items' });
    expect(say('anyOf', {})).toEqual({ field: 'field', message: 'is none of the accepted forms' });
    // A nested field keeps its path; the part of the request stands in for a whole-body refusal.
    expect(say('type', { type: 'string' }, '/items/0/label')).toEqual({ field: 'items.0.label', message: 'must be a string' });
    expect(say('type', { type: 'object' }, '')).toEqual({ field: 'body', message: 'must be a JSON object' });
  });

  it('a value that fits no branch of a union is told once: the types taken, or what the branch of its type wanted', () => {
    const union = { instancePath: '/order_amount', schemaPath: '#/properties/order_amount/anyOf', keyword: 'anyOf', params: {} };
    const asNumber = { instancePath: '/order_amount', schemaPath: '#/properties/order_amount/anyOf/0/type', keyword: 'type', params: { type: 'number' } };
    const asString = { instancePath: '/order_amount', schemaPath: '#/properties/order_amount/anyOf/1/type', keyword: 'type', params: { type: 'string' } };
    const pattern = { instancePath: '/order_amount', schemaPath: '#/properties/order_amount/anyOf/1/pattern', keyword: 'pattern', params: { pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$' } };
    const other = { instancePath: '', schemaPath: '#/required', keyword: 'required', params: { missingProperty: 'api_id' } };
    expect(toFieldProblems([asNumber, asString, union, other], 'body')).toEqual([
      { field: 'order_amount', message: 'must be a number or a string' },
      { field: 'api_id', message: 'is required' },
    ]);
    expect(toFieldProblems([asNumber, pattern, union], 'body')).toEqual([{ field: 'order_amount', message: 'must be a decimal number like 49.90' }]);
  });

  it('a field given to an operation that takes it elsewhere says where it belongs', () => {
    expect(say('additionalProperties', { additionalProperty: 'order_amount' }, '', 'POST /set_addr')).toEqual({
      field: 'order_amount',
      message: 'is not a field of POST /set_addr: the order amount goes in the encrypted payload (public_key_shared and payload), as its order_amount',
    });
  });
});

describe('the strict (TypeBox) compiler speaks the same words', () => {
  it('an unknown field, a missing one, a wrong type, a pattern and an enumeration are each named in plain words', async () => {
    const app = Fastify();
    installErrorHandling(app, { publicUrl: 'http://satgate.test' });
    await app.register(async (scope) => {
      useStrictSchemas(scope);
      const body = Type.Object(
        { day: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }), count: Type.Integer({ minimum: 1 }), kind: Type.Union([Type.Literal('a'), Type.Literal('b')]) },
        { additionalProperties: false },
      );
      scope.post('/probe', { schema: { body } }, async () => ({ ok: true }));
    });
    const res = await app.inject({ method: 'POST', url: '/probe', payload: { day: 'today', count: '2', kind: 'c', colour: 'red' } });
    expect(res.statusCode).toBe(400);
    const status = String(res.json().status);
    expect(status).toMatch(/^Wrong or missing argument: /);
    for (const said of ['colour is not a field of POST /probe', 'day must be a date like 2024-01-31', 'count must be a whole number', 'kind must be one of "a", "b"']) {
      expect(status).toContain(said);
    }
    const missing = await app.inject({ method: 'POST', url: '/probe', payload: { count: 0, kind: 'a' } });
    expect(String(missing.json().status)).toContain('day is required');
    expect(String(missing.json().status)).toContain('count must be at least 1');
    await app.close();
  });
});

describe.each(testEngines())('schema refusals over HTTP on %s', (engine) => {
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

  it('set_addr with order_amount names the field, says it is not a field of set_addr and where it goes (201, HTTP 400 as before)', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id: apiId, order_amount: 10 } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      return: '201',
      status:
        'Wrong or missing argument: order_amount is not a field of POST /set_addr: the order amount goes in the encrypted payload (public_key_shared and payload), as its order_amount',
    });
  });

  it('a wrong type on a wallet operation names the field and the type expected', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id: apiId, expiration: '600' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ return: '201', status: expect.stringMatching(/^Wrong or missing argument: expiration must be a whole number/) });
  });

  it('a form-encoded body is told to send JSON: 201 on HTTP 400 in the envelope, 415 malformed-body in problem details', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const wallet = await t.app.inject({ method: 'POST', url: '/set_addr', headers: form, payload: `api_id=${apiId}` });
    expect(wallet.statusCode).toBe(400);
    expect(wallet.json()).toEqual({
      return: '201',
      status: 'Wrong or missing argument: the body is sent as application/x-www-form-urlencoded; send it as JSON, with Content-Type: application/json',
    });
    const payment = await t.app.inject({ method: 'POST', url: '/api/v1/payment/request', headers: { ...form, authorization: `Bearer ${token}` }, payload: 'type=custom' });
    expect(payment.statusCode).toBe(415);
    expect(payment.json()).toMatchObject({
      type: expect.stringMatching(/\/problems\/malformed-body$/),
      status: 415,
      detail: 'The body is sent as application/x-www-form-urlencoded; send it as JSON, with Content-Type: application/json.',
    });
    expect(payment.body).not.toMatch(/Unsupported Media Type/);
    // The token endpoint also reads forms, and says so.
    const oauth = await t.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'text/plain' }, payload: 'x' });
    expect(oauth.statusCode).toBe(415);
    expect(oauth.json()).toEqual({
      error: 'invalid_request',
      error_description: 'the body is sent as text/plain; send it as a form (Content-Type: application/x-www-form-urlencoded) or JSON (Content-Type: application/json)',
    });
  });

  it('the payment form names an unknown field and BTC as order currency in plain words', async () => {
    const body = {
      api_id: apiId, order_id: 'o-1', order_amount: '25.00', order_currency: 'BTC', site_name: 'Shop',
      payment_cancel_url: 'https://shop.example/c', payment_complete_url: 'https://shop.example/d', payment_update_url: 'https://shop.example/u',
    };
    const res = await t.app.inject({ method: 'POST', url: '/payment_form', payload: body });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ return: '101', status: expect.stringMatching(/order_currency must be a fiat currency.*not BTC: orders are priced in fiat/) });
    const payment = await t.app.inject({ method: 'POST', url: '/api/v1/payment/request', headers: { authorization: `Bearer ${token}` }, payload: customRequest(apiId, { order_currency: 'BTC' }) });
    expect(payment.json().errors).toEqual([{ field: 'order_currency', message: expect.stringMatching(/not BTC: orders are priced in fiat.*"BTC" or "testBTC" goes in crypto_currency$/) }]);
  });
});
