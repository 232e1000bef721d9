// BTCPay's storeId-less routes (/api/v1/invoices/{id}…, /api/v1/payment-requests/{id}…, DELETE
// /api/v1/pull-payments/{id}, /api/v1/payouts/{id}…) over the real app on both engines: the store is the object's,
// the answer is the store route's, and an object of another store or an unknown one is BTCPay's 403.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { encodeAddress } from '../bitcoin/address.ts';
import { POLICIES } from './permissions.ts';
import { STORELESS_ALIASES } from './storeless-routes.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };
const payee = () => encodeAddress(Uint8Array.from([0x00, 0x14, ...randomBytes(20)]), 'regtest');
const ALL = [POLICIES.modifyStoreSettings];

describe.each(testEngines())('Greenfield storeId-less routes on %s', (engine) => {
  let t: TestApp;
  let storeA: string;
  let storeB: string;
  let keyA: string;
  let keyB: string;
  const a: Record<string, string> = {};
  const b: Record<string, string> = {};

  /** An invoice, a payment request, a pull payment and a payout of the store. */
  async function objectsOf(store: string, key: string, into: Record<string, string>): Promise<void> {
    const inv = await gf(t.app, key, 'POST', `/api/v1/stores/${store}/invoices`, { amount: '10', currency: 'EUR' });
    expect(inv.statusCode, inv.body).toBe(200);
    into.invoiceId = (inv.json() as { id: string }).id;
    const req = await gf(t.app, key, 'POST', `/api/v1/stores/${store}/payment-requests`, { amount: '12', currency: 'EUR', title: 'Consulting' });
    expect(req.statusCode, req.body).toBe(200);
    into.paymentRequestId = (req.json() as { id: string }).id;
    const pull = await gf(t.app, key, 'POST', `/api/v1/stores/${store}/pull-payments`, { name: 'Affiliates', amount: '0.01', currency: 'BTC' });
    expect(pull.statusCode, pull.body).toBe(200);
    into.pullPaymentId = (pull.json() as { id: string }).id;
    const payout = await gf(t.app, null, 'POST', `/api/v1/pull-payments/${into.pullPaymentId}/payouts`, { destination: payee(), amount: '0.001', payoutMethodId: 'BTC-CHAIN' });
    expect(payout.statusCode, payout.body).toBe(200);
    into.payoutId = (payout.json() as { id: string }).id;
  }

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile() }, chains: DEAD_NODE, start: true });
    storeA = await addSandboxWallet(t.app, { account_name: 'Shop A', local_currency: 'EUR' });
    storeB = await addSandboxWallet(t.app, { account_name: 'Shop B', local_currency: 'EUR' });
    keyA = await greenfieldKey(t.ctx, storeA, ALL);
    keyB = await greenfieldKey(t.ctx, storeB, ALL);
    await objectsOf(storeA, keyA, a);
    await objectsOf(storeB, keyB, b);
  });
  afterAll(async () => {
    await t?.close();
  });

  const url = (path: string, ids: Record<string, string>) => path.replace(/:(\w+)/g, (_m, n: string) => ids[n] ?? 'unknown');

  it('reading an object without its store answers what the store route answers', async () => {
    for (const [storeless, withStore] of [
      [`/api/v1/invoices/${a.invoiceId}`, `/api/v1/stores/${storeA}/invoices/${a.invoiceId}`],
      [`/api/v1/invoices/${a.invoiceId}/payment-methods`, `/api/v1/stores/${storeA}/invoices/${a.invoiceId}/payment-methods`],
      [`/api/v1/payment-requests/${a.paymentRequestId}`, `/api/v1/stores/${storeA}/payment-requests/${a.paymentRequestId}`],
      [`/api/v1/payouts/${a.payoutId}`, `/api/v1/stores/${storeA}/payouts/${a.payoutId}`],
    ]) {
      const short = await gf(t.app, keyA, 'GET', storeless!);
      expect(short.statusCode, short.body).toBe(200);
      expect(short.json()).toEqual((await gf(t.app, keyA, 'GET', withStore!)).json());
    }
  });

  it('every storeId-less route refuses another store’s object and an unknown id with BTCPay’s 403, changing nothing', async () => {
    for (const alias of STORELESS_ALIASES) {
      for (const ids of [b, {}]) {
        const res = await gf(t.app, keyA, alias.method, url(alias.path, ids), alias.method === 'GET' || alias.method === 'DELETE' ? undefined : {});
        expect(res.statusCode, `${alias.method} ${alias.path}: ${res.body}`).toBe(403);
        expect(res.json()).toEqual({ code: 'missing-permission', message: expect.stringContaining(alias.policy) });
      }
    }
    // Store B's objects are as they were.
    expect((await gf(t.app, keyB, 'GET', `/api/v1/invoices/${b.invoiceId}`)).json()).toMatchObject({ archived: false, status: 'New' });
    expect((await gf(t.app, keyB, 'GET', `/api/v1/payment-requests/${b.paymentRequestId}`)).json()).toMatchObject({ archived: false });
    expect((await gf(t.app, keyB, 'GET', `/api/v1/payouts/${b.payoutId}`)).json()).toMatchObject({ state: 'AwaitingApproval' });
    expect((await gf(t.app, keyB, 'GET', `/api/v1/stores/${storeB}/pull-payments`)).json()).toContainEqual(expect.objectContaining({ id: b.pullPaymentId }));
  });

  it('a key without the permission is refused as on the store route; without a key it is 401', async () => {
    const viewer = await greenfieldKey(t.ctx, storeA, [POLICIES.viewInvoices]);
    expect((await gf(t.app, viewer, 'GET', `/api/v1/invoices/${a.invoiceId}`)).statusCode).toBe(200);
    const archive = await gf(t.app, viewer, 'DELETE', `/api/v1/invoices/${a.invoiceId}`);
    expect(archive.statusCode).toBe(403);
    expect(archive.json()).toEqual({ code: 'missing-permission', message: expect.stringContaining(POLICIES.modifyInvoices) });
    expect((await gf(t.app, viewer, 'GET', `/api/v1/payment-requests/${a.paymentRequestId}`)).statusCode).toBe(403);
    const anonymous = await gf(t.app, null, 'GET', `/api/v1/invoices/${a.invoiceId}`);
    expect(anonymous.statusCode).toBe(401);
  });

  it('changes through the storeId-less routes are the store routes’ changes', async () => {
    const mark = await gf(t.app, keyA, 'POST', `/api/v1/invoices/${a.invoiceId}/status`, { status: 'Invalid' });
    expect(mark.statusCode, mark.body).toBe(200);
    expect((await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/invoices/${a.invoiceId}`)).json()).toMatchObject({ status: 'Invalid' });
    expect((await gf(t.app, keyA, 'DELETE', `/api/v1/invoices/${a.invoiceId}`)).statusCode).toBe(200);
    expect((await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/invoices/${a.invoiceId}`)).json()).toMatchObject({ archived: true });
    expect((await gf(t.app, keyA, 'POST', `/api/v1/invoices/${a.invoiceId}/unarchive`)).json()).toMatchObject({ archived: false });
    const approve = await gf(t.app, keyA, 'POST', `/api/v1/payouts/${a.payoutId}`, { revision: 0 });
    expect(approve.statusCode, approve.body).toBe(200);
    expect(approve.json()).toMatchObject({ id: a.payoutId, state: 'AwaitingPayment' });
    expect((await gf(t.app, keyA, 'DELETE', `/api/v1/payouts/${a.payoutId}`)).statusCode).toBe(200);
    expect((await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/payouts/${a.payoutId}`)).json()).toMatchObject({ state: 'Cancelled' });
    expect((await gf(t.app, keyA, 'DELETE', `/api/v1/pull-payments/${a.pullPaymentId}`)).statusCode).toBe(200);
    expect((await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/pull-payments`)).json()).not.toContainEqual(expect.objectContaining({ id: a.pullPaymentId }));
    expect((await gf(t.app, keyA, 'DELETE', `/api/v1/payment-requests/${a.paymentRequestId}`)).statusCode).toBe(200);
    expect((await gf(t.app, keyA, 'GET', `/api/v1/stores/${storeA}/payment-requests/${a.paymentRequestId}`)).json()).toMatchObject({ archived: true });
  });
});
