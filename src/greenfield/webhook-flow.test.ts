// Greenfield webhooks end to end against a bcoin regtest node: invoices paid exactly, partly (then expired) and
// too much produce BTCPay's events at a local merchant server, in order, each signed `BTCPay-Sig` as an independent
// HMAC computed here checks; the deliveries API lists them and redelivers one.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { satsFromBtc } from '../money/money.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

interface Received {
  signature: string;
  raw: string;
  body: Record<string, unknown>;
}

describe.each(testEngines())('Greenfield webhooks on %s', (engine) => {
  let t: TestApp;
  let merchant: Server;
  let hookUrl: string;
  let now = Date.now();
  const received: Received[] = [];
  let storeId: string;
  let key: string;
  let secret: string;
  let webhookId: string;

  beforeAll(async () => {
    merchant = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({ signature: String(req.headers['btcpay-sig'] ?? ''), raw, body: JSON.parse(raw) as Record<string, unknown> });
        if (String(req.url).includes('fail=1')) res.writeHead(500).end('down');
        else res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/?wc-api=btcpaygf_default`;
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: '40000.00' }), SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1' },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      clock: () => now,
      start: true,
    });
    await t.ctx.chains.pollNow();
    storeId = await addSandboxWallet(t.app, { account_name: 'Hook Shop' });
    key = await greenfieldKey(t.ctx, storeId);
    const created = await gf(t.app, key, 'POST', `/api/v1/stores/${storeId}/webhooks`, { url: hookUrl, enabled: true, automaticRedelivery: true, authorizedEvents: { everything: true } });
    expect(created.statusCode, created.body).toBe(200);
    const hook = created.json() as { id: string; secret: string; url: string; authorizedEvents: unknown };
    expect(hook.secret.length).toBeGreaterThanOrEqual(32);
    expect(hook).toMatchObject({ url: hookUrl, enabled: true, automaticRedelivery: true, authorizedEvents: { everything: true, specificEvents: [] } });
    secret = hook.secret;
    webhookId = hook.id;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => merchant?.close(r));
  });

  /** Creates an invoice and answers its id, address and amount due in BTC. */
  async function invoice(amount: string, currency: string, orderId: string) {
    const res = await gf(t.app, key, 'POST', `/api/v1/stores/${storeId}/invoices`, { amount, currency, metadata: { orderId }, checkout: { speedPolicy: 'MediumSpeed', expirationMinutes: 15 } });
    expect(res.statusCode, res.body).toBe(200);
    const inv = res.json() as { id: string; paymentReference: string };
    const pm = await gf(t.app, key, 'GET', `/api/v1/stores/${storeId}/invoices/${inv.id}/payment-methods`);
    expect(pm.statusCode, pm.body).toBe(200);
    const [method] = pm.json() as { destination: string; amount: string }[];
    return { id: inv.id, reference: inv.paymentReference, address: method!.destination, btc: method!.amount };
  }

  async function eventsOf(invoiceId: string, count: number): Promise<Received[]> {
    for (let i = 0; i < 200; i++) {
      await t.ctx.notify.worker.runOnce();
      const mine = received.filter((r) => r.body.invoiceId === invoiceId);
      if (mine.length >= count) return mine;
      await new Promise((r) => setTimeout(r, 50));
    }
    return received.filter((r) => r.body.invoiceId === invoiceId);
  }

  const hmac = (raw: string) => `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(raw, 'utf8')).digest('hex')}`;

  it('an exact payment: InvoiceCreated, InvoiceReceivedPayment, InvoiceProcessing, InvoicePaymentSettled, InvoiceSettled, each signed', async () => {
    const inv = await invoice('10.00', 'USD', 'order-1');
    const paid = await node.pay(decodeAddress(inv.address).script, satsFromBtc(inv.btc));
    await t.ctx.chains.pollNow();
    await node.mine(1);
    await t.ctx.chains.pollNow();
    const events = await eventsOf(inv.id, 5);
    expect(events.map((e) => e.body.type)).toEqual(['InvoiceCreated', 'InvoiceReceivedPayment', 'InvoiceProcessing', 'InvoicePaymentSettled', 'InvoiceSettled']);
    for (const e of events) {
      expect(e.signature).toBe(hmac(e.raw));
      expect(e.body).toMatchObject({ webhookId, isRedelivery: false, storeId, invoiceId: inv.id, metadata: { orderId: 'order-1' } });
      expect(e.body.originalDeliveryId).toBe(e.body.deliveryId);
      expect(Number.isInteger(e.body.timestamp)).toBe(true);
    }
    const [, receivedPayment, processing, paymentSettled, settled] = events.map((e) => e.body);
    expect(receivedPayment).toMatchObject({ afterExpiration: false, paymentMethodId: 'BTC-CHAIN', payment: { id: `${paid.txid}-${paid.vouts[0]}`, value: inv.btc, status: 'Processing', destination: inv.address } });
    expect(processing).toMatchObject({ overPaid: false });
    expect(paymentSettled).toMatchObject({ afterExpiration: false, paymentMethodId: 'BTC-CHAIN', payment: { id: `${paid.txid}-${paid.vouts[0]}`, status: 'Settled' } });
    expect(settled).toMatchObject({ manuallyMarked: false, overPaid: false });
    expect(typeof receivedPayment!.payment).toBe('object');
    expect(typeof (receivedPayment!.payment as { value: unknown }).value).toBe('string');

    // The same payment through payment API v1, with the same amounts.
    const v1 = await t.app.inject({ method: 'GET', url: `/api/v1/payment/${inv.reference}` });
    expect(v1.statusCode, v1.body).toBe(200);
    expect(v1.json()).toMatchObject({ status: 'confirmed', order_amount: 10, order_currency: 'USD', crypto_address: inv.address });
    expect(String((v1.json() as { confirmed_crypto_amount: number }).confirmed_crypto_amount)).toBe(String(Number(inv.btc)));

    // The deliveries API lists them newest first, and a redelivery points at the first delivery.
    const list = await gf(t.app, key, 'GET', `/api/v1/stores/${storeId}/webhooks/${webhookId}/deliveries?count=50`);
    expect(list.statusCode, list.body).toBe(200);
    const deliveries = list.json() as { id: string; status: string; httpCode: number; errorMessage: string }[];
    const ours = events.map((e) => String(e.body.deliveryId));
    expect(deliveries.filter((d) => ours.includes(d.id)).map((d) => d.id)).toEqual([...ours].reverse());
    for (const d of deliveries.filter((x) => ours.includes(x.id))) expect(d).toMatchObject({ status: 'HttpSuccess', httpCode: 200, errorMessage: '' });
    const one = await gf(t.app, key, 'GET', `/api/v1/stores/${storeId}/webhooks/${webhookId}/deliveries/${ours[4]}`);
    expect(one.json()).toMatchObject({ id: ours[4], status: 'HttpSuccess' });
    const request = await gf(t.app, key, 'GET', `/api/v1/stores/${storeId}/webhooks/${webhookId}/deliveries/${ours[4]}/request`);
    expect(request.body).toBe(events[4]!.raw);
    const again = await gf(t.app, key, 'POST', `/api/v1/stores/${storeId}/webhooks/${webhookId}/deliveries/${ours[4]}/redeliver`);
    expect(again.statusCode, again.body).toBe(200);
    const newId = again.json() as string;
    const redelivered = (await eventsOf(inv.id, 6))[5]!;
    expect(redelivered.body).toMatchObject({ type: 'InvoiceSettled', deliveryId: newId, originalDeliveryId: ours[4], isRedelivery: true });
    expect(redelivered.signature).toBe(hmac(redelivered.raw));
    const unknown = await gf(t.app, key, 'GET', `/api/v1/stores/${storeId}/webhooks/${webhookId}/deliveries/nope`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'webhookdelivery-not-found' });
  });

  it('a partial payment then expiry: InvoiceExpired with partiallyPaid true', async () => {
    const inv = await invoice('10.00', 'EUR', 'order-2');
    await node.pay(decodeAddress(inv.address).script, satsFromBtc(inv.btc) / 2n);
    await t.ctx.chains.pollNow();
    now += 16 * 60_000;
    await t.ctx.greenfieldHooks.generator.sweep(now);
    const events = await eventsOf(inv.id, 3);
    expect(events.map((e) => e.body.type)).toEqual(['InvoiceCreated', 'InvoiceReceivedPayment', 'InvoiceExpired']);
    expect(events[2]!.body).toMatchObject({ partiallyPaid: true, invoiceId: inv.id });
    for (const e of events) expect(e.signature).toBe(hmac(e.raw));
  });

  it('a payment still unconfirmed when monitoring ends: InvoiceInvalid (not marked); its later confirmation settles the invoice', async () => {
    const res = await gf(t.app, key, 'POST', `/api/v1/stores/${storeId}/invoices`, { amount: '7.00', currency: 'USD', metadata: { orderId: 'order-5' }, checkout: { expirationMinutes: 15, monitoringMinutes: 1 } });
    expect(res.statusCode, res.body).toBe(200);
    const invoiceId = (res.json() as { id: string }).id;
    const [method] = (await gf(t.app, key, 'GET', `/api/v1/stores/${storeId}/invoices/${invoiceId}/payment-methods`)).json() as { destination: string; amount: string }[];
    await node.pay(decodeAddress(method!.destination).script, satsFromBtc(method!.amount));
    await t.ctx.chains.pollNow();
    now += 17 * 60_000;
    await t.ctx.greenfieldHooks.generator.sweep(now);
    await node.mine(1);
    await t.ctx.chains.pollNow();
    const events = await eventsOf(invoiceId, 6);
    expect(events.map((e) => e.body.type)).toEqual(['InvoiceCreated', 'InvoiceReceivedPayment', 'InvoiceProcessing', 'InvoiceInvalid', 'InvoicePaymentSettled', 'InvoiceSettled']);
    expect(events[3]!.body).toMatchObject({ manuallyMarked: false });
    expect(events[4]!.body).toMatchObject({ afterExpiration: true });
  });

  it('an overpayment: InvoiceSettled with overPaid true', async () => {
    const inv = await invoice('0.0002', 'BTC', 'order-3');
    await node.pay(decodeAddress(inv.address).script, satsFromBtc(inv.btc) + 5_000n);
    await t.ctx.chains.pollNow();
    await node.mine(1);
    await t.ctx.chains.pollNow();
    const events = await eventsOf(inv.id, 5);
    expect(events.map((e) => e.body.type)).toEqual(['InvoiceCreated', 'InvoiceReceivedPayment', 'InvoiceProcessing', 'InvoicePaymentSettled', 'InvoiceSettled']);
    expect(events[2]!.body).toMatchObject({ overPaid: true });
    expect(events[4]!.body).toMatchObject({ overPaid: true, manuallyMarked: false });
  });

  it('a webhook with specific events receives only those; a disabled one nothing; a deleted one is gone', async () => {
    const only = await gf(t.app, key, 'POST', `/api/v1/stores/${storeId}/webhooks`, { url: `${hookUrl}&only=1`, authorizedEvents: { everything: false, specificEvents: ['InvoiceSettled'] }, secret: 'a-long-and-safe-secret-of-the-shop' });
    expect(only.statusCode, only.body).toBe(200);
    const onlyHook = only.json() as { id: string; secret: string };
    expect(onlyHook.secret).toBe('a-long-and-safe-secret-of-the-shop');
    const off = await gf(t.app, key, 'POST', `/api/v1/stores/${storeId}/webhooks`, { url: `${hookUrl}&off=1`, enabled: false });
    const offHook = off.json() as { id: string };
    const inv = await invoice('5.00', 'USD', 'order-4');
    await node.pay(decodeAddress(inv.address).script, satsFromBtc(inv.btc));
    await t.ctx.chains.pollNow();
    await node.mine(1);
    await t.ctx.chains.pollNow();
    await eventsOf(inv.id, 6);
    const byHook = (id: string) => received.filter((r) => r.body.invoiceId === inv.id && r.body.webhookId === id);
    expect(byHook(onlyHook.id).map((r) => r.body.type)).toEqual(['InvoiceSettled']);
    const settled = byHook(onlyHook.id)[0]!;
    expect(settled.signature).toBe(`sha256=${createHmac('sha256', 'a-long-and-safe-secret-of-the-shop').update(settled.raw).digest('hex')}`);
    expect(byHook(offHook.id)).toEqual([]);

    const list = await gf(t.app, key, 'GET', `/api/v1/stores/${storeId}/webhooks`);
    expect((list.json() as { id: string }[]).map((h) => h.id)).toEqual([webhookId, onlyHook.id, offHook.id]);
    expect(JSON.stringify(list.json())).not.toContain('secret');
    // The PHP client sends secret: null on every update: the secret stays.
    const put = await gf(t.app, key, 'PUT', `/api/v1/stores/${storeId}/webhooks/${onlyHook.id}`, { enabled: true, automaticRedelivery: false, url: `${hookUrl}&only=2`, secret: null, authorizedEvents: { everything: false, specificEvents: ['InvoiceSettled', 'InvoiceExpired'] } });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual({ id: onlyHook.id, enabled: true, automaticRedelivery: false, url: `${hookUrl}&only=2`, authorizedEvents: { everything: false, specificEvents: ['InvoiceSettled', 'InvoiceExpired'] } });
    const stored = await t.testDb.db.kysely.selectFrom('greenfield_webhooks').select('secret_sealed').where('public_id', '=', onlyHook.id).executeTakeFirstOrThrow();
    expect(t.masterKey.unseal(stored.secret_sealed).toString('utf8')).toBe('a-long-and-safe-secret-of-the-shop');
    expect(stored.secret_sealed).not.toContain('a-long-and-safe');
    expect((await gf(t.app, key, 'DELETE', `/api/v1/stores/${storeId}/webhooks/${offHook.id}`)).statusCode).toBe(200);
    const gone = await gf(t.app, key, 'GET', `/api/v1/stores/${storeId}/webhooks/${offHook.id}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ code: 'webhook-not-found' });
  });

  it('a failed delivery is retried on the outbox schedule, but tried once for a webhook without automatic redelivery', async () => {
    const mk = async (automaticRedelivery: boolean) =>
      (await gf(t.app, key, 'POST', `/api/v1/stores/${storeId}/webhooks`, { url: `${hookUrl}&fail=1&auto=${automaticRedelivery}`, automaticRedelivery, authorizedEvents: { everything: false, specificEvents: ['InvoiceCreated'] } })).json() as { id: string };
    const retried = await mk(true);
    const once = await mk(false);
    const inv = await invoice('3.00', 'USD', 'order-6');
    await eventsOf(inv.id, 3);
    for (const [hook, state, hasNext] of [[retried, 'pending', true], [once, 'failed', false]] as const) {
      const [d] = (await gf(t.app, key, 'GET', `/api/v1/stores/${storeId}/webhooks/${hook.id}/deliveries`)).json() as { id: string; status: string; httpCode: number; errorMessage: string }[];
      expect(d).toMatchObject({ status: 'HttpError', httpCode: 500, errorMessage: 'HTTP 500' });
      const row = await t.testDb.db.kysely.selectFrom('outbox').select(['state', 'attempts', 'next_attempt_at']).where('event_id', '=', d!.id).executeTakeFirstOrThrow();
      expect(row.state).toBe(state);
      expect(Number(row.attempts)).toBe(1);
      if (hasNext) expect(Number(row.next_attempt_at)).toBe(now + 60_000);
    }
    for (const hook of [retried, once]) await gf(t.app, key, 'DELETE', `/api/v1/stores/${storeId}/webhooks/${hook.id}`);
  });

  it('refuses internal, malformed and non-http URLs with 422 [{path, message}], and keys without the permission with 403', async () => {
    const strict = await createTestApp(engine, { testDb: undefined, env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }) } });
    try {
      const sid = await addSandboxWallet(strict.app);
      const k = await greenfieldKey(strict.ctx, sid);
      for (const url of ['http://127.0.0.1:9/hook', 'http://169.254.169.254/latest', 'ftp://shop.example/hook', 'not a url']) {
        const res = await gf(strict.app, k, 'POST', `/api/v1/stores/${sid}/webhooks`, { url });
        expect(res.statusCode, url).toBe(422);
        expect((res.json() as { path: string }[])[0]).toMatchObject({ path: 'url' });
      }
      const bad = await gf(strict.app, k, 'POST', `/api/v1/stores/${sid}/webhooks`, { url: 'https://shop.example/hook', enabled: 'yes' });
      expect(bad.statusCode).toBe(422);
      expect(Array.isArray(bad.json())).toBe(true);
      const viewer = await greenfieldKey(strict.ctx, sid, ['btcpay.store.canviewinvoices']);
      const refused = await gf(strict.app, viewer, 'GET', `/api/v1/stores/${sid}/webhooks`);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
      const other = await gf(strict.app, k, 'GET', `/api/v1/stores/test_someone_else/webhooks`);
      expect(other.statusCode).toBe(404);
      // The OpenAPI document lists the routes under the Greenfield tag.
      const doc = (await strict.app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, { tags?: string[] }>> };
      for (const [path, method] of [
        ['/api/v1/stores/{storeId}/webhooks', 'post'],
        ['/api/v1/stores/{storeId}/webhooks/{webhookId}', 'put'],
        ['/api/v1/stores/{storeId}/webhooks/{webhookId}/deliveries', 'get'],
        ['/api/v1/stores/{storeId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', 'post'],
        ['/api/v1/stores/{storeId}/pull-payments', 'post'],
      ] as const) {
        expect(doc.paths[path]?.[method]?.tags, path).toEqual(['Greenfield']);
      }
    } finally {
      await strict.close();
    }
  });
});
