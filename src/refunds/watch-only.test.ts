import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Transaction } from '@scure/btc-signer';
import { base64 } from '@scure/base';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { inMempool, payWallet, sessionOwning } from '../../test/support/refund-fixtures.ts';
import { ElectrumWallet, electrumAvailable } from '../../test/support/electrum.ts';
import { addressForPublicKey } from '../bitcoin/address.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';

const payeeScript = () => {
  const pub = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
  return addressForPublicKey(pub, 'p2wpkh', 'regtest');
};

const hasElectrum = electrumAvailable();
const reason = 'electrum is not installed here (apt-get install electrum); CI=true never skips this';
if (!hasElectrum && process.env.CI !== 'true') console.warn(`skipping the Electrum PSBT round trip: ${reason}`);

describe.skipIf(!hasElectrum && process.env.CI !== 'true').each(testEngines())('refunds of a watch-only wallet signed by Electrum on %s', (engine) => {
  let node: RegtestNode;
  let t: TestApp;
  let electrum: ElectrumWallet;
  let wallet: WalletRow;
  let token: string;
  let payment: { txid: string };

  async function post(url: string, body: unknown) {
    const res = await t.app.inject({ method: 'POST', url, payload: body as object, headers: { authorization: token } });
    return res.json() as Record<string, any>;
  }
  async function psbt(): Promise<string> {
    const res = await t.app.inject({ method: 'GET', url: `/refunds/psbt?api_id=${wallet.api_id}`, headers: { authorization: token } });
    const body = res.json();
    expect(body.return).toBe('0');
    return body.psbt as string;
  }
  function tamper(psbtText: string, change: (tx: Transaction) => void): string {
    const tx = Transaction.fromPSBT(base64.decode(psbtText), { allowLegacyWitnessUtxo: true });
    change(tx);
    return base64.encode(tx.toPSBT(0));
  }

  beforeAll(async () => {
    node = await startRegtestNode();
    electrum = await ElectrumWallet.createAndRestore();
    t = await createTestApp(engine, { chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } }, env: { SATGATE_FALLBACK_FEE_RATE: '2' } });
    const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: electrum.mpk } });
    wallet = (await t.ctx.wallets.repo.findByApiId(added.json().api_id))!;
    token = await sessionOwning(t.ctx, 'watch@example.test', [wallet.id]);
    await t.ctx.chains.pollNow();
    payment = await payWallet(t.ctx, node, wallet, [400_000n]);
  }, 240_000);

  afterAll(async () => {
    electrum?.dispose();
    await t?.close();
    await node?.stop();
  });

  it('the PSBT from GET /refunds/psbt is signed offline by Electrum restored from the seed, posted back, broadcast and confirmed', async () => {
    const requested = await post('/refund_request', { tx_id: payment.txid, refund_amount: '0.0015' });
    const address = payeeScript();
    const set = await post('/set_refund_addr', { refund_form_token: requested.refund.refund_form_token, refund_addr: address });
    expect(set.refund).toEqual({ status: 'Scheduled', tx_id: '' });

    const unsigned = await psbt();
    const parsed = Transaction.fromPSBT(base64.decode(unsigned), { allowLegacyWitnessUtxo: true });
    const der = parsed.getInput(0).bip32Derivation![0]![1];
    // An Electrum segwit seed's key sits at m/0': origin = its parent (the seed root) and 0', then 0/i.
    expect(der.path.slice(0, 2)).toEqual([0x80000000, 0]);

    // Altered to pay another address, or to pay a larger fee: Electrum signs it, satgate refuses it.
    const redirected = await electrum.signTransaction(tamper(unsigned, (tx) => tx.updateOutput(0, { script: Buffer.from(parsed.getOutput(1).script!) })));
    const refusedAddress = await post('/refunds/signed', { api_id: wallet.api_id, psbt: redirected });
    expect(refusedAddress).toMatchObject({ return: '201', status: expect.stringContaining('neither a scheduled refund nor change') });
    const greedy = await electrum.signTransaction(tamper(unsigned, (tx) => tx.updateOutput(1, { amount: parsed.getOutput(1).amount! - 50_000n })));
    const refusedFee = await post('/refunds/signed', { api_id: wallet.api_id, tx: greedy });
    expect(refusedFee).toMatchObject({ return: '201', status: expect.stringContaining('more than 5%') });
    expect(await t.ctx.db.kysely.selectFrom('spends').selectAll().execute()).toEqual([]);

    const signed = await electrum.signTransaction(unsigned);
    const accepted = await post('/refunds/signed', { api_id: wallet.api_id, tx: signed });
    expect(accepted).toMatchObject({ return: '0', tx_id: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await inMempool(node, accepted.tx_id)).toBe(true);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();
    await node.mine(1);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();
    const list = (await t.app.inject({ method: 'GET', url: '/refunds', headers: { authorization: token } })).json();
    expect(list.refunds[0]).toMatchObject({ refund_addr: address, refund_amount: '0.0015', status: 'Processing', state: 'confirmed', tx_id: accepted.tx_id, confirmations: 1 });

    // Posting it again, or a PSBT when nothing is scheduled, is refused.
    expect((await post('/refunds/signed', { api_id: wallet.api_id, tx: signed })).return).toBe('201');
    expect((await t.app.inject({ method: 'GET', url: `/refunds/psbt?api_id=${wallet.api_id}`, headers: { authorization: token } })).json().return).toBe('201');
  });

  it('someone else’s wallet reads like an unknown one', async () => {
    const stranger = await sessionOwning(t.ctx, 'stranger@example.test', []);
    const res = await t.app.inject({ method: 'GET', url: `/refunds/psbt?api_id=${wallet.api_id}`, headers: { authorization: stranger } });
    expect(res.json().return).toBe('303');
  });
});
