import { Writable } from 'node:stream';
import { afterEach, describe, it, expect } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { VERSION } from '../core/version.ts';
import { BODY_LIMIT } from './app.ts';

/** A writable stream that keeps everything written to it, for reading the logs back. */
function memoryStream(): { stream: Writable; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

const XPRV =
  'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';

describe.each(testEngines())('HTTP app on %s', (engine) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('an unknown path answers 404 with the wallet envelope code 999', async () => {
    t = await createTestApp(engine);
    const res = await t.app.inject({ method: 'GET', url: '/no_such_operation' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ return: '999', status: 'Invalid command' });
  });

  it('an unknown path under /api/ (outside Greenfield\'s /api/v1) answers 404 problem details', async () => {
    t = await createTestApp(engine);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/payment/x/nothing?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ title: 'Not Found', status: 404 });
    expect(res.json().type).toMatch(/\/problems\/no-such-operation$/);
    expect(res.json().detail).toContain('/api/v1/payment/x/nothing');
  });

  it('a malformed JSON body answers 400 with code 201', async () => {
    t = await createTestApp(engine);
    const res = await t.app.inject({
      method: 'POST',
      url: '/add_pub',
      headers: { 'content-type': 'application/json' },
      payload: '{"pub": "xpub',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().return).toBe('201');
    expect(res.json().status).toMatch(/^Wrong or missing argument/);
  });

  it('a body over 1 MiB answers code 201 with HTTP 400, as DESIGN.md\'s table says for 201', async () => {
    t = await createTestApp(engine);
    const res = await t.app.inject({
      method: 'POST',
      url: '/add_pub',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ pub: 'x', info: 'a'.repeat(BODY_LIMIT) }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().return).toBe('201');
  });

  it('GET /health reports the version and a healthy database', async () => {
    t = await createTestApp(engine);
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    // Rates not fetched yet (nothing started in tests) may make the service "degraded", never unhealthy.
    expect(['ok', 'degraded']).toContain(res.json().status);
    expect(res.json()).toMatchObject({ version: VERSION, database: { ok: true, engine } });
  });

  it('GET /health answers 503 when the database is gone', async () => {
    t = await createTestApp(engine);
    await t.testDb.db.close();
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'unhealthy', database: { ok: false } });
  });

  it('/docs/json is an OpenAPI document listing the wallet operations', async () => {
    t = await createTestApp(engine);
    const res = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe(VERSION);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/add_pub', '/wallets', '/health']));
  });

  it('/docs/json documents the payment request body and its bearer authentication', async () => {
    t = await createTestApp(engine);
    const op = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json().paths['/api/v1/payment/request'].post;
    const fields = Object.keys(op.requestBody.content['application/json'].schema.properties);
    expect(fields).toEqual(expect.arrayContaining(['type', 'api_id', 'crypto_currency', 'order_currency', 'order_amount', 'payer_id', 'cart', 'payer_ip', 'success_url', 'cancel_url']));
    expect(op.security).toEqual([{ bearerAuth: [] }]);
  });

  it('/docs serves the HTML documentation page', async () => {
    t = await createTestApp(engine);
    let res = await t.app.inject({ method: 'GET', url: '/docs' });
    for (let hops = 0; hops < 3 && res.statusCode >= 300 && res.statusCode < 400; hops++) {
      const next = new URL(String(res.headers.location), 'http://localhost/docs/').pathname;
      res = await t.app.inject({ method: 'GET', url: next });
    }
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toMatch(/<html/i);
  });

  it('request logs never contain a bearer token or an extended private key', async () => {
    const log = memoryStream();
    t = await createTestApp(engine, { env: { LOG_LEVEL: 'trace' }, logStream: log.stream });
    const withToken = await t.app.inject({
      method: 'GET',
      url: '/wallets',
      headers: { authorization: 'Bearer secret-token-123' },
    });
    expect(withToken.statusCode).toBe(200);
    const withPrivateKey = await t.app.inject({ method: 'GET', url: `/wallet_type/${XPRV}` });
    expect(withPrivateKey.statusCode).toBe(400);
    expect(withPrivateKey.json().return).toBe('102');
    expect(withPrivateKey.body).not.toContain(XPRV);
    const text = log.text();
    expect(text).toContain('/wallet_type/'); // the request was logged, only redacted
    expect(text).toContain('[redacted-private-key]');
    expect(text).not.toContain('secret-token-123');
    expect(text).not.toContain(XPRV);
    expect(text).not.toContain(XPRV.slice(4, 40));
  });
});
