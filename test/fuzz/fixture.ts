// The app the fuzz suite and its regression replay hit: real HTTP on a port, a regtest node, a sandbox wallet with an
// issued address, an OAuth client and token; background work stopped so only requests could change tables.
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { writeRatesFile } from '../support/rates-file.ts';
import { createClient, customRequest, tokenFor } from '../support/payment-api.ts';
import { startRegtestNode, type RegtestNode } from '../support/regtest-node.ts';
import { generateNewWallet } from '../../src/bitcoin/new-wallet.ts';
import type { Engine } from '../../src/db/database.ts';
import { gf, greenfieldKey } from '../support/greenfield.ts';
import { POLICIES } from '../../src/greenfield/permissions.ts';
import { routesOf, tagsOf, type Fixture, type Route } from './bad-input.ts';
import nacl from 'tweetnacl';
import { sealRequestPayload } from '../support/payload-client.ts';

/** The prices the target runs with (amount cases aim just past 21,000,000 BTC at them). */
const RATES = { USD: '50000.00', EUR: '46000.50', JPY: '7400000' };

export interface FuzzTarget {
  t: TestApp;
  port: number;
  routes: Route[];
  /** Every tag of the OpenAPI document (all fuzzed). */
  tags: string[];
  fixture: Fixture;
  /** Fixture values by placeholder name, for storing and replaying cases. */
  values: Record<string, string>;
  close(): Promise<void>;
}

