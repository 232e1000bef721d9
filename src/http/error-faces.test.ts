// A request that is not valid HTTP-level input (malformed JSON, a wrong content type, a body too large, bad
// percent-encoding, an unknown method, a broken chunked body, no Host, an unmet Expect) is answered in the shape
// of the part of the interface its URL names: problem details under /api/v1/payment, `{code, message}` on a
// Greenfield path, the wallet envelope at the root. Sent over a real socket, head and body as separate packets
// where it matters, since that is how the parser meets them.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { rawRequest, type RawAnswer } from '../../test/support/raw-http.ts';

type Face = 'payment' | 'greenfield' | 'oauth' | 'wallet';

interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  pauseBeforeBodyMs?: number;
  noHost?: boolean;
  status: number;
}

/** Fails unless the answer is in the face's error shape. */
function expectShape(res: RawAnswer, face: Face): void {
  const type = res.headers['content-type'] ?? '';
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    throw new Error(`not JSON: ${res.status} ${type} ${JSON.stringify(res.body.slice(0, 200))}`);
  }
  if (face === 'payment') {
    expect(type).toMatch(/^application\/problem\+json/);
    expect(body).toMatchObject({ type: expect.stringMatching(/\/problems\/[a-z-]+$/), title: expect.any(String), status: res.status });
  } else if (face === 'greenfield') {
    expect(type).toMatch(/^application\/json/);
    if (Array.isArray(body)) expect(body[0]).toMatchObject({ path: expect.any(String), message: expect.any(String) });
    else expect(Object.keys(body as object).sort()).toEqual(['code', 'message']);
  } else if (face === 'oauth') {
    expect(type).toMatch(/^application\/json/);
    expect(body).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) });
  } else {
    expect(type).toMatch(/^application\/json/);
    expect(Object.keys(body as object).sort()).toEqual(['return', 'status']);
  }
}

function cases(base: string, unknown: string): Case[] {
  const json = { 'content-type': 'application/json' };
  return [
    { name: 'malformed JSON, the body in its own packet', method: 'POST', path: base, headers: json, body: '{"amount":', pauseBeforeBodyMs: 50, status: 400 },
    { name: 'a text/plain body', method: 'POST', path: base, headers: { 'content-type': 'text/plain' }, body: 'x', status: 415 },
    { name: 'a body over 1 MiB', method: 'POST', path: base, headers: json, body: JSON.stringify({ x: 'a'.repeat(1_100_000) }), status: 413 },
    { name: 'a path that is not valid percent-encoding', method: 'GET', path: `${base}/%zz`, status: 400 },
    { name: 'an unknown method', method: 'FROB', path: base, status: 404 },
    { name: 'an unknown method on an absolute-form URL', method: 'FROB', path: `http://127.0.0.1${base}`, status: 404 },
    { name: 'a method the operation does not have', method: 'PUT', path: base, status: 404 },
    { name: 'a NUL character in the query of an unknown path', method: 'GET', path: `${unknown}?x=%00`, status: 400 },
    {
      name: 'a chunked body with a broken chunk size, after the head',
      method: 'POST',
      path: base,
      headers: { ...json, 'transfer-encoding': 'chunked' },
      body: 'zz\r\n{}\r\n0\r\n\r\n',
      pauseBeforeBodyMs: 50,
      status: 400,
    },
    { name: 'no Host header', method: 'GET', path: base, noHost: true, status: 400 },
    { name: 'an Expect header the server cannot meet', method: 'POST', path: base, headers: { ...json, expect: 'x-teleport' }, body: '{}', status: 417 },
  ];
}

describe.each(testEngines())('error shapes of malformed requests on %s', (engine) => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp(engine);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t?.close();
  });

  async function check(face: Face, list: Case[]) {
    const failures: string[] = [];
    for (const c of list) {
      const res = await rawRequest(port, c.method, c.path, {
        headers: c.headers ?? {},
        ...(c.body === undefined ? {} : { body: c.body }),
        ...(c.pauseBeforeBodyMs === undefined ? {} : { pauseBeforeBodyMs: c.pauseBeforeBodyMs }),
        ...(c.noHost ? { noHost: true } : {}),
      });
      try {
        expect(res.status, res.body).toBe(c.status);
        expectShape(res, face);
      } catch (err) {
        failures.push(`${c.name}: ${(err as Error).message.split('\n')[0]} (answer ${res.status} ${res.headers['content-type'] ?? '-'} ${res.body.slice(0, 160)})`);
      }
    }
    expect(failures).toEqual([]);
  }

  it('under /api/v1/payment every one answers application/problem+json', async () => {
    await check('payment', cases('/api/v1/payment/request', '/api/v1/payment/request/nope'));
  });

  it('on a Greenfield path every one answers {code, message} (or the 422 list)', async () => {
    // Greenfield reports a bad field (here the NUL character) as 422 with the list of fields.
    const greenfield = cases('/api/v1/stores/live_x/invoices', '/api/v1/stores/live_x/nope').map((c) => (c.name.startsWith('a NUL') ? { ...c, status: 422 } : c));
    await check('greenfield', greenfield);
  });

  it('at the OAuth token endpoint a broken body, no Host or an unknown path with a NUL answers RFC 6749', async () => {
    const json = { 'content-type': 'application/json' };
    await check('oauth', [
      { name: 'malformed JSON', method: 'POST', path: '/oauth/token', headers: json, body: '{"grant_type":', pauseBeforeBodyMs: 50, status: 400 },
      { name: 'a broken chunk size', method: 'POST', path: '/oauth/token', headers: { ...json, 'transfer-encoding': 'chunked' }, body: 'zz\r\n', pauseBeforeBodyMs: 50, status: 400 },
      { name: 'no Host header', method: 'POST', path: '/oauth/token', noHost: true, status: 400 },
      { name: 'a NUL character in the query of an unknown path', method: 'GET', path: '/oauth/nope?x=%00', status: 400 },
    ]);
  });

  it('on the wallet API every one answers the envelope', async () => {
    // DESIGN.md's table: 201 is HTTP 400 (also for 413 and 415), 999 is 404.
    const wallet = cases('/add_pub', '/nope').map((c) => ({ ...c, status: c.status === 417 || c.status === 404 ? c.status : 400 }));
    await check('wallet', wallet);
  });
});
