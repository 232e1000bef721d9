import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';
import { parseExactJson, isJsonObject, numericText } from '../money/exact-json.ts';

const run = promisify(execFile);
const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };
const AMOUNT_FIELDS = ['unconfirmed_crypto', 'confirmed_crypto', 'unconfirmed_order', 'confirmed_order', 'crypto', 'order'];

describe.each(testEngines())('payment API v1 operations 26 to 29 on %s', (engine) => {
  let t: TestApp;
  let now = Date.now();
  let apiId: string;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile(), SATGATE_PUBLIC_URL: 'https://pay.example.com' },
      chains: DEAD_NODE,
      clock: () => now,
      start: true,
    });
    apiId = await addSandboxWallet(t.app, { account_name: 'Corner Shop' });
    token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a custom request answers the payment record with a locked rate, an exact crypto amount and a fresh address', async () => {
    const res = await postPayment(t.app, token, customRequest(apiId, { order_amount: 19.99, webhook_data: { order: 'A-17', n: 3 } }));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      payment_reference: expect.stringMatching(/^pay_[a-z2-7]{24}$/),
      crypto_currency: 'testBTC',
      crypto_address: expect.stringMatching(/^bcrt1q/),
      order_currency: 'USD',
      order_amount: 19.99,
      exchange_rate: 50000,
      // 19.99 / 50000 = 0.0003998 BTC exactly
      crypto_amount: 0.0003998,
      status: 'unpaid',
      site_name: 'Corner Shop',
      webhook_data: { order: 'A-17', n: 3 },
      cart: null,
    });
    expect(body.hosted_url).toBeUndefined();
    expect(Date.parse(body.expiry_date) - Date.parse(body.status_date)).toBe(900_000);
    expect(body.expiry_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    for (const f of AMOUNT_FIELDS) expect(body[`${f}_amt`]).toEqual(body[`${f}_amount`]);

    const second = (await postPayment(t.app, token, customRequest(apiId))).json();
    expect(second.crypto_address).not.toBe(body.crypto_address);
    expect(second.payment_reference).not.toBe(body.payment_reference);
  });

  it('crypto amounts round up to the satoshi so the merchant never receives less', async () => {
    const res = await postPayment(t.app, token, customRequest(apiId, { order_currency: 'EUR', order_amount: 10 }));
    // 10 / 46000.50 = 0.000217389...  → 21739 sats
    const body = parseExactJson(res.body);
    if (!isJsonObject(body)) throw new Error(res.body);
    expect(numericText(body.crypto_amount)).toBe('0.00021739');
    expect(numericText(body.exchange_rate)).toBe('46000.5');
  });

  it('a hosted request answers hosted_url on the public URL', async () => {
    const res = await postPayment(t.app, token, customRequest(apiId, { type: 'hosted', payer_ip: undefined, success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.hosted_url).toBe(`https://pay.example.com/pay/${body.payment_reference}`);
    const page = await t.ctx.payments.publicRecord(body.payment_reference);
    expect(page).toMatchObject({ reference: body.payment_reference, site_name: 'Corner Shop', success_url: 'https://shop.example/ok', status: 'unpaid' });
  });

  it('operation 27 answers every field of the record in both spellings; unknown references are 404 problems', async () => {
    const created = (await postPayment(t.app, token, customRequest(apiId, { cart: { items: [{ amount: 25, quantity: 1, label: 'Hat', sku: 'H1' }], shipping_cost: 0, shipping_discount: 0, tax_cost: 0 } }))).json();
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/payment/${created.payment_reference}` });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual(created);
    for (const key of ['payment_reference', 'crypto_currency', 'crypto_address', 'crypto_amount', 'order_currency', 'order_amount', 'exchange_rate', 'expiry_date',
      'unconfirmed_crypto_amount', 'confirmed_crypto_amount', 'unconfirmed_order_amount', 'confirmed_order_amount', 'status', 'status_date', 'webhook_data', 'site_name', 'cart']) {
      expect(body).toHaveProperty(key);
    }
    const missing = await t.app.inject({ method: 'GET', url: '/api/v1/payment/pay_doesnotexist' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/payment/pay_doesnotexist/qrcode' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/payment/pay_doesnotexist/exchange_rate' })).statusCode).toBe(404);
  });

  it('operation 28 draws a PNG of the width asked, 256 px by default, and refuses widths outside 64 to 1024', async () => {
    const created = (await postPayment(t.app, token, customRequest(apiId))).json();
    const url = `/api/v1/payment/${created.payment_reference}/qrcode`;
    const png = await t.app.inject({ method: 'GET', url });
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.rawPayload.readUInt32BE(16)).toBe(256);
    expect((await t.app.inject({ method: 'GET', url: `${url}?width=512` })).rawPayload.readUInt32BE(16)).toBe(512);
    for (const width of ['63', '1025', 'abc', '100.5']) {
      const bad = await t.app.inject({ method: 'GET', url: `${url}?width=${width}` });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual([{ field: 'width', message: expect.any(String) }]);
    }
  });

  it('operation 29 answers the indicative spot rate, BTC to the order currency, without authentication', async () => {
    const created = (await postPayment(t.app, token, customRequest(apiId, { order_currency: 'EUR', order_amount: 5 }))).json();
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/payment/${created.payment_reference}/exchange_rate` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ from_currency: 'testBTC', to_currency: 'EUR', exchange_rate: 46000.5 });
  });

  it('a status poll after its payment or wallet row changed answers the new record, never the one polled before', async () => {
    const created = (await postPayment(t.app, token, customRequest(apiId))).json();
    const url = `/api/v1/payment/${created.payment_reference}`;
    const before = await t.app.inject({ method: 'GET', url });
    expect(before.json()).toEqual(created);
    expect(before.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((await t.app.inject({ method: 'GET', url })).body).toBe(before.body);
    const { kysely } = t.testDb.db;
    await kysely.updateTable('payments').set({ unconfirmed_sats: 1n, status: 'unconfirmed-less' }).where('reference', '=', created.payment_reference).execute();
    const movedAnswer = await t.app.inject({ method: 'GET', url });
    const moved = movedAnswer.json();
    expect(moved).toMatchObject({ status: 'unconfirmed-less', unconfirmed_crypto_amount: 0.00000001, site_name: 'Corner Shop' });
    // Written as a plain decimal, as the interface shows amounts (JavaScript alone would write 1e-8).
    expect(movedAnswer.body).toContain('"unconfirmed_crypto_amount":0.00000001,');
    expect(movedAnswer.body).not.toMatch(/[0-9]e-/);
    const wallet = await kysely.selectFrom('wallets').select(['id', 'account_name']).where('api_id', '=', apiId).executeTakeFirstOrThrow();
    await kysely.updateTable('wallets').set({ account_name: 'Renamed Shop' }).where('id', '=', wallet.id).execute();
    try {
      expect((await t.app.inject({ method: 'GET', url })).json()).toMatchObject({ status: 'unconfirmed-less', site_name: 'Renamed Shop' });
    } finally {
      await kysely.updateTable('wallets').set({ account_name: wallet.account_name }).where('id', '=', wallet.id).execute();
    }
  });

  it('an unpaid request past its monitoring window becomes invalid, loses its address and QR code', async () => {
    const created = (await postPayment(t.app, token, customRequest(apiId))).json();
    // Polled while unpaid first, so the answer after the window cannot be the one polled before it.
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/payment/${created.payment_reference}` })).json().status).toBe('unpaid');
    now += 24 * 3_600_000;
    try {
      const body = (await t.app.inject({ method: 'GET', url: `/api/v1/payment/${created.payment_reference}` })).json();
      expect(body.status).toBe('invalid');
      expect(body.crypto_address).toBe('');
      const qr = await t.app.inject({ method: 'GET', url: `/api/v1/payment/${created.payment_reference}/qrcode` });
      expect(qr.statusCode).toBe(410);
      expect(qr.headers['content-type']).toMatch(/^application\/problem\+json/);
      const payment = await t.testDb.db.kysely.selectFrom('payments').select('id').where('reference', '=', created.payment_reference).executeTakeFirstOrThrow();
      const transitions = await t.testDb.db.kysely.selectFrom('payment_transitions').selectAll().where('payment_id', '=', payment.id).orderBy('id').execute();
      expect(transitions.map((x) => [x.from_status, x.to_status, x.cause])).toEqual([
        [null, 'unpaid', 'created'],
        ['unpaid', 'invalid', 'monitor-window'],
      ]);
      // The sweeper finds the others that are due.
      await t.ctx.payments.machine.sweep();
      const left = await t.testDb.db.kysely.selectFrom('payments').select('id').where('status', '=', 'unpaid').execute();
      expect(left).toEqual([]);
    } finally {
      now = Date.now();
    }
  });

  describe('Idempotency-Key', () => {
    it('the same key and body within 24 h answer the first response again; another body is 422', async () => {
      const body = customRequest(apiId, { order_amount: 12.5 });
      const first = await postPayment(t.app, token, body, { 'idempotency-key': 'order-1' });
      expect(first.statusCode, first.body).toBe(200);
      // Same body, other key order and number spelling: the same request.
      const again = await postPayment(t.app, token, JSON.stringify({ ...Object.fromEntries(Object.entries(body).reverse()), order_amount: 12.50 }).replace('12.5', '1.250e1'), { 'idempotency-key': 'order-1' });
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
      const other = await postPayment(t.app, token, customRequest(apiId, { order_amount: 13 }), { 'idempotency-key': 'order-1' });
      expect(other.statusCode).toBe(422);
      expect(other.headers['content-type']).toMatch(/^application\/problem\+json/);

      // A day later the key is forgotten: the same key makes a new payment.
      await t.testDb.db.kysely.updateTable('idempotency_keys').set({ created_at: BigInt(now - 24 * 3_600_000) }).where('key', '=', 'order-1').execute();
      const later = await postPayment(t.app, token, body, { 'idempotency-key': 'order-1' });
      expect(later.statusCode).toBe(200);
      expect(later.json().payment_reference).not.toBe(first.json().payment_reference);
    });

    it('50 concurrent identical requests create one payment', async () => {
      const before = await t.testDb.db.kysely.selectFrom('payments').select('id').execute();
      const body = customRequest(apiId, { order_amount: 7 });
      const answers = await Promise.all(Array.from({ length: 50 }, () => postPayment(t.app, token, body, { 'idempotency-key': 'burst-50' })));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(50).fill(200));
      expect(new Set(answers.map((a) => a.json().payment_reference)).size).toBe(1);
      const after = await t.testDb.db.kysely.selectFrom('payments').select('id').execute();
      expect(after.length - before.length).toBe(1);
    });

    it('a malformed key is a 400 problem', async () => {
      const res = await postPayment(t.app, token, customRequest(apiId), { 'idempotency-key': 'x'.repeat(256) });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].field).toBe('Idempotency-Key');
    });
  });

  it('satgate client create --json prints exactly client_id, client_secret and webhook_secret, and the client works', async () => {
    const keyFile = join(mkdtempSync(join(tmpdir(), 'satgate-key-')), 'master.key');
    writeFileSync(keyFile, `${'07'.repeat(32)}\n`, { mode: 0o600 });
    const bin = new URL('../../bin/satgate.js', import.meta.url).pathname;
    const env = { ...process.env, ...t.testDb.env, SATGATE_MASTER_KEY_FILE: keyFile, LOG_LEVEL: 'silent' };
    const { stdout } = await run(process.execPath, [bin, 'client', 'create', '--api-id', apiId, '--json'], { env });
    const printed = JSON.parse(stdout) as Record<string, string>;
    expect(Object.keys(printed).sort()).toEqual(['client_id', 'client_secret', 'webhook_secret']);
    const fresh = await tokenFor(t.app, { client_id: printed.client_id!, client_secret: printed.client_secret! });
    expect((await postPayment(t.app, fresh, customRequest(apiId))).statusCode).toBe(200);

    const rotated = await run(process.execPath, [bin, 'webhook-secret', 'rotate', apiId], { env });
    const secret = rotated.stdout.trim();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(printed.webhook_secret);
    const wallet = await t.ctx.wallets.repo.findByApiId(apiId);
    const { WebhookSender } = await import('../notify/webhook-sender.ts');
    const signing = await new WebhookSender(t.testDb.db, t.masterKey, true).secretsFor(wallet!.id, Date.now());
    expect(signing).toEqual([secret, printed.webhook_secret]);
    expect(await new WebhookSender(t.testDb.db, t.masterKey, true).secretsFor(wallet!.id, Date.now() + 24 * 3_600_000 + 1000)).toEqual([secret]);
  });
});
