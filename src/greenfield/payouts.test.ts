// Greenfield pull payments and payouts in general, on a real bcoin regtest node and both engines: the store creates
// a pull payment, the payee claims a payout to their address through the public routes, the merchant approves it
// and the service-held wallet pays it through the spending path (InProgress once broadcast, Completed once
// confirmed); cancel, archive, watch-only payouts marked paid, bad input as 422 lists, and the payout webhooks.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { decodeAddress, encodeAddress } from '../bitcoin/address.ts';
import { POLICIES } from './permissions.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

/** A fresh regtest P2WPKH address of nobody in particular (the payee's). */
const payeeAddress = () => encodeAddress(Uint8Array.from([0x00, 0x14, ...randomBytes(20)]), 'regtest');

describe.each(testEngines())('Greenfield pull payments and payouts on %s', (engine) => {
  let t: TestApp;
  let merchant: Server;
  const received: Record<string, unknown>[] = [];
  let held: string;
  let watchOnly: string;
  let key: string;
  let wKey: string;
  let limitedKey: string;

  beforeAll(async () => {
    merchant = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ EUR: '40000' }), SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1' },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.ctx.chains.pollNow();
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'eur' } });
    held = (res.json() as { api_id: string }).api_id;
    watchOnly = await addSandboxWallet(t.app, { local_currency: 'EUR' });
    key = await greenfieldKey(t.ctx, held, [POLICIES.managePullPayments, POLICIES.modifyWebhooks, POLICIES.modifyStoreSettings]);
    wKey = await greenfieldKey(t.ctx, watchOnly, [POLICIES.managePullPayments]);
    limitedKey = await greenfieldKey(t.ctx, held, [POLICIES.createNonApprovedPullPayments]);
    const hookUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/hook`;
    const hook = await gf(t.app, key, 'POST', `/api/v1/stores/${held}/webhooks`, { url: hookUrl, enabled: true, authorizedEvents: { everything: true } });
    expect(hook.statusCode, hook.body).toBe(200);
    const funding = (await gf(t.app, key, 'GET', `/api/v1/stores/${held}/payment-methods/BTC-CHAIN/wallet/address`)).json() as { address: string };
    await node.pay(decodeAddress(funding.address).script, 300_000n);
    await node.mine(1);
    await t.ctx.chains.pollNow();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => merchant.close(() => resolve()));
  });

  const createPull = (body: Record<string, unknown>, k = key, store = held) => gf(t.app, k, 'POST', `/api/v1/stores/${store}/pull-payments`, body);
  const claim = (pullId: string, body: Record<string, unknown>) => gf(t.app, null, 'POST', `/api/v1/pull-payments/${pullId}/payouts`, body);

  /** The payout events delivered for a payout, once `count` of them arrived. */
  async function payoutEvents(payoutId: string, count: number): Promise<Record<string, unknown>[]> {
    for (let i = 0; i < 200; i++) {
      await t.ctx.notify.worker.runOnce();
      const mine = received.filter((r) => r.payoutId === payoutId);
      if (mine.length >= count) return mine;
      await new Promise((r) => setTimeout(r, 50));
    }
    return received.filter((r) => r.payoutId === payoutId);
  }

  it('a payee claims a payout, the merchant approves it, the service-held wallet pays it: InProgress, then Completed after a block; webhooks follow', async () => {
    const created = await createPull({ name: 'Affiliates, May', description: 'commissions', amount: '0.002', currency: 'BTC', payoutMethods: ['BTC-CHAIN'] });
    expect(created.statusCode, created.body).toBe(200);
    const pull = created.json() as Record<string, unknown> & { id: string };
    expect(pull).toMatchObject({ name: 'Affiliates, May', description: 'commissions', currency: 'BTC', amount: '0.002', autoApproveClaims: false, archived: false, expiresAt: null, payoutMethods: ['BTC-CHAIN'] });
    expect(pull).not.toHaveProperty('invoiceId');
    expect((await gf(t.app, null, 'GET', `/api/v1/pull-payments/${pull.id}`)).json()).toEqual(pull);
    expect(((await gf(t.app, key, 'GET', `/api/v1/stores/${held}/pull-payments`)).json() as { id: string }[]).map((p) => p.id)).toContain(pull.id);

    const to = payeeAddress();
    const claimed = await claim(pull.id, { destination: to, amount: '0.0005', payoutMethodId: 'BTC-CHAIN' });
    expect(claimed.statusCode, claimed.body).toBe(200);
    const payout = claimed.json() as { id: string };
    expect(payout).toMatchObject({ pullPaymentId: pull.id, destination: to, originalAmount: '0.0005', originalCurrency: 'BTC', payoutAmount: null, payoutMethodId: 'BTC-CHAIN', state: 'AwaitingApproval', revision: 0 });

    // An old revision is refused and changes nothing.
    const stale = await gf(t.app, key, 'POST', `/api/v1/stores/${held}/payouts/${payout.id}`, { revision: 3 });
    expect(stale.statusCode).toBe(400);
    expect(stale.json()).toMatchObject({ code: 'old-revision' });

    const approved = await gf(t.app, key, 'POST', `/api/v1/stores/${held}/payouts/${payout.id}`, { revision: 0, rateRule: null });
    expect(approved.statusCode, approved.body).toBe(200);
    const sent = approved.json() as { state: string; payoutAmount: string; paymentProof: { transactionId: string } };
    expect(sent).toMatchObject({ state: 'InProgress', payoutAmount: '0.0005', paymentProof: { proofType: 'PayoutTransactionOnChainBlob', transactionId: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    const spend = await t.ctx.db.kysely.selectFrom('spends').selectAll().where('txid', '=', sent.paymentProof.transactionId).executeTakeFirstOrThrow();
    expect(spend).toMatchObject({ purpose: 'payout', status: 'broadcast' });
    const again = await gf(t.app, key, 'POST', `/api/v1/stores/${held}/payouts/${payout.id}`, {});
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'invalid-state' });

    await node.mine(1);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();
    const done = (await gf(t.app, null, 'GET', `/api/v1/pull-payments/${pull.id}/payouts/${payout.id}`)).json();
    expect(done).toMatchObject({ state: 'Completed', paymentProof: { transactionId: sent.paymentProof.transactionId } });
    expect((await gf(t.app, key, 'GET', `/api/v1/stores/${held}/payouts`)).json()).toContainEqual(done);

    const events = await payoutEvents(payout.id, 4);
    expect(events.map((e) => [e.type, e.payoutState])).toEqual([
      ['PayoutCreated', 'AwaitingApproval'],
      ['PayoutApproved', 'AwaitingPayment'],
      ['PayoutUpdated', 'InProgress'],
      ['PayoutUpdated', 'Completed'],
    ]);
    expect(events[0]).toMatchObject({ storeId: held, pullPaymentId: pull.id, isRedelivery: false });

    // What is left of the pull payment is the default amount of the next claim; more than that is an overdraft.
    const over = await claim(pull.id, { destination: payeeAddress(), amount: '0.0016' });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: 'overdraft' });
    const rest = await claim(pull.id, { destination: `bitcoin:${payeeAddress()}` });
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json()).toMatchObject({ originalAmount: '0.0015', state: 'AwaitingApproval' });
  });

  it('a payout is cancelled before it is sent, listed only with includeCancelled, and cannot then be approved', async () => {
    const pull = (await createPull({ name: 'Bounty', amount: '0.001', currency: 'BTC' })).json() as { id: string };
    const payout = (await claim(pull.id, { destination: payeeAddress(), amount: '0.0002' })).json() as { id: string };
    expect((await gf(t.app, key, 'DELETE', `/api/v1/stores/${held}/payouts/${payout.id}`)).statusCode).toBe(200);
    const listed = async (q: string) => ((await gf(t.app, null, 'GET', `/api/v1/pull-payments/${pull.id}/payouts${q}`)).json() as { id: string; state: string }[]);
    expect(await listed('')).toEqual([]);
    expect(await listed('?includeCancelled=true')).toEqual([expect.objectContaining({ id: payout.id, state: 'Cancelled' })]);
    const approve = await gf(t.app, key, 'POST', `/api/v1/stores/${held}/payouts/${payout.id}`, {});
    expect(approve.json()).toMatchObject({ code: 'invalid-state' });
    expect((await payoutEvents(payout.id, 2)).map((e) => [e.type, e.payoutState])).toEqual([
      ['PayoutCreated', 'AwaitingApproval'],
      ['PayoutUpdated', 'Cancelled'],
    ]);
    // The cancelled amount is claimable again.
    expect((await claim(pull.id, { destination: payeeAddress() })).json()).toMatchObject({ originalAmount: '0.001' });
  });

  it('archiving a pull payment cancels its unsent payouts and refuses new claims', async () => {
    const pull = (await createPull({ name: 'Archive me', amount: '0.001', currency: 'BTC' })).json() as { id: string };
    const payout = (await claim(pull.id, { destination: payeeAddress(), amount: '0.0002' })).json() as { id: string };
    expect((await gf(t.app, key, 'DELETE', `/api/v1/stores/${held}/pull-payments/${pull.id}`)).statusCode).toBe(200);
    expect((await gf(t.app, null, 'GET', `/api/v1/pull-payments/${pull.id}`)).json()).toMatchObject({ archived: true });
    expect((await gf(t.app, key, 'GET', `/api/v1/stores/${held}/payouts/${payout.id}`)).json()).toMatchObject({ state: 'Cancelled' });
    const refused = await claim(pull.id, { destination: payeeAddress() });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'archived' });
    const ids = async (q: string) => ((await gf(t.app, key, 'GET', `/api/v1/stores/${held}/pull-payments${q}`)).json() as { id: string }[]).map((p) => p.id);
    expect(await ids('')).not.toContain(pull.id);
    expect(await ids('?includeArchived=true')).toContain(pull.id);
  });

  it('on a watch-only wallet an approved payout stays AwaitingPayment until marked paid', async () => {
    const pull = (await createPull({ name: 'Watch-only', amount: '0.001', currency: 'BTC', autoApproveClaims: true }, wKey, watchOnly)).json() as { id: string; autoApproveClaims: boolean };
    expect(pull.autoApproveClaims).toBe(true);
    const payout = (await claim(pull.id, { destination: payeeAddress(), amount: '0.0003' })).json() as { id: string; state: string };
    expect(payout.state).toBe('AwaitingPayment');
    expect(await t.ctx.db.kysely.selectFrom('greenfield_payouts').select('spend_id').where('public_id', '=', payout.id).executeTakeFirstOrThrow()).toEqual({ spend_id: null });
    expect((await gf(t.app, wKey, 'POST', `/api/v1/stores/${watchOnly}/payouts/${payout.id}/mark-paid`)).statusCode).toBe(200);
    expect((await gf(t.app, wKey, 'GET', `/api/v1/stores/${watchOnly}/payouts/${payout.id}`)).json()).toMatchObject({ state: 'Completed' });
    expect((await gf(t.app, wKey, 'DELETE', `/api/v1/stores/${watchOnly}/payouts/${payout.id}`)).json()).toMatchObject({ code: 'invalid-state' });
  });

  it('bad input is a 422 list naming each field, and changes nothing', async () => {
    const count = async () => Number((await t.ctx.db.kysely.selectFrom('greenfield_pulls').select((eb) => eb.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const bad = await createPull({ name: 'Bad', amount: '-1', currency: 'EUR', payoutMethods: ['BTC-LN'], startsAt: 2_000_000_000, expiresAt: 1_000_000_000 });
    expect(bad.statusCode).toBe(422);
    expect((bad.json() as { path: string }[]).map((e) => e.path).sort()).toEqual(['amount', 'currency', 'expiresAt', 'payoutMethods']);
    const shape = await createPull({ name: 'Bad', currency: 'BTC' });
    expect(shape.statusCode).toBe(422);
    expect(shape.json()).toEqual([expect.objectContaining({ path: expect.stringContaining('amount') })]);
    expect(await count()).toBe(before);

    const pull = (await createPull({ name: 'Input', amount: '0.001', currency: 'BTC' })).json() as { id: string };
    const badClaim = await claim(pull.id, { destination: 'bc1qnotanaddress', amount: '0.000000001' });
    expect(badClaim.statusCode).toBe(422);
    expect((badClaim.json() as { path: string }[]).map((e) => e.path).sort()).toEqual(['amount', 'destination']);
    const mainnet = await claim(pull.id, { destination: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' });
    expect(mainnet.json()).toEqual([{ path: 'destination', message: expect.stringContaining('regtest') }]);
    const lightning = await claim(pull.id, { destination: payeeAddress(), payoutMethodId: 'BTC-LN' });
    expect(lightning.json()).toMatchObject({ code: 'payment-method-not-supported' });
    const dust = await claim(pull.id, { destination: payeeAddress(), amount: '0.00000100' });
    expect(dust.json()).toMatchObject({ code: 'amount-too-low' });
    expect(((await gf(t.app, null, 'GET', `/api/v1/pull-payments/${pull.id}/payouts?includeCancelled=true`)).json() as unknown[]).length).toBe(0);
    const unknown = await gf(t.app, null, 'GET', '/api/v1/pull-payments/NoSuchPull');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'pullpayment-not-found' });
  });

  it('permissions as BTCPay: non-approved pull payments cannot auto-approve, and approving needs canmanagepullpayments', async () => {
    const auto = await createPull({ name: 'Auto', amount: '0.001', currency: 'BTC', autoApproveClaims: true }, limitedKey);
    expect(auto.statusCode).toBe(422);
    expect(auto.json()).toEqual([{ path: 'autoApproveClaims', message: expect.stringContaining('cancreatepullpayments') }]);
    const pull = (await createPull({ name: 'Manual', amount: '0.001', currency: 'BTC' }, limitedKey)).json() as { id: string };
    const payout = (await claim(pull.id, { destination: payeeAddress() })).json() as { id: string };
    const denied = await gf(t.app, limitedKey, 'POST', `/api/v1/stores/${held}/payouts/${payout.id}`, {});
    expect(denied.statusCode).toBe(403);
    expect((await gf(t.app, limitedKey, 'GET', `/api/v1/stores/${held}/payouts`)).statusCode).toBe(403);
    // Another store's payout reads as unknown.
    expect((await gf(t.app, wKey, 'POST', `/api/v1/stores/${watchOnly}/payouts/${payout.id}`, {})).json()).toMatchObject({ code: 'payout-not-found' });
  });

  it('the store creates a payout of its own pull payment through POST …/stores/{storeId}/payouts, with metadata', async () => {
    const pull = (await createPull({ name: 'Store payouts', amount: '0.001', currency: 'BTC' })).json() as { id: string };
    const path = `/api/v1/stores/${held}/payouts`;
    const made = await gf(t.app, key, 'POST', path, { pullPaymentId: pull.id, destination: payeeAddress(), amount: '0.0002', metadata: { source: 'payroll run 7' } });
    expect(made.statusCode, made.body).toBe(200);
    expect(made.json()).toMatchObject({ pullPaymentId: pull.id, state: 'AwaitingApproval', metadata: { source: 'payroll run 7' } });
    const noPull = await gf(t.app, key, 'POST', path, { destination: payeeAddress() });
    expect(noPull.json()).toEqual([{ path: 'pullPaymentId', message: expect.any(String) }]);
    const notAllowed = await gf(t.app, limitedKey, 'POST', path, { pullPaymentId: pull.id, destination: payeeAddress(), approved: true });
    expect(notAllowed.json()).toEqual([{ path: 'approved', message: expect.stringContaining('cancreatepullpayments') }]);
    const otherStore = await gf(t.app, wKey, 'POST', `/api/v1/stores/${watchOnly}/payouts`, { pullPaymentId: pull.id, destination: payeeAddress() });
    expect(otherStore.statusCode).toBe(404);
    expect(otherStore.json()).toMatchObject({ code: 'pullpayment-not-found' });
  });

  it('a name beginning with "Refund" stays a refund and must name an invoice', async () => {
    const res = await createPull({ name: 'Refund of order 999; damaged', amount: '0.001', currency: 'BTC' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual([{ path: 'name', message: expect.stringContaining('no invoice of this store has order number "999"') }]);
  });
});
