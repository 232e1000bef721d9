// "A client generated from BTCPay's OpenAPI document performs the store-integration calls against satgate without a
// 404" (issue 37), on a real bcoin regtest node and both engines. The calls are made from the vendored document
// (test/support/fixtures/btcpay-greenfield-openapi.json, BTCPay 2.x before its storeId-less routes, 1.x's
// OnChain/{cryptoCode} paths and the storeId-less operations of 2026's master, source and commits in the file) by a small interpreter (test/support/openapi-client.ts):
// path templates filled with the ids the earlier calls answered, methods, required parameters, bodies generated
// from the request schemas (their examples first; the few values a real server must check, an address of this
// network, a reachable webhook URL, are given). Each answer is not a 404 and validates against the document's
// schema for its status. The operations satgate does not offer are named with the reason, and answer Greenfield's
// {code, message} 404.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { greenfieldKey } from '../../test/support/greenfield.ts';
import { exampleOf, loadGenerations, operationsOf, responseSchema, urlOf, validate, type Operation } from '../../test/support/openapi-client.ts';
import { decodeAddress, encodeAddress } from '../bitcoin/address.ts';
import { POLICIES } from './permissions.ts';

/** BTCPay's operations satgate does not offer, and why (README's Greenfield section says the same). */
const NOT_OFFERED: Record<string, string> = {
  Invoices_GetInvoiceRefundTriggerData: 'refunds are pull payments named for the invoice (the WooCommerce plugin’s way)',
  Invoices_Refund: 'refunds are pull payments named for the invoice (the WooCommerce plugin’s way)',
  Invoices_ActivatePaymentMethod: 'an invoice’s one on-chain method is active from its creation',
  PullPayments_LinkBoltcard: 'Lightning (Boltcards) is not supported',
  PullPayments_GetPullPaymentLNURL: 'Lightning (LNURL) is not supported',
  PullPayments_MarkPayout: 'payout states follow the chain; mark-paid covers payouts paid elsewhere',
  StorePaymentMethods_DeleteStorePaymentMethod: 'a store is one wallet: its on-chain method cannot be removed',
  StoreOnChainPaymentMethods_DeleteOnChainPaymentMethod: 'a store is one wallet: its on-chain method cannot be removed',
  StoreOnChainWallets_ShowOnChainWalletHistogram: 'no balance histogram',
  StoreOnChainWallets_BroadcastOnChainTransaction: 'watch-only wallets post signed transactions to …/payouts/signed (payouts) or /refunds/signed',
  StoreOnChainWallets_PatchOnChainWalletTransaction: 'transaction labels and comments are not kept',
  StoreOnChainPaymentMethods_GenerateOnChainWallet: 'a store’s wallet is chosen when the store is created (POST /add_pub)',
  StoreOnChainPaymentMethods_POSTOnChainPaymentMethodPreview: 'previewing another derivation scheme than the store’s is not offered',
};

