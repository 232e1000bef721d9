// Amounts beyond the one bound (src/money/amount-bounds.ts: at most 21,000,000 BTC; a fiat amount at most 15 digits
// before the point and worth at most 21,000,000 BTC at the rate) on every face that takes one: each is refused with
// that face's validation error (wallet envelope 201, problem details with the field, Greenfield 422 with the path),
// never a 500 from the database driver, and nothing stored changes. Amounts at the bound are taken.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import nacl from 'tweetnacl';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { createClient, customRequest, tokenFor } from '../../test/support/payment-api.ts';
import { databaseDigest } from '../../test/support/db-digest.ts';
import { sealRequestPayload } from '../../test/support/payload-client.ts';
import { greenfieldKey } from '../../test/support/greenfield.ts';
import { sessionOwning } from '../../test/support/refund-fixtures.ts';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { POLICIES } from '../greenfield/permissions.ts';

const REGTEST_ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
/** What a refusal says: the 21,000,000 BTC cap or the fiat digit limit. */
const REASON = /21000000 BTC|at most 15 digits/;

type Face = 'envelope' | 'problem' | 'greenfield';
interface Case {
  name: string;
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  /** JSON text, so numbers are sent exactly as written. */
  body?: string;
  face: Face;
  /** The field the problem or Greenfield error names. */
  field?: string;
}