/** Boots the target on an engine. */
export async function startFuzzTarget(engine: Engine): Promise<FuzzTarget> {
  const node: RegtestNode = await startRegtestNode();
  const t = await createTestApp(engine, {
    env: { SATGATE_RATES_FILE: writeRatesFile(RATES) },
    chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
    start: true,
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (t.app.server.address() as AddressInfo).port;
  const pub = generateNewWallet(true).accountKey;
  const added = (await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub, account_name: 'shop' } })).json() as { api_id: string; server_public_key: string };
  const apiId = added.api_id;
  const address = (await t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id: apiId } })).json().addr as string;
  const client = await createClient(t.ctx, [apiId]);
  const token = await tokenFor(t.app, client);
  const request = customRequest(apiId);
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/payment/request', headers: { authorization: `Bearer ${token}` }, payload: request });
  const reference = created.json().payment_reference as string;
  if (!apiId || !address || !reference) throw new Error(`fuzz fixture incomplete: ${created.body}`);
  // Greenfield: a key with every permission on the wallet's store, so requests reach validation; an invoice and a
  // webhook (and its first delivery, if one was queued) to name in paths.
  const gfKey = await greenfieldKey(t.ctx, apiId, Object.values(POLICIES));
  const invoice = await gf(t.app, gfKey, 'POST', `/api/v1/stores/${apiId}/invoices`, { amount: '10', currency: 'USD', metadata: { orderId: 'fuzz-1' } });
  const invoiceId = invoice.json().id as string;
  const hook = await gf(t.app, gfKey, 'POST', `/api/v1/stores/${apiId}/webhooks`, { url: 'https://example.com/hook' });
  const webhookId = hook.json().id as string;
  await gf(t.app, gfKey, 'POST', `/api/v1/stores/${apiId}/invoices`, { amount: '11', currency: 'USD' });
  const deliveries = await gf(t.app, gfKey, 'GET', `/api/v1/stores/${apiId}/webhooks/${webhookId}/deliveries`);
  const deliveryId = ((deliveries.json() as { id: string }[])[0]?.id ?? 'none') as string;
  if (!invoiceId || !webhookId) throw new Error(`Greenfield fuzz fixture incomplete: ${invoice.body} ${hook.body}`);
  // A partner merchant whose wallet is approved, so a withdrawal quote reaches its amount and pricing.
  const partnerKey = (await t.ctx.partners.keys.create({ name: 'Market', test: true, settlementAddress: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080' }, Date.now())).partnerAuthKey;
  const merchant = (
    await t.app.inject({
      method: 'POST',
      url: '/partner_merchant_wallet',
      payload: { partner_auth_key: partnerKey, merchant_name: 'Fuzz shop', partner_merchant_id: 'fuzz-1', contact: { email: 'owner@shop.example', phone: '+4930123456' }, bank_info: { iban: 'DE89370400440532013000', holder: 'Fuzz shop' }, local_currency: 'usd' },
    })
  ).json() as { merchant_api_id: string; withdrawal_auth_key: string };
  if (!merchant.merchant_api_id || !merchant.withdrawal_auth_key) throw new Error(`partner fuzz fixture incomplete: ${JSON.stringify(merchant)}`);
  await t.ctx.db.kysely.updateTable('partner_wallets').set({ wallet_status: 'active' }).execute();
  await t.ctx.stopBackground();
  const values = {
    pub, api_id: apiId, address, token, client_id: client.client_id, client_secret: client.client_secret, reference, gf_key: gfKey, invoice_id: invoiceId, webhook_id: webhookId,
    merchant_api_id: merchant.merchant_api_id, withdrawal_auth_key: merchant.withdrawal_auth_key,
  };
  const orderKey = nacl.box.keyPair().secretKey;
  const fixture: Fixture = {
    bodies: {
      'POST /add_pub': { pub, account_name: 'shop' },
      'POST /set_addr': { api_id: apiId },
      'POST /addr_info': { address, info: 'note' },
      'POST /api/v1/payment/request': request,
      'POST /oauth/token': { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
      'POST /payment_form': {
        api_id: apiId, order_id: 'fuzz-form', order_amount: '10', order_currency: 'USD', payment_cancel_url: 'https://shop.example/cancel',
        payment_complete_url: 'https://shop.example/done', payment_update_url: 'https://shop.example/update', site_name: 'Shop',
      },
    },
    headers: { 'POST /api/v1/payment/request': { authorization: `Bearer ${token}` } },
    params: { storeId: apiId, invoiceId, webhookId, deliveryId, pub, public_key: pub, address, payment_reference: reference, from: 'usd', to: 'btc', amount: '10', date: '01-15-2024' },
    query: { merchant_api_id: merchant.merchant_api_id, withdrawal_auth_key: merchant.withdrawal_auth_key },
    rates: RATES,
    sealedOrder: (orderAmount) => sealRequestPayload({ api_id: apiId, local_currency: 'usd', order_amount: orderAmount }, added.server_public_key, orderKey),
  };
  const doc = t.app.swagger() as Parameters<typeof routesOf>[0];
  const routes = routesOf(doc);
  const gfAuth = { authorization: `token ${gfKey}` };
  for (const r of routes) if (r.tags.includes('Greenfield') && r.path.startsWith('/api/v1/')) fixture.headers[`${r.method} ${r.path}`] = gfAuth;
  Object.assign(fixture.bodies, {
    'POST /api/v1/stores/:storeId/invoices': { amount: '10', currency: 'USD', metadata: { orderId: 'fuzz-2' }, checkout: { speedPolicy: 'MediumSpeed' } },
    'PUT /api/v1/stores/:storeId/invoices/:invoiceId': { metadata: { orderId: 'fuzz-1', note: 'x' } },
    'POST /api/v1/stores/:storeId/invoices/:invoiceId/status': { status: 'Invalid' },
    'POST /api/v1/stores/:storeId/webhooks': { url: 'https://example.com/hook2', enabled: true, secret: 's3cret' },
    'PUT /api/v1/stores/:storeId/webhooks/:webhookId': { url: 'https://example.com/hook', enabled: false },
    'POST /api/v1/stores/:storeId/pull-payments': { name: 'refund', amount: '1', currency: 'USD' },
  });
  return {
    t,
    port,
    routes,
    tags: tagsOf(doc),
    fixture,
    values,
    close: async () => {
      await t.close();
      await node.stop();
    },
  };
}
