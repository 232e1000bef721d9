// The WooCommerce plugin's conversation with its BTCPay Server ("BTCPay for WooCommerce V2",
// btcpayserver/woocommerce-greenfield-plugin, through btcpayserver/btcpayserver-greenfield-php), replayed in the
// order the plugin makes it, over real HTTP against the real app and a bcoin regtest node; every answer is checked
// against schemas written from BTCPay's OpenAPI document (test/support/greenfield-openapi.ts), decimals as strings.
//
// Read from the plugin's source: GlobalSettings::save (key check: hasSingleStore, hasRequiredPermissions with the
// exact permission set, hasRefundsPermission; server info: fullySynched, version ≥ 1.7.6; GreenfieldApiWebhook::
// webhookExists with the stored webhook id, then registerWebhook; StorePaymentMethod::getPaymentMethods),
// AbstractGateway::createInvoice (the body the PHP client's Invoice::createInvoice sends, nulls included),
// validInvoiceExists (invoice read), processWebhook/processOrderStatus (BTCPay-Sig check with hash_hmac, then
// updateWCOrderPayments: payment-methods read after InvoiceReceivedPayment, InvoicePaymentSettled, InvoiceSettled),
// markInvoiceInvalid, process_refund (server version, key permission, PullPayment::createPullPayment).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type, type TSchema } from '@sinclair/typebox';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { greenfieldKey } from '../../test/support/greenfield.ts';
import * as OAS from '../../test/support/greenfield-openapi.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { satsFromBtc } from '../money/money.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

/** The plugin's GreenfieldApiAuthorization::REQUIRED_PERMISSIONS and OPTIONAL_PERMISSIONS. */
const REQUIRED = ['btcpay.store.canviewinvoices', 'btcpay.store.cancreateinvoice', 'btcpay.store.canviewstoresettings', 'btcpay.store.canmodifyinvoices'];
const OPTIONAL = ['btcpay.store.cancreatenonapprovedpullpayments', 'btcpay.store.webhooks.canmodifywebhooks'];
/** GreenfieldApiWebhook::WEBHOOK_EVENTS. */
const WEBHOOK_EVENTS = ['InvoiceReceivedPayment', 'InvoicePaymentSettled', 'InvoiceProcessing', 'InvoiceExpired', 'InvoiceSettled', 'InvoiceInvalid'];

/** PHP's version_compare($a, $b, '<') for plain dotted numbers. */
function versionLess(a: string, b: string): boolean {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  }
  return false;
}

interface Hook {
  signature: string;
  raw: string;
  body: Record<string, unknown>;
}