/** The rows of README's Greenfield table: methods and path. */
function readmeRoutes(): { methods: string[]; path: string }[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('### With a BTCPay plugin: the Greenfield API');
  const section = readme.slice(start, readme.indexOf('\n## ', start));
  return [...section.matchAll(/^\| ((?:`[A-Z]+` ?)+) \| `([^`]+)` \|/gm)].map((m) => ({ methods: m[1]!.match(/[A-Z]+/g)!, path: m[2]! }));
}

/** Run order: creations first, then reads, then changes, then archiving and deleting (unarchive after archive). */
function rank(op: Operation): number {
  if (op.operationId === 'Invoices_UnarchiveInvoice') return 5;
  if (op.method === 'DELETE') return 4;
  if (op.method === 'GET') return 2;
  const creates = /^(Webhooks_CreateWebhook|Invoices_CreateInvoice|PaymentRequests_CreatePaymentRequest|PullPayments_CreatePullPayment)$/.test(op.operationId);
  if (creates) return 0;
  if (op.operationId === 'PullPayments_CreatePayout' || op.operationId === 'Payouts_CreatePayoutThroughStore') return 1;
  return 3;
}

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('a client generated from BTCPay’s OpenAPI document against satgate on %s', (engine) => {
  let t: TestApp;
  let key: string;
  const values: Record<string, string> = {};
  const payee = () => encodeAddress(Uint8Array.from([0x00, 0x14, ...randomBytes(20)]), 'regtest');

  beforeAll(async () => {
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000', EUR: '40000' }), SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1', SATGATE_FALLBACK_FEE_RATE: '2' },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.ctx.chains.pollNow();
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'usd' } });
    values.storeId = (res.json() as { api_id: string }).api_id;
    key = await greenfieldKey(t.ctx, values.storeId, [POLICIES.modifyStoreSettings]);
    const funding = (await t.app.inject({ method: 'GET', url: `/api/v1/stores/${values.storeId}/payment-methods/BTC-CHAIN/wallet/address`, headers: { authorization: `token ${key}` } })).json() as { address: string };
    values.transactionId = (await node.pay(decodeAddress(funding.address).script, 1_000_000n)).txid;
    // More coins, so the wallet can pay while its change waits for a block.
    for (let i = 0; i < 3; i++) await node.pay(decodeAddress(funding.address).script, 1_000_000n);
    await node.mine(1);
    await t.ctx.chains.pollNow();
    values.paymentMethodId = 'BTC-CHAIN';
    values.cryptoCode = 'BTC';
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  /** The body of an operation: generated from its schema, with the values a real server checks given. */
  function bodyOf(gen: ReturnType<typeof loadGenerations>[string], op: Operation): unknown {
    if (!op.body) return undefined;
    const body = exampleOf(gen, op.body) as Record<string, unknown>;
    const given: Record<string, Record<string, unknown>> = {
      Webhooks_CreateWebhook: { url: 'http://127.0.0.1:9/hook' },
      Webhooks_UpdateWebhook: { url: 'http://127.0.0.1:9/hook' },
      PullPayments_CreatePullPayment: { currency: 'BTC', amount: '0.01', payoutMethods: ['BTC-CHAIN'], startsAt: null, expiresAt: null },
      PullPayments_CreatePayout: { destination: payee(), amount: '0.001', payoutMethodId: 'BTC-CHAIN' },
      Payouts_CreatePayoutThroughStore: { destination: payee(), amount: '0.001', payoutMethodId: 'BTC-CHAIN', pullPaymentId: values.pullPaymentId },
      Invoices_CreateInvoice: { currency: 'USD', amount: '10', metadata: { orderId: 'generated-1' } },
      PaymentRequests_CreatePaymentRequest: { amount: '10', currency: 'USD', title: 'Consulting', allowCustomPaymentAmounts: true },
      PaymentRequests_UpdatePaymentRequest: { amount: '12', currency: 'USD', title: 'Consulting', allowCustomPaymentAmounts: true },
      PaymentRequests_Pay: { amount: '5' },
      PullPayments_ApprovePayout: { revision: 0 },
      Invoices_UpdateInvoice: { metadata: { orderId: 'generated-1', note: 'updated' } },
      Invoices_MarkInvoiceStatus: { status: 'Settled' },
      StoreOnChainWallets_CreateOnChainTransaction: { destinations: [{ destination: payee(), amount: '0.0001', subtractFromAmount: false }], feerate: 2, selectedInputs: null, rbf: true, proceedWithPayjoin: false },
      StoreOnChainPaymentMethods_UpdateOnChainPaymentMethod: { enabled: true },
      StorePaymentMethods_UpdateStorePaymentMethod: { enabled: true },
    };
    return { ...body, ...(given[op.operationId] ?? {}) };
  }

  /** Remembers the ids an answer carries for the calls after it. */
  function remember(op: Operation, answer: unknown): void {
    const a = answer as Record<string, unknown>;
    if (op.operationId === 'Webhooks_CreateWebhook') values.webhookId = a.id as string;
    if (op.operationId === 'Invoices_CreateInvoice') values.invoiceId = a.id as string;
    if (op.operationId === 'PaymentRequests_CreatePaymentRequest') values.paymentRequestId = a.id as string;
    if (op.operationId === 'PullPayments_CreatePullPayment') values.pullPaymentId = a.id as string;
    if (op.operationId === 'Payouts_CreatePayoutThroughStore') values.payoutId = a.id as string;
    if (op.operationId === 'Webhooks_GetWebhookDeliveries' && Array.isArray(answer) && answer.length > 0) values.deliveryId = (answer[0] as { id: string }).id;
  }

  /** A new invoice, payment request, pull payment and payout of the store, through the store routes. */
  async function freshObjects(): Promise<void> {
    const gen = loadGenerations()['2.x']!;
    for (const op of operationsOf('2.x', gen).filter((o) => o.method === 'POST' && rank(o) <= 1).sort((a, b) => rank(a) - rank(b))) {
      if (op.operationId === 'Webhooks_CreateWebhook' || op.operationId === 'PullPayments_CreatePayout') continue;
      const res = await t.app.inject({ method: 'POST', url: urlOf(gen, op, values), headers: { authorization: `token ${key}`, 'content-type': 'application/json' }, payload: JSON.stringify(bodyOf(gen, op)) });
      expect(res.statusCode, `${op.operationId}: ${res.body}`).toBe(200);
      remember(op, res.json());
    }
  }

  for (const [name, gen] of Object.entries(loadGenerations())) {
    it(`every store-integration operation of BTCPay ${name} answers without a 404, as its schema says`, async () => {
      const ops = operationsOf(name, gen).sort((a, b) => rank(a) - rank(b));
      // The storeId-less operations act on objects the 2.x run left archived or paid: fresh ones, made by the store routes.
      if (name === 'storeId-less') await freshObjects();
      const report: string[] = [];
      const info: string[] = [];
      let called = 0;
      for (const op of ops) {
        if (op.operationId in NOT_OFFERED) continue;
        called += 1;
        if (op.path.includes('{deliveryId}') && values.deliveryId === undefined) {
          await t.ctx.notify.worker.runOnce();
          const list = await t.app.inject({ method: 'GET', url: `/api/v1/stores/${values.storeId}/webhooks/${values.webhookId}/deliveries`, headers: { authorization: `token ${key}` } });
          values.deliveryId = (list.json() as { id: string }[])[0]?.id as string;
        }
        const body = bodyOf(gen, op);
        let url: string;
        try {
          url = urlOf(gen, op, values);
        } catch (err) {
          report.push(`${op.operationId}: not called: ${(err as Error).message}`);
          continue;
        }
        const res = await t.app.inject({
          method: op.method,
          url,
          headers: { authorization: `token ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
        });
        const answer = res.body.length > 0 && /json/.test(String(res.headers['content-type'])) ? (res.json() as unknown) : undefined;
        if (res.statusCode === 404) report.push(`${op.operationId} ${op.method} ${op.path}: 404 ${res.body}`);
        const schema = responseSchema(gen, op, res.statusCode);
        if (schema && answer !== undefined) {
          for (const problem of validate(gen, schema, answer)) report.push(`${op.operationId} ${res.statusCode}: ${problem}`);
        }
        // A refusal that is not a 404 is an answer the client can act on (a payout already sent cannot be cancelled).
        if (res.statusCode >= 300) info.push(`${op.operationId}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (res.statusCode < 300) remember(op, answer);
      }
      expect(report, `other answers:\n${info.join('\n')}`).toEqual([]);
      expect(called).toBeGreaterThanOrEqual(({ '2.x': 45, '1.x': 12, 'storeId-less': 15 } as Record<string, number>)[name]!);
      // Refusals stay rare: only the state-dependent payout actions after the payout was paid.
      expect(info.map((line) => line.split(':')[0])).toEqual(name === '1.x' ? [] : ['PullPayments_MarkPayoutPaid', 'PullPayments_CancelPayout']);
    }, 120_000);

    it(`the operations of BTCPay ${name} satgate does not offer answer Greenfield's {code, message} 404`, async () => {
      const skipped = operationsOf(name, gen).filter((op) => op.operationId in NOT_OFFERED);
      for (const op of skipped) {
        const url = urlOf(gen, op, { ...values, invoiceId: 'someInvoice', pullPaymentId: 'somePull', payoutId: 'somePayout', transactionId: 'ab'.repeat(32) });
        const res = await t.app.inject({ method: op.method, url, headers: { authorization: `token ${key}`, 'content-type': 'application/json' }, payload: '{}' });
        expect(res.statusCode, `${op.operationId} ${op.method} ${url}`).toBe(404);
        expect(Object.keys(res.json() as object).sort()).toEqual(['code', 'message']);
      }
    });
  }

  it('README’s Greenfield table lists every operation offered, and every row it lists is a route of satgate', async () => {
    const rows = readmeRoutes();
    expect(rows.length).toBeGreaterThan(40);
    const missing: string[] = [];
    for (const [name, gen] of Object.entries(loadGenerations())) {
      for (const op of operationsOf(name, gen)) {
        if (op.operationId in NOT_OFFERED) continue;
        if (!rows.some((r) => r.path === op.path && r.methods.includes(op.method))) missing.push(`${name} ${op.method} ${op.path}`);
      }
    }
    expect(missing).toEqual([]);
    // Each row reaches a route (a 404 then names the missing thing, never "No operation at").
    const ids: Record<string, string> = { ...values, invoiceId: 'x', paymentRequestId: 'x', pullPaymentId: 'x', payoutId: 'x', webhookId: 'x', deliveryId: 'x', transactionId: 'ab'.repeat(32) };
    const probeKey = await greenfieldKey(t.ctx, values.storeId!, [POLICIES.modifyStoreSettings]);
    // Revoking the key (DELETE …/api-keys/current) comes last.
    const last = (r: { path: string }) => (r.path === '/api/v1/api-keys/current' ? 1 : 0);
    for (const row of [...rows].sort((a, b) => last(a) - last(b))) {
      for (const method of [...row.methods].sort((a, b) => Number(a === 'DELETE') - Number(b === 'DELETE'))) {
        const url = row.path.replace(/\{([^}]+)\}/g, (_m, n: string) => ids[n]!);
        const res = await t.app.inject({ method: method as 'GET', url, headers: { authorization: `token ${probeKey}`, 'content-type': 'application/json' }, payload: method === 'GET' || method === 'DELETE' ? undefined : '{}' });
        const body = res.body.length > 0 ? (res.json() as { message?: string }) : {};
        expect(String(body.message ?? ''), `${method} ${row.path}`).not.toMatch(/^No operation at/);
        expect(res.statusCode, `${method} ${row.path}`).not.toBe(401);
      }
    }
  });
});
