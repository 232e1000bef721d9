// Payouts of a watch-only wallet paid as a PSBT, on a real bcoin regtest node and both engines: the payee claims a
// payout, the merchant approves it (AwaitingPayment: satgate cannot sign), downloads the PSBT from
// GET …/payouts/psbt, signs it offline in Electrum 4.3.4 restored from the wallet's seed and posts it to
// …/payouts/signed; satgate checks it (outputs are the payouts', coins are free), stores it, broadcasts it, and the
// payout goes InProgress, then Completed once mined.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transaction } from '@scure/btc-signer';
import { base64 } from '@scure/base';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { inMempool, payWallet } from '../../test/support/refund-fixtures.ts';
import { ElectrumWallet, electrumAvailable } from '../../test/support/electrum.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { encodeAddress } from '../bitcoin/address.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';
import { POLICIES } from './permissions.ts';

const payeeAddress = () => encodeAddress(Uint8Array.from([0x00, 0x14, ...randomBytes(20)]), 'regtest');
const hasElectrum = electrumAvailable();
if (!hasElectrum && process.env.CI !== 'true') console.warn('skipping the Electrum payout PSBT round trip: electrum is not installed here; CI=true never skips this');

describe.skipIf(!hasElectrum && process.env.CI !== 'true').each(testEngines())('payouts of a watch-only wallet signed by Electrum on %s', (engine) => {
  let node: RegtestNode;
  let t: TestApp;
  let electrum: ElectrumWallet;
  let wallet: WalletRow;
  let key: string;

  beforeAll(async () => {
    node = await startRegtestNode();
    electrum = await ElectrumWallet.createAndRestore();
    t = await createTestApp(engine, { chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } }, env: { SATGATE_FALLBACK_FEE_RATE: '2' } });
    const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: electrum.mpk } });
    wallet = (await t.ctx.wallets.repo.findByApiId(added.json().api_id))!;
    key = await greenfieldKey(t.ctx, wallet.api_id, [POLICIES.managePullPayments]);
    await t.ctx.chains.pollNow();
    await payWallet(t.ctx, node, wallet, [400_000n]);
  }, 240_000);

  afterAll(async () => {
    electrum?.dispose();
    await t?.close();
    await node?.stop();
  });

  const store = () => `/api/v1/stores/${wallet.api_id}`;
  const call = (method: 'GET' | 'POST', path: string, body?: unknown) => gf(t.app, key, method, `${store()}${path}`, body);
  const payoutState = async (id: string) => ((await call('GET', `/payouts/${id}`)).json() as { state: string }).state;
  const tamper = (psbt: string, change: (tx: Transaction) => void) => {
    const tx = Transaction.fromPSBT(base64.decode(psbt), { allowLegacyWitnessUtxo: true });
    change(tx);
    return base64.encode(tx.toPSBT(0));
  };

  it('an approved payout is paid by the PSBT Electrum signs: checked, stored before broadcast, InProgress, then Completed', async () => {
    const pull = (await call('POST', '/pull-payments', { name: 'Affiliates', amount: '0.002', currency: 'BTC' })).json() as { id: string };
    const destination = payeeAddress();
    const created = await gf(t.app, null, 'POST', `/api/v1/pull-payments/${pull.id}/payouts`, { destination, amount: '0.0015', payoutMethodId: 'BTC-CHAIN' });
    expect(created.statusCode, created.body).toBe(200);
    const payoutId = (created.json() as { id: string }).id;
    // Nothing approved yet: no PSBT.
    expect((await call('GET', '/payouts/psbt')).json()).toMatchObject({ code: 'no-payouts-due' });
    const approved = await call('POST', `/payouts/${payoutId}`, { revision: 0 });
    expect(approved.json()).toMatchObject({ state: 'AwaitingPayment', paymentProof: null });

    const got = await call('GET', '/payouts/psbt');
    expect(got.statusCode, got.body).toBe(200);
    const body = got.json() as { psbt: string; payouts: unknown[] };
    expect(body.payouts).toEqual([{ id: payoutId, destination, amount: '0.0015' }]);
    const unsigned = body.psbt;
    const parsed = Transaction.fromPSBT(base64.decode(unsigned), { allowLegacyWitnessUtxo: true });
    const payoutIndex = [0, 1].find((i) => parsed.getOutput(i).amount === 150_000n)!;
    const changeIndex = 1 - payoutIndex;

    // Redirected to the change script, or paying itself a smaller amount: Electrum signs it, satgate refuses it.
    const redirected = await electrum.signTransaction(tamper(unsigned, (tx) => tx.updateOutput(payoutIndex, { script: Buffer.from(parsed.getOutput(changeIndex).script!) })));
    const refusedAddress = await call('POST', '/payouts/signed', { psbt: redirected });
    expect(refusedAddress.statusCode).toBe(400);
    expect(refusedAddress.json()).toMatchObject({ code: 'invalid-psbt', message: expect.stringContaining('neither an approved payout nor change') });
    const short = await electrum.signTransaction(tamper(unsigned, (tx) => tx.updateOutput(payoutIndex, { amount: 140_000n })));
    expect((await call('POST', '/payouts/signed', { transaction: short })).json()).toMatchObject({ code: 'invalid-psbt', message: expect.stringContaining('neither an approved payout nor change') });
    expect(await t.ctx.db.kysely.selectFrom('spends').selectAll().execute()).toEqual([]);
    expect((await call('POST', '/payouts/signed', { psbt: 42 })).statusCode).toBe(422);

    const signed = await electrum.signTransaction(unsigned);
    const accepted = await call('POST', '/payouts/signed', { transaction: signed });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const txid = (accepted.json() as { transactionId: string }).transactionId;
    expect(accepted.json()).toEqual({ transactionId: txid, fee: expect.stringMatching(/^0\.0000\d+$/), payouts: [payoutId] });
    const stored = await t.ctx.db.kysely.selectFrom('spends').select(['txid', 'purpose', 'kind']).execute();
    expect(stored).toEqual([{ txid, purpose: 'payout', kind: 'external' }]);
    expect(await inMempool(node, txid)).toBe(true);
    expect(await payoutState(payoutId)).toBe('InProgress');
    expect(((await call('GET', `/payouts/${payoutId}`)).json() as { paymentProof: unknown }).paymentProof).toEqual({ proofType: 'PayoutTransactionOnChainBlob', transactionId: txid, candidates: [txid] });

    // The same transaction again spends coins no longer free; and nothing is due any more.
    expect((await call('POST', '/payouts/signed', { transaction: signed })).json()).toMatchObject({ code: 'invalid-psbt' });
    expect((await call('GET', '/payouts/psbt')).json()).toMatchObject({ code: 'no-payouts-due' });

    await node.mine(1);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();
    expect(await payoutState(payoutId)).toBe('Completed');
  });

  it('one PSBT pays every approved payout at once; a payout approved after it was made is left for the next', async () => {
    const pull = (await call('POST', '/pull-payments', { name: 'Bounties', amount: '0.003', currency: 'BTC' })).json() as { id: string };
    const claim = async (amount: string) => {
      const res = await gf(t.app, null, 'POST', `/api/v1/pull-payments/${pull.id}/payouts`, { destination: payeeAddress(), amount });
      const id = (res.json() as { id: string }).id;
      expect((await call('POST', `/payouts/${id}`, {})).json()).toMatchObject({ state: 'AwaitingPayment' });
      return id;
    };
    const first = await claim('0.001');
    const second = await claim('0.0005');
    const res = await call('GET', '/payouts/psbt');
    expect(res.statusCode, res.body).toBe(200);
    const got = res.json() as { psbt: string; payouts: { id: string }[] };
    expect(got.payouts.map((p) => p.id)).toEqual([first, second]);
    const third = await claim('0.0007');
    // Posted twice at once: one is recorded and broadcast, the other refused (never a 500, never two spends).
    const signed = await electrum.signTransaction(got.psbt);
    const both = await Promise.all([call('POST', '/payouts/signed', { psbt: signed }), call('POST', '/payouts/signed', { psbt: signed })]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 400]);
    const accepted = both.find((r) => r.statusCode === 200)!;
    expect(both.find((r) => r.statusCode === 400)!.json()).toMatchObject({ code: 'invalid-psbt' });
    expect(await t.ctx.db.kysely.selectFrom('spends').select('id').where('txid', '=', (accepted.json() as { transactionId: string }).transactionId).execute()).toHaveLength(1);
    expect((accepted.json() as { payouts: string[] }).payouts).toEqual([first, second]);
    expect([await payoutState(first), await payoutState(second), await payoutState(third)]).toEqual(['InProgress', 'InProgress', 'AwaitingPayment']);
    // Once the change is confirmed (free again), the next PSBT pays the third alone.
    await node.mine(1);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();
    const next = await call('GET', '/payouts/psbt');
    expect(next.statusCode, next.body).toBe(200);
    expect((next.json() as { payouts: { id: string }[] }).payouts.map((p) => p.id)).toEqual([third]);
  });

  it('a service-held wallet has no payout PSBT: it pays its payouts itself', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC' } });
    const held = (res.json() as { api_id: string }).api_id;
    const heldKey = await greenfieldKey(t.ctx, held, [POLICIES.managePullPayments]);
    const answer = await gf(t.app, heldKey, 'GET', `/api/v1/stores/${held}/payouts/psbt`);
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code: 'not-watch-only' });
    // Another store's routes answer Greenfield's 404 shape, as every 404 under /api/v1 does.
    for (const [method, path] of [['GET', 'psbt'], ['POST', 'signed']] as const) {
      const other = await gf(t.app, heldKey, method, `/api/v1/stores/${wallet.api_id}/payouts/${path}`, method === 'POST' ? { transaction: '00' } : undefined);
      expect(other.statusCode).toBe(404);
      expect(Object.keys(other.json() as object).sort()).toEqual(['code', 'message']);
    }
  });
});