describe.each(testEngines())('the WooCommerce plugin’s conversation on %s', (engine) => {
  let t: TestApp;
  let origin: string;
  let shop: Server;
  let shopUrl: string;
  const hooks: Hook[] = [];
  let storeId: string;
  let apiKey: string;

  beforeAll(async () => {
    shop = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        hooks.push({ signature: String(req.headers['btcpay-sig'] ?? ''), raw, body: JSON.parse(raw) as Record<string, unknown> });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
      });
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ EUR: '40000.00', USD: '50000.00' }), SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1' },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await t.ctx.chains.pollNow();
    storeId = await addSandboxWallet(t.app, { account_name: 'Woo Shop' });
    apiKey = await greenfieldKey(t.ctx, storeId);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => shop?.close(r));
  });

  /** One call as the PHP client makes it: `Authorization: token <key>`, JSON body; answers status and parsed body. */
  async function call(method: string, path: string, body?: string, key = apiKey): Promise<{ status: number; json: unknown }> {
    const res = await fetch(`${origin}/api/v1/${path}`, {
      method,
      headers: { authorization: `token ${key}`, 'content-type': 'application/json', accept: 'application/json' },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.text();
    return { status: res.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
  }

  /** A call the PHP client accepts only with 200, its answer valid against the schema. */
  async function ok(schema: TSchema, method: string, path: string, body?: string): Promise<any> {
    const res = await call(method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.json)}`).toBe(200);
    expect(OAS.schemaErrors(schema, res.json), `${method} ${path}`).toEqual([]);
    return res.json;
  }

  /** Waits for the shop to have received `n` webhooks about the invoice. */
  async function hooksOf(invoiceId: string, n: number): Promise<Hook[]> {
    for (let i = 0; i < 200; i++) {
      const mine = hooks.filter((h) => h.body.invoiceId === invoiceId);
      if (mine.length >= n) return mine;
      await t.ctx.notify.worker.runOnce();
      await new Promise((r) => setTimeout(r, 50));
    }
    return hooks.filter((h) => h.body.invoiceId === invoiceId);
  }

  /** Webhook::isIncomingWebhookRequestValid: 'sha256=' . hash_hmac('sha256', $body, $secret), compared with hash_equals. */
  const phpValid = (raw: string, header: string, secret: string) => {
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
    const given = Buffer.from(header);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };

  it('settings, webhook, checkout, payment, webhooks with payment reads, refund and mark invalid all answer what the plugin reads', async () => {
    // GlobalSettings::save: ApiKey::getCurrent, then the plugin's permission checks.
    const current = await ok(OAS.ApiKeyData, 'GET', 'api-keys/current');
    const permissions = current.permissions as string[];
    const stores = new Set(permissions.map((p) => p.split(':')[1]));
    expect(permissions.every((p) => p.split(':').length === 2) && stores.size === 1).toBe(true); // hasSingleStore
    expect(permissions[0]!.split(':')[1]).toBe(storeId); // getStoreID
    const names = permissions.map((p) => p.split(':')[0]!).filter((p) => !OPTIONAL.includes(p));
    expect([...new Set(names)].sort()).toEqual([...REQUIRED].sort()); // hasRequiredPermissions: exactly these
    expect(permissions.map((p) => p.split(':')[0])).toContain('btcpay.store.cancreatenonapprovedpullpayments'); // hasRefundsPermission

    // GreenfieldApiHelper::getServerInfo.
    const info = await ok(OAS.ServerInfo, 'GET', 'server/info');
    expect(Number(info.fullySynched)).toBe(1);
    expect(versionLess(info.version, '1.7.6')).toBe(false);

    // webhookExists: a webhook id stored by an earlier installation is looked up first; unknown here.
    const stale = await call('GET', `stores/${storeId}/webhooks/4vFqYbW2rYkR9C7p1nZq8m`);
    expect(stale.status).toBe(404);
    expect(OAS.schemaErrors(OAS.ApiError, stale.json)).toEqual([]);
    // registerWebhook: Webhook::createWebhook($storeId, api_request_url('btcpaygf_default'), WEBHOOK_EVENTS, null).
    const webhookUrl = `${shopUrl}/?wc-api=btcpaygf_default`;
    const created = await ok(
      OAS.WebhookCreated,
      'POST',
      `stores/${storeId}/webhooks`,
      JSON.stringify({ enabled: true, automaticRedelivery: true, url: webhookUrl, authorizedEvents: { everything: false, specificEvents: WEBHOOK_EVENTS } }),
    );
    const stored = { id: created.id as string, secret: created.secret as string, url: created.url as string };
    // The next settings save finds it: same id, URL containing the stored one.
    const again = await ok(OAS.WebhookData, 'GET', `stores/${storeId}/webhooks/${stored.id}`);
    expect(again.id).toBe(stored.id);
    expect((again.url as string).includes(stored.url)).toBe(true);
    expect(again.authorizedEvents).toEqual({ everything: false, specificEvents: WEBHOOK_EVENTS });

    // At least one payment method: StorePaymentMethod::getPaymentMethods; the plugin makes gateway symbols of them.
    const methods = (await ok(Type.Array(OAS.StorePaymentMethod), 'GET', `stores/${storeId}/payment-methods`)) as Record<string, unknown>[];
    expect(methods.length).toBeGreaterThan(0);
    const symbols = methods.filter((m) => m.enabled === true).map((m) => String(m.paymentMethod ?? m.paymentMethodId).replace(/-/g, '_'));
    expect(symbols).toContain('BTC_CHAIN');

    // AbstractGateway::createInvoice through Invoice::createInvoice: amount as a string, metadata with posData (a JSON
    // string), orderUrl, taxIncluded and the order number as orderId, and every checkout option, null when unset.
    const posData = JSON.stringify({ WooCommerce: { 'Order ID': 123, 'Order Number': '123', 'Order URL': 'https://shop.example/wp-admin/post.php?post=123&action=edit', 'Plugin Version': '2.7.1' } });
    const invoiceBody =
      '{"amount":"12.34","currency":"EUR","metadata":{"taxIncluded":"1.97","posData":' + JSON.stringify(posData) +
      ',"orderUrl":"https:\\/\\/shop.example\\/wp-admin\\/post.php?post=123&action=edit","orderId":"123"},' +
      '"checkout":{"speedPolicy":null,"paymentMethods":' + JSON.stringify(symbols) + ',"expirationMinutes":null,"monitoringMinutes":null,' +
      '"paymentTolerance":null,"redirectURL":"https:\\/\\/shop.example\\/checkout\\/order-received\\/123\\/?key=wc_order_abc","redirectAutomatically":null,"defaultLanguage":null}}';
    const invoice = await ok(OAS.InvoiceData, 'POST', `stores/${storeId}/invoices`, invoiceBody);
    expect(invoice).toMatchObject({ amount: '12.34', currency: 'EUR', status: 'New', additionalStatus: 'None', storeId });
    expect(invoice.metadata).toEqual({ taxIncluded: '1.97', posData, orderUrl: 'https://shop.example/wp-admin/post.php?post=123&action=edit', orderId: '123' });
    expect(invoice.checkout.redirectURL).toBe('https://shop.example/checkout/order-received/123/?key=wc_order_abc');
    const invoiceId = invoice.id as string;
    // The shopper is sent to checkoutLink, which leads to the hosted page.
    const checkout = await fetch(invoice.checkoutLink.replace(/^https?:\/\/[^/]+/, origin), { redirect: 'manual' });
    expect([301, 302, 303, 307, 308]).toContain(checkout.status);

    // validInvoiceExists on a retried checkout: Invoice::getInvoice, status and checkout.paymentMethods read.
    const read = await ok(OAS.InvoiceData, 'GET', `stores/${storeId}/invoices/${invoiceId}`);
    expect(read.status).toBe('New');
    expect(Array.isArray(read.checkout.paymentMethods)).toBe(true);

    // The shopper pays what the payment method asks.
    const [method] = (await ok(Type.Array(OAS.InvoicePaymentMethod), 'GET', `stores/${storeId}/invoices/${invoiceId}/payment-methods`)) as any[];
    expect(method.due).toBe(method.amount);
    const paid = await node.pay(decodeAddress(method.destination).script, satsFromBtc(method.amount));
    await t.ctx.chains.pollNow();
    await node.mine(1);
    await t.ctx.chains.pollNow();

    // processWebhook: each signed as the PHP client checks; processOrderStatus reads payment methods after three of them.
    const received = await hooksOf(invoiceId, 4);
    expect(received.map((h) => h.body.type)).toEqual(['InvoiceReceivedPayment', 'InvoiceProcessing', 'InvoicePaymentSettled', 'InvoiceSettled']);
    for (const hook of received) {
      expect(phpValid(hook.raw, hook.signature, stored.secret)).toBe(true);
      expect(OAS.schemaErrors(OAS.WebhookEvents[String(hook.body.type)]!, hook.body), String(hook.body.type)).toEqual([]);
      expect(hook.body.webhookId).toBe(stored.id);
      if (['InvoiceReceivedPayment', 'InvoicePaymentSettled', 'InvoiceSettled'].includes(String(hook.body.type))) {
        const [pm] = (await ok(Type.Array(OAS.InvoicePaymentMethod), 'GET', `stores/${storeId}/invoices/${invoiceId}/payment-methods`)) as any[];
        expect(Number(pm.paymentMethodPaid)).toBeGreaterThan(0);
        expect(pm.totalPaid).toBe(pm.amount);
        expect(pm.payments.map((p: { id: string }) => p.id.split('-')[0])).toEqual([paid.txid]);
      }
    }
    expect(received[1]!.body.overPaid).toBe(false);
    expect(received[3]!.body).toMatchObject({ manuallyMarked: false, overPaid: false });
    const settled = await ok(OAS.InvoiceData, 'GET', `stores/${storeId}/invoices/${invoiceId}`);
    expect(settled.status).toBe('Settled'); // invoiceIsFullyPaid

    // process_refund: server version, key permission, then PullPayment::createPullPayment as the plugin calls it.
    expect(versionLess((await ok(OAS.ServerInfo, 'GET', 'server/info')).version, '1.7.6')).toBe(false);
    expect(((await ok(OAS.ApiKeyData, 'GET', 'api-keys/current')).permissions as string[]).some((p) => p.startsWith('btcpay.store.cancreatenonapprovedpullpayments:'))).toBe(true);
    const refundBody = JSON.stringify({
      name: 'Refund of order 123; Customer changed mind',
      description: null,
      amount: '5.00',
      currency: 'EUR',
      period: null,
      BOLT11Expiration: null,
      autoApproveClaims: false,
      startsAt: null,
      expiresAt: null,
      paymentMethods: symbols,
      payoutMethods: symbols,
    });
    const pull = await ok(OAS.PullPaymentData, 'POST', `stores/${storeId}/pull-payments`, refundBody);
    expect(pull).toMatchObject({ name: 'Refund of order 123; Customer changed mind', amount: '5.00', currency: 'EUR', invoiceId, refundedTransactionId: paid.txid });
    expect(pull.refundAmountBtc).toBe('0.00012500'); // 5.00 EUR at the invoice's 40000 EUR/BTC
    const page = await fetch(`${origin}${new URL(pull.viewLink as string).pathname}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('0.000125');
    // An order number no invoice has is refused in Greenfield's validation shape.
    const nobody = await call('POST', `stores/${storeId}/pull-payments`, refundBody.replace('order 123', 'order 999'));
    expect(nobody.status).toBe(422);
    expect(OAS.schemaErrors(OAS.ValidationErrors, nobody.json)).toEqual([]);

    // A cancelled order's invoice: markInvoiceInvalid through Invoice::markInvoiceStatus.
    const second = await ok(OAS.InvoiceData, 'POST', `stores/${storeId}/invoices`, invoiceBody.replace(/"orderId":"123"/, '"orderId":"124"'));
    const marked = await ok(OAS.InvoiceData, 'POST', `stores/${storeId}/invoices/${second.id}/status`, JSON.stringify({ status: 'Invalid' }));
    expect(marked).toMatchObject({ status: 'Invalid', additionalStatus: 'Marked' });
    const [invalid] = await hooksOf(second.id as string, 1);
    expect(invalid!.body).toMatchObject({ type: 'InvoiceInvalid', manuallyMarked: true, invoiceId: second.id, metadata: { orderId: '124' } });
    expect(OAS.schemaErrors(OAS.WebhookEvents.InvoiceInvalid!, invalid!.body)).toEqual([]);
    expect(phpValid(invalid!.raw, invalid!.signature, stored.secret)).toBe(true);
    // InvoiceCreated is not among the plugin's events: the shop never received one.
    expect(hooks.some((h) => h.body.type === 'InvoiceCreated')).toBe(false);

    // A key that is not (or no longer) valid: 401 in Greenfield's error shape.
    const bad = await call('GET', 'api-keys/current', undefined, 'not-a-key');
    expect(bad.status).toBe(401);
    expect(OAS.schemaErrors(OAS.ApiError, bad.json)).toEqual([]);
  });
});
