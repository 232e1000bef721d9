// Bad input, as a careless client or an attacker sends it, over a real socket: every answer is a 4xx in the shape of
// the interface part it hit (wallet envelope with DESIGN.md's HTTP status, problem details, RFC 6749), with the
// right code, and nothing stored changes (a digest of every table before and after).
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import nacl from 'tweetnacl';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, tokenFor } from '../../test/support/payment-api.ts';
import { databaseDigest } from '../../test/support/db-digest.ts';
import { rawRequest, type RawAnswer } from '../../test/support/raw-http.ts';
import { sealRequestPayload } from '../../test/support/payload-client.ts';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';

// A sandbox key, so set_addr has a chain (the regtest node) to watch its addresses on.
const ZPUB = generateNewWallet(true).accountKey;

type Shape = 'envelope' | 'problem' | 'oauth';
interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  raw?: string | Buffer;
  expect: { status: number; shape: Shape; code?: string };
}

/** Checks an answer's shape; returns the code (wallet `return`, problem `type` tail, OAuth `error`). */
function shapeOf(res: RawAnswer, shape: Shape): string {
  const type = res.headers['content-type'] ?? '';
  const body = JSON.parse(res.body) as Record<string, unknown>;
  if (shape === 'envelope') {
    expect(type).toMatch(/^application\/json/);
    expect(Object.keys(body).sort()).toEqual(['return', 'status']);
    expect(typeof body.status).toBe('string');
    return String(body.return);
  }
  if (shape === 'problem') {
    expect(type).toMatch(/^application\/problem\+json/);
    expect(body).toMatchObject({ type: expect.any(String), title: expect.any(String), status: res.status });
    return String(body.type).split('/').pop()!;
  }
  expect(type).toMatch(/^application\/json/);
  expect(body).toMatchObject({ error: expect.any(String), error_description: expect.any(String) });
  return String(body.error);
}

