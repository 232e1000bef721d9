// Electrum 4.3 as the three cosigners of a 2-of-3 P2WSH and a 2-of-3 P2SH-P2WSH multisig wallet: satgate,
// registered with the cosigners' keys (Vpub list) or the matching descriptor, derives Electrum's addresses, sees a
// payment to the wallet confirmed, and broadcasts a refund two of the Electrum wallets signed offline, each alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Transaction } from '@scure/btc-signer';
import { base64 } from '@scure/base';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { inMempool, payWallet, sessionOwning } from '../../test/support/refund-fixtures.ts';
import { electrumAvailable } from '../../test/support/electrum.ts';
import { ElectrumMultisig } from '../../test/support/electrum-multisig.ts';
import { withVersion } from '../../test/support/cosigner-keys.ts';
import { addressForPublicKey } from '../bitcoin/address.ts';
import { walletKeyOf } from '../bitcoin/wallet-key.ts';

const hasElectrum = electrumAvailable();
const reason = 'electrum is not installed here (apt-get install electrum); CI=true never skips this';
if (!hasElectrum && process.env.CI !== 'true') console.warn(`skipping the Electrum multisig refunds: ${reason}`);

const TPUB = 0x043587cf;
const ADDRESSES = 40;
const payee = () => addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');

describe.skipIf(!hasElectrum && process.env.CI !== 'true').each(testEngines())('Electrum 2-of-3 multisig wallets as cosigners on %s', (engine) => {
  let node: RegtestNode;
  let t: TestApp;
  const electrums: ElectrumMultisig[] = [];

  beforeAll(async () => {
    node = await startRegtestNode();
    t = await createTestApp(engine, { chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } }, env: { SATGATE_FALLBACK_FEE_RATE: '2' } });
    await t.ctx.chains.pollNow();
  }, 240_000);

  afterAll(async () => {
    for (const e of electrums) e.dispose();
    await t?.close();
    await node?.stop();
  });

  const shapes = [
    {
      xtype: 'p2wsh' as const,
      registered: 'as the Vpub keys Electrum shows',
      pub: (e: ElectrumMultisig) => `2-of-${e.cosigners.map((c) => c.xpub).join('-')}`,
      address: /^bcrt1q.{58}$/,
    },
    {
      xtype: 'p2wsh-p2sh' as const,
      registered: 'as the sh(wsh(sortedmulti)) descriptor with the keystores’ origins',
      pub: (e: ElectrumMultisig) =>
        `sh(wsh(sortedmulti(2,${e.cosigners.map((c) => `[${c.fingerprint}/1h]${withVersion(c.xpub, TPUB)}/<0;1>/*`).join(',')})))`,
      address: /^2[MN]/,
    },
  ];

  it.each(shapes)('$xtype registered $registered: the first 40 receive and change addresses, a confirmed payment, a refund signed by two Electrum cosigners', async (shape) => {
    const electrum = await ElectrumMultisig.create(shape.xtype, ADDRESSES);
    electrums.push(electrum);
    expect(electrum.txinType).toBe(shape.xtype);
    const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: shape.pub(electrum), currency: 'testBTC' } });
    expect(added.json(), added.body).toMatchObject({ return: '0' });
    const wallet = (await t.ctx.wallets.repo.findByApiId(added.json().api_id))!;
    const key = walletKeyOf(wallet, 'regtest');
    expect(Array.from({ length: ADDRESSES }, (_, i) => key.receive(i).address)).toEqual(electrum.receive);
    expect(Array.from({ length: ADDRESSES }, (_, i) => key.change(i).address)).toEqual(electrum.change);
    expect(electrum.receive[0]).toMatch(shape.address);

    // A payment to an address the wallet issued is seen and confirmed, at one of Electrum's addresses.
    const payment = await payWallet(t.ctx, node, wallet, [400_000n]);
    expect(electrum.receive).toContain(payment.addresses[0]);
    expect((await t.app.inject({ method: 'GET', url: `/balance/${payment.addresses[0]}` })).json().balance).toEqual({ confirmed: '0.004', unconfirmed: '0' });

    const token = await sessionOwning(t.ctx, `${wallet.api_id}@example.test`, [wallet.id]);
    const post = async (url: string, body: unknown) =>
      (await t.app.inject({ method: 'POST', url, payload: body as object, headers: { authorization: token } })).json() as Record<string, any>;
    const requested = await post('/refund_request', { tx_id: payment.txid, refund_amount: '0.0015' });
    expect(requested, JSON.stringify(requested)).toMatchObject({ return: '0' });
    const address = payee();
    expect((await post('/set_refund_addr', { refund_form_token: requested.refund.refund_form_token, refund_addr: address })).refund).toEqual({ status: 'Scheduled', tx_id: '' });
    const unsigned = (await t.app.inject({ method: 'GET', url: `/refunds/psbt?api_id=${wallet.api_id}`, headers: { authorization: token } })).json();
    expect(unsigned.return).toBe('0');

    // Cosigners 1 and 3 sign offline, each the unsigned PSBT alone; neither result is a complete transaction.
    const first = await electrum.sign(0, unsigned.psbt);
    const third = await electrum.sign(2, unsigned.psbt);
    for (const partial of [first, third]) {
      const tx = Transaction.fromPSBT(base64.decode(partial), { allowLegacyWitnessUtxo: true });
      expect(tx.getInput(0).partialSig).toHaveLength(1);
    }
    expect(await post('/refunds/signed', { api_id: wallet.api_id, psbt: first })).toMatchObject({ return: '201', status: expect.stringContaining('1 of the 2 signatures') });
    const accepted = await post('/refunds/signed', { api_id: wallet.api_id, psbt: [first, third] });
    expect(accepted, JSON.stringify(accepted)).toMatchObject({ return: '0', tx_id: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await inMempool(node, accepted.tx_id)).toBe(true);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();
    await node.mine(1);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();
    const mined = await node.rpc.call<{ confirmations?: number }>('getrawtransaction', [accepted.tx_id, 1]);
    expect(mined.confirmations).toBe(1);
    const list = (await t.app.inject({ method: 'GET', url: '/refunds', headers: { authorization: token } })).json();
    expect(list.refunds.find((r: { refund_addr: string }) => r.refund_addr === address)).toMatchObject({ state: 'confirmed', tx_id: accepted.tx_id, confirmations: 1 });
  }, 240_000);
});