describe.each(testEngines())('out-of-range amounts on %s', (engine) => {
  let t: TestApp;
  let node: RegtestNode;
  let apiId: string;
  let serverBoxKey: string;
  let token: string;
  let gfKey: string;
  let session: string;
  let merchant: { merchant_api_id: string; withdrawal_auth_key: string };

  beforeAll(async () => {
    node = await startRegtestNode();
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile() },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    const added = (await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey, account_name: 'shop', local_currency: 'USD' } })).json();
    apiId = added.api_id;
    serverBoxKey = added.server_public_key;
    token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
    gfKey = await greenfieldKey(t.ctx, apiId, Object.values(POLICIES));
    const wallet = await t.ctx.wallets.repo.findByApiId(apiId);
    session = await sessionOwning(t.ctx, 'owner@example.com', [wallet!.id]);
    const partnerKey = (await t.ctx.partners.keys.create({ name: 'Market', test: true, settlementAddress: REGTEST_ADDRESS }, Date.now())).partnerAuthKey;
    merchant = (
      await t.app.inject({
        method: 'POST',
        url: '/partner_merchant_wallet',
        payload: {
          partner_auth_key: partnerKey,
          merchant_name: 'Café Nord',
          partner_merchant_id: 'm-1',
          contact: { email: 'owner@cafe-nord.example', phone: '+4930123456' },
          bank_info: { iban: 'DE89370400440532013000', holder: 'Café Nord GmbH' },
          local_currency: 'eur',
        },
      })
    ).json();
    // Approved, so a quote reaches pricing (approval itself is partner-api.test.ts's subject).
    await t.ctx.db.kysely.updateTable('partner_wallets').set({ wallet_status: 'active' }).execute();
    // Rates are stored; the watcher and refresher would change tables on their own from here on.
    await t.ctx.stopBackground();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await node?.stop();
  });

  const json = { 'content-type': 'application/json' };
  const gfHeaders = () => ({ ...json, authorization: `token ${gfKey}` });
  const invoice = (amount: string, currency: string, field = 'amount'): Case => ({
    name: `Greenfield invoice ${amount} ${currency}`,
    method: 'POST',
    url: `/api/v1/stores/${apiId}/invoices`,
    headers: gfHeaders(),
    body: `{"amount":${amount},"currency":"${currency}"}`,
    face: 'greenfield',
    field,
  });
  const payment = (amount: string): Case => ({
    name: `payment API order_amount ${amount}`,
    method: 'POST',
    url: '/api/v1/payment/request',
    headers: { ...json, authorization: `Bearer ${token}` },
    body: JSON.stringify(customRequest(apiId)).replace('"order_amount":25', `"order_amount":${amount}`),
    face: 'problem',
    field: 'order_amount',
  });
  const form = (amount: string): Case => ({
    name: `payment_form order_amount ${amount}`,
    method: 'POST',
    url: '/payment_form',
    headers: json,
    body: `{"api_id":"${apiId}","order_id":"o-1","order_amount":${amount},"order_currency":"USD","payment_cancel_url":"https://shop.example/cancel","payment_complete_url":"https://shop.example/done","payment_update_url":"https://shop.example/update","site_name":"Shop"}`,
    face: 'envelope',
  });
  const setAddr = (amount: string): Case => {
    const sealed = sealRequestPayload({ api_id: apiId, local_currency: 'usd', order_amount: amount }, serverBoxKey, nacl.box.keyPair().secretKey);
    return { name: `set_addr payload order_amount ${amount}`, method: 'POST', url: '/set_addr', headers: json, body: JSON.stringify({ api_id: apiId, ...sealed }), face: 'envelope' };
  };
  const quote = (amount: string): Case => ({
    name: `withdrawal_quote amount ${amount}`,
    method: 'GET',
    url: `/withdrawal_quote?merchant_api_id=${merchant.merchant_api_id}&withdrawal_auth_key=${merchant.withdrawal_auth_key}&amount=${amount}`,
    face: 'envelope',
  });
  const refund = (amount: string): Case => ({
    name: `refund_request refund_amount ${amount}`,
    method: 'POST',
    url: '/refund_request',
    headers: { ...json, authorization: session },
    body: JSON.stringify({ tx_id: 'ab'.repeat(32), refund_amount: amount }),
    face: 'envelope',
  });
  const exchange = (from: string, to: string, amount: string): Case => ({ name: `exchange ${amount} ${from} to ${to}`, method: 'GET', url: `/exchange/${from}/${to}/${amount}`, face: 'envelope' });

  const cases = (): Case[] => [
    // The case: 10^17 BTC reached the BIGINT column and the driver's RangeError answered 500.
    invoice('"100000000000000000"', 'BTC'),
    invoice('"21000000.00000001"', 'BTC'),
    invoice('2100000000000001', 'SATS'),
    invoice('"1000000000000000"', 'USD'),
    invoice('1e30', 'USD'),
    // Within 15 digits, but a satoshi more than 21,000,000 BTC at 50,000 USD.
    invoice('"1050000000000.01"', 'USD'),
    {
      name: 'Greenfield pull payment 21000000.00000001 BTC',
      method: 'POST',
      url: `/api/v1/stores/${apiId}/pull-payments`,
      headers: gfHeaders(),
      body: '{"name":"Refund of order 1","amount":"21000000.00000001","currency":"BTC"}',
      face: 'greenfield',
      field: 'amount',
    },
    payment('100000000000000000'),
    payment('1000000000000000'),
    payment('1050000000000.01'),
    form('100000000000000000'),
    form('"1050000000000.01"'),
    setAddr('100000000000000000'),
    setAddr('1050000000000.01'),
    quote('1000000000000000'),
    quote('999999999999999'),
    refund('21000000.00000001'),
    refund('9999999999999999'),
    exchange('usd', 'btc', '1050000000000.01'),
    exchange('btc', 'usd', '21000000.00000001'),
    exchange('usd', 'eur', '1000000000000000'),
  ];

  it('every face refuses an amount beyond 21,000,000 BTC (or 15 fiat digits) with its own validation error, and changes nothing', async () => {
    const failures: string[] = [];
    for (const c of cases()) {
      const before = await databaseDigest(t.testDb.db);
      const res = await t.app.inject({ method: c.method, url: c.url, headers: c.headers ?? {}, ...(c.body === undefined ? {} : { payload: c.body }) });
      try {
        const type = res.headers['content-type'] ?? '';
        const body = res.json() as Record<string, unknown> & { errors?: { field: string; message: string }[] };
        if (c.face === 'envelope') {
          expect(res.statusCode).toBe(400);
          expect(body.return ?? body.result).toBe('201');
          expect(String(body.status)).toMatch(REASON);
        } else if (c.face === 'problem') {
          expect(res.statusCode).toBe(400);
          expect(type).toMatch(/^application\/problem\+json/);
          expect(String(body.type)).toMatch(/\/problems\/invalid-request$/);
          expect(body.errors).toEqual([{ field: c.field, message: expect.stringMatching(REASON) }]);
        } else {
          expect(res.statusCode).toBe(422);
          expect(body).toEqual([{ path: c.field, message: expect.stringMatching(REASON) }]);
        }
        expect(await databaseDigest(t.testDb.db), 'stored data changed').toBe(before);
      } catch (err) {
        failures.push(`${c.name}: ${(err as Error).message.split('\n')[0]} (answer ${res.statusCode} ${res.body.slice(0, 240)})`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('every face refuses an order or payout worth less than the dust limit (546 sat) with its own validation error, and changes nothing', async () => {
    const DUST = /less than 0\.00000546 BTC \(546 sat\)/;
    const failures: string[] = [];
    // 0.01 USD is 20 sat at 50,000 USD; 0.01 EUR 22 sat at 46,000.50 EUR.
    for (const c of [invoice('"0.01"', 'USD'), invoice('"0.00000001"', 'BTC'), invoice('1', 'SATS'), payment('0.01'), payment('"0.01"'), form('0.01'), form('"0.01"'), setAddr('0.01'), quote('0.01')]) {
      const before = await databaseDigest(t.testDb.db);
      const res = await t.app.inject({ method: c.method, url: c.url, headers: c.headers ?? {}, ...(c.body === undefined ? {} : { payload: c.body }) });
      try {
        const body = res.json() as Record<string, unknown> & { errors?: { field: string; message: string }[] };
        if (c.face === 'envelope') {
          expect(res.statusCode).toBe(400);
          expect(body.return ?? body.result).toBe('201');
          expect(String(body.status)).toMatch(DUST);
        } else if (c.face === 'problem') {
          expect(res.statusCode).toBe(400);
          expect(body.errors).toEqual([{ field: c.field, message: expect.stringMatching(DUST) }]);
        } else {
          expect(res.statusCode).toBe(422);
          expect(body).toEqual([{ path: c.field, message: expect.stringMatching(DUST) }]);
        }
        expect(await databaseDigest(t.testDb.db), 'stored data changed').toBe(before);
      } catch (err) {
        failures.push(`${c.name}: ${(err as Error).message.split('\n')[0]} (answer ${res.statusCode} ${res.body.slice(0, 240)})`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('amounts at the bound are taken: 21,000,000 BTC, and the fiat amount worth exactly that', async () => {
    for (const c of [invoice('"21000000"', 'BTC'), invoice('"1050000000000"', 'USD')]) {
      const res = await t.app.inject({ method: c.method, url: c.url, headers: c.headers ?? {}, payload: c.body });
      expect(res.statusCode, res.body).toBe(200);
    }
    const paid = await t.app.inject({ method: 'POST', url: '/api/v1/payment/request', headers: { ...json, authorization: `Bearer ${token}` }, payload: payment('1050000000000').body });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().crypto_amount).toBe(21000000);
  });
});