describe.each(testEngines())('bad input on %s', (engine) => {
  let t: TestApp;
  let port: number;
  let apiId: string;
  let sandboxId: string;
  let token: string;
  let address: string;
  let serverBoxKey: string;
  let node: RegtestNode;

  beforeAll(async () => {
    node = await startRegtestNode();
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile() },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    const added = (await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: ZPUB, account_name: 'shop' } })).json();
    apiId = added.api_id;
    serverBoxKey = added.server_public_key;
    address = (await t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id: apiId } })).json().addr;
    expect(address).toBeTruthy();
    sandboxId = await addSandboxWallet(t.app);
    token = await tokenFor(t.app, await createClient(t.ctx, [sandboxId]));
    // Rates are stored; the watcher and refresher would change tables on their own from here on.
    await t.ctx.stopBackground();
  });
  afterAll(async () => {
    await t?.close();
    await node?.stop();
  });

  const json = { 'content-type': 'application/json' };
  const walletCases = (): Case[] => {
    const bad = (name: string, path: string, body: unknown, code = '201'): Case => ({
      name,
      method: 'POST',
      path,
      headers: json,
      body,
      expect: { status: code === '0' ? 200 : 400, shape: 'envelope', code },
    });
    const clientKey = nacl.box.keyPair().secretKey;
    const sealed = (obj: object) => sealRequestPayload(obj, serverBoxKey, clientKey);
    return [
      bad('add_pub renaming the account with account_name ["x"]', '/add_pub', { pub: ZPUB, account_name: ['x'] }),
      bad('add_pub with wallet_type "0x3"', '/add_pub', { pub: ZPUB, wallet_type: '0x3' }),
      bad('add_pub with wallet_type "3"', '/add_pub', { pub: ZPUB, wallet_type: '3' }),
      bad('add_pub with info 7', '/add_pub', { pub: ZPUB, info: 7 }),
      bad('add_pub with info null', '/add_pub', { pub: ZPUB, info: null }),
      bad('add_pub with return_url ["http://x"]', '/add_pub', { pub: ZPUB, return_url: ['http://x'] }),
      bad('add_pub with notification_email ["a@b.c"]', '/add_pub', { pub: ZPUB, notification_email: ['a@b.c'] }),
      bad('add_pub with a notification e-mail in spaces', '/add_pub', { pub: ZPUB, notification_email: ' a@b.example ' }, '308'),
      bad('add_pub with a return_url in spaces', '/add_pub', { pub: ZPUB, return_url: ' https://shop.example/hook' }),
      bad('add_pub with a loopback return_url', '/add_pub', { pub: ZPUB, return_url: 'http://127.0.0.1:19998/' }),
      bad('add_pub with a field the interface does not have', '/add_pub', { pub: ZPUB, admin: true }),
      bad('add_pub with the key in leading spaces', '/add_pub', { pub: ` ${ZPUB}` }, '102'),
      bad('add_pub with the key and a newline', '/add_pub', { pub: `${ZPUB}\n` }, '102'),
      bad('add_pub with local_currency btc', '/add_pub', { pub: ZPUB, local_currency: 'btc' }, '103'),
      bad('add_pub with local_currency "u$d"', '/add_pub', { pub: ZPUB, local_currency: 'u$d' }, '101'),
      bad('add_pub with currency " BTC"', '/add_pub', { pub: ZPUB, currency: ' BTC' }, '101'),
      bad('add_pub with pub 5', '/add_pub', { pub: 5 }),
      bad('add_pub with a body that is an array', '/add_pub', [ZPUB]),
      bad('set_addr with expiration "0x10"', '/set_addr', { api_id: apiId, expiration: '0x10' }),
      bad('set_addr with expiration 1e308', '/set_addr', { api_id: apiId, expiration: 1e308 }),
      bad('set_addr with expiration 16.5', '/set_addr', { api_id: apiId, expiration: 16.5 }),
      bad('set_addr with local_currency btc', '/set_addr', { api_id: apiId, local_currency: 'btc' }, '103'),
      bad('set_addr with local_currency xyz', '/set_addr', { api_id: apiId, local_currency: 'xyz' }, '103'),
      bad('set_addr with local_currency "12"', '/set_addr', { api_id: apiId, local_currency: '12' }, '101'),
      bad('set_addr with the api_id in spaces', '/set_addr', { api_id: ` ${apiId} ` }),
      bad('set_addr with api_id ["…"]', '/set_addr', { api_id: [apiId] }),
      bad('set_addr with a sealed payload without order_amount', '/set_addr', { api_id: apiId, ...sealed({ api_id: apiId, local_currency: 'usd' }) }),
      bad('set_addr with a sealed payload whose order_amount is a number', '/set_addr', {
        api_id: apiId,
        ...sealed({ api_id: apiId, local_currency: 'usd', order_amount: 10 }),
      }),
      bad('set_addr with payload ""', '/set_addr', { api_id: apiId, payload: '' }),
      bad('set_addr with payload "" and a client key', '/set_addr', { api_id: apiId, ...sealed({ api_id: apiId, local_currency: 'usd', order_amount: '1' }), payload: '' }),
      bad('set_addr with a sealed payload and public_key_shared ""', '/set_addr', { api_id: apiId, ...sealed({ api_id: apiId, local_currency: 'usd', order_amount: '1' }), public_key_shared: '' }),
      bad('set_addr with public_key_shared "" and no payload', '/set_addr', { api_id: apiId, public_key_shared: '' }),
      bad('set_addr with a public_key_shared that is not base64', '/set_addr', { api_id: apiId, public_key_shared: 'not a key' }),
      bad('set_addr with a public_key_shared of 16 bytes', '/set_addr', { api_id: apiId, public_key_shared: Buffer.alloc(16, 9).toString('base64') }),
      bad('set_addr with a weak (low-order) public_key_shared', '/set_addr', { api_id: apiId, public_key_shared: Buffer.alloc(32).toString('base64') }),
      bad('set_addr with a sealed payload in btc', '/set_addr', { api_id: apiId, ...sealed({ api_id: apiId, local_currency: 'btc', order_amount: '1' }) }, '103'),
      bad('addr_info with info null', '/addr_info', { address, info: null }),
      bad('addr_info with info 7', '/addr_info', { address, info: 7 }),
      bad('addr_info with the address in spaces', '/addr_info', { address: ` ${address}`, info: 'x' }),
      { name: 'exchange from "123"', method: 'GET', path: '/exchange/123/usd/1', expect: { status: 400, shape: 'envelope', code: '101' } },
      { name: 'exchange from "u$d"', method: 'GET', path: '/exchange/u%24d/usd/1', expect: { status: 400, shape: 'envelope', code: '101' } },
      { name: 'exchange from xyz (well-formed, unsupported)', method: 'GET', path: '/exchange/xyz/usd/1', expect: { status: 400, shape: 'envelope', code: '103' } },
      { name: 'exchange of " 1"', method: 'GET', path: '/exchange/usd/btc/%201', expect: { status: 400, shape: 'envelope', code: '201' } },
      { name: 'exchange_history from "12"', method: 'GET', path: '/exchange_history/12/usd/01-01-2024', expect: { status: 400, shape: 'envelope', code: '101' } },
      { name: 'balance of %zz', method: 'GET', path: '/balance/%zz', expect: { status: 400, shape: 'envelope', code: '201' } },
      { name: 'tx of %', method: 'GET', path: '/tx/%', expect: { status: 400, shape: 'envelope', code: '201' } },
      { name: 'wallet_type of %ff%fe', method: 'GET', path: '/wallet_type/%ff%fe', expect: { status: 400, shape: 'envelope', code: '201' } },
      { name: 'wallet_type of the key in spaces', method: 'GET', path: `/wallet_type/%20${ZPUB}`, expect: { status: 400, shape: 'envelope', code: '102' } },
      { name: 'a path parameter of 600 characters', method: 'GET', path: `/balance/${'a'.repeat(600)}`, expect: { status: 400, shape: 'envelope', code: '201' } },
      { name: 'headers over 16 KiB', method: 'GET', path: '/wallets', headers: { cookie: 'x'.repeat(20_000) }, expect: { status: 400, shape: 'envelope', code: '201' } },
      { name: 'a text/plain body', method: 'POST', path: '/add_pub', headers: { 'content-type': 'text/plain' }, raw: 'pub=x', expect: { status: 400, shape: 'envelope', code: '201' } },
      { name: 'malformed JSON', method: 'POST', path: '/add_pub', headers: json, raw: '{"pub": ', expect: { status: 400, shape: 'envelope', code: '201' } },
      { name: 'a body over 1 MiB', method: 'POST', path: '/add_pub', headers: json, raw: JSON.stringify({ pub: ZPUB, info: 'a'.repeat(1_100_000) }), expect: { status: 400, shape: 'envelope', code: '201' } },
      { name: 'an unknown method', method: 'FROB', path: '/wallets', expect: { status: 404, shape: 'envelope', code: '999' } },
      { name: 'DELETE on a POST operation', method: 'DELETE', path: '/add_pub', expect: { status: 404, shape: 'envelope', code: '999' } },
    ];
  };

  const paymentCases = (): Case[] => {
    const op26 = (name: string, over: Record<string, unknown>): Case => ({
      name,
      method: 'POST',
      path: '/api/v1/payment/request',
      headers: { ...json, authorization: `Bearer ${token}` },
      body: customRequest(sandboxId, over),
      expect: { status: 400, shape: 'problem', code: 'invalid-request' },
    });
    return [
      // A plain decimal string ("10") is an amount (issue 33); one in exponent notation is not.
      op26('order_amount "1e3" as a string', { order_amount: '1e3' }),
      op26('webhook_data "x"', { webhook_data: 'x' }),
      op26('webhook_data 5', { webhook_data: 5 }),
      op26('webhook_data [1,2]', { webhook_data: [1, 2] }),
      op26('webhook_data null', { webhook_data: null }),
      op26('payer_name null', { payer_name: null }),
      op26('api_id in spaces', { api_id: ` ${sandboxId}` }),
      op26('an unknown field', { discount_code: 'FREE' }),
      op26('order_currency btc', { order_currency: 'BTC' }),
      op26('order_amount 1e308', { order_amount: 1e308 }),
      { name: 'a reference of %zz', method: 'GET', path: '/api/v1/payment/%zz', expect: { status: 400, shape: 'problem', code: 'malformed-url' } },
      { name: 'a reference of 600 characters', method: 'GET', path: `/api/v1/payment/${'r'.repeat(600)}`, expect: { status: 400, shape: 'problem', code: 'malformed-url' } },
      { name: 'headers over 16 KiB', method: 'GET', path: '/api/v1/payment/x', headers: { cookie: 'x'.repeat(20_000) }, expect: { status: 431, shape: 'problem', code: 'headers-too-large' } },
      { name: 'a text/plain body', method: 'POST', path: '/api/v1/payment/request', headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` }, raw: 'x', expect: { status: 415, shape: 'problem', code: 'malformed-body' } },
      { name: 'malformed JSON', method: 'POST', path: '/api/v1/payment/request', headers: { ...json, authorization: `Bearer ${token}` }, raw: '{"type":', expect: { status: 400, shape: 'problem', code: 'malformed-body' } },
      { name: 'a body over 1 MiB', method: 'POST', path: '/api/v1/payment/request', headers: { ...json, authorization: `Bearer ${token}` }, raw: JSON.stringify({ x: 'a'.repeat(1_100_000) }), expect: { status: 413, shape: 'problem', code: 'payload-too-large' } },
      { name: 'PUT on the request operation', method: 'PUT', path: '/api/v1/payment/request', expect: { status: 404, shape: 'problem', code: 'no-such-operation' } },
      { name: 'an unknown method', method: 'FROB', path: '/api/v1/payment/request', expect: { status: 404, shape: 'problem', code: 'no-such-operation' } },
      { name: 'OAuth: malformed JSON', method: 'POST', path: '/oauth/token', headers: json, raw: '{"grant_type":', expect: { status: 400, shape: 'oauth', code: 'invalid_request' } },
      { name: 'OAuth: client_id as an array', method: 'POST', path: '/oauth/token', headers: json, body: { grant_type: 'client_credentials', client_id: ['a'], client_secret: 'b' }, expect: { status: 400, shape: 'oauth', code: 'invalid_request' } },
      { name: 'OAuth: headers over 16 KiB', method: 'POST', path: '/oauth/token', headers: { cookie: 'x'.repeat(20_000) }, expect: { status: 431, shape: 'oauth', code: 'invalid_request' } },
    ];
  };

  it('every bad wallet API request answers the envelope with its code and DESIGN.md status, and changes nothing', async () => {
    await check(walletCases());
  });

  it('every bad payment API or OAuth request answers problem details or RFC 6749, and changes nothing', async () => {
    await check(paymentCases());
  });

  async function check(cases: Case[]) {
    const failures: string[] = [];
    for (const c of cases) {
      const before = await databaseDigest(t.testDb.db);
      const body = c.raw ?? (c.body === undefined ? undefined : JSON.stringify(c.body));
      const res = await rawRequest(port, c.method, c.path, { headers: c.headers ?? {}, ...(body === undefined ? {} : { body }) });
      try {
        expect(res.status, res.body).toBe(c.expect.status);
        const code = shapeOf(res, c.expect.shape);
        if (c.expect.code) expect(code, res.body).toBe(c.expect.code);
        expect(await databaseDigest(t.testDb.db), 'stored data changed').toBe(before);
      } catch (err) {
        failures.push(`${c.name}: ${(err as Error).message.split('\n')[0]} (answer ${res.status} ${res.body.slice(0, 200)})`);
      }
    }
    expect(failures).toEqual([]);
  }
});
