// Refunds of watch-only multisig and taproot wallets on a real bcoin regtest node: the PSBT carries what each
// cosigner needs to sign alone, the cosigners' partially signed PSBTs are combined and finalised at the threshold,
// and the transaction is recorded before it is broadcast, then confirmed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { SigHash, Transaction } from '@scure/btc-signer';
import { base64 } from '@scure/base';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { inMempool, payWallet, sessionOwning } from '../../test/support/refund-fixtures.ts';
import { signingCosigner, type SigningCosigner } from '../../test/support/psbt-cosigners.ts';
import { addressForPublicKey } from '../bitcoin/address.ts';
import { OUTPUT_KINDS } from '../bitcoin/output-kinds.ts';
import { walletKeyOf } from '../bitcoin/wallet-key.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';

const payee = () => addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');
const psbtOf = (text: string) => Transaction.fromPSBT(base64.decode(text), { allowLegacyWitnessUtxo: true });
const HARD = 0x80000000;

describe.each(testEngines())('refunds of watch-only multisig and taproot wallets on %s', (engine) => {
  let node: RegtestNode;
  let t: TestApp;

  beforeAll(async () => {
    node = await startRegtestNode();
    t = await createTestApp(engine, { chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } }, env: { SATGATE_FALLBACK_FEE_RATE: '2' } });
    await t.ctx.chains.pollNow();
  }, 240_000);

  afterAll(async () => {
    await t?.close();
    await node?.stop();
  });

  /** Registers the wallet, pays it, schedules one refund of `amount` BTC; the wallet, a session and the payee address. */
  async function walletWithScheduledRefund(pub: string, amount = '0.0015') {
    const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub, currency: 'testBTC' } });
    expect(added.json(), added.body).toMatchObject({ return: '0' });
    const wallet = (await t.ctx.wallets.repo.findByApiId(added.json().api_id))!;
    const token = await sessionOwning(t.ctx, `${wallet.api_id}@example.test`, [wallet.id]);
    const payment = await payWallet(t.ctx, node, wallet, [400_000n]);
    const post = async (url: string, body: unknown) =>
      (await t.app.inject({ method: 'POST', url, payload: body as object, headers: { authorization: token } })).json() as Record<string, any>;
    const requested = await post('/refund_request', { tx_id: payment.txid, refund_amount: amount });
    expect(requested, JSON.stringify(requested)).toMatchObject({ return: "0" });
    const address = payee();
    expect((await post('/set_refund_addr', { refund_form_token: requested.refund.refund_form_token, refund_addr: address })).refund).toEqual({ status: 'Scheduled', tx_id: '' });
    const psbt = async () => {
      const res = (await t.app.inject({ method: 'GET', url: `/refunds/psbt?api_id=${wallet.api_id}`, headers: { authorization: token } })).json();
      expect(res, JSON.stringify(res)).toMatchObject({ return: '0' });
      return res as { psbt: string; fee: string; fee_rate: number };
    };
    const submit = (psbt: unknown) => post('/refunds/signed', { api_id: wallet.api_id, psbt });
    const refundState = async () => {
      const list = (await t.app.inject({ method: 'GET', url: '/refunds', headers: { authorization: token } })).json();
      return list.refunds.find((r: { refund_addr: string }) => r.refund_addr === address);
    };
    return { wallet, psbt, submit, refundState, address };
  }

  async function confirm(txid: string) {
    expect(await inMempool(node, txid)).toBe(true);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();
    await node.mine(1);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();
  }

  /** Each cosigner's key in the input's BIP32 derivations, with the origin the descriptor gave and 0/i or 1/i. */
  function expectCosignerDerivations(input: ReturnType<Transaction['getInput']>, cosigners: SigningCosigner[], wallet: WalletRow) {
    const ders = input.bip32Derivation!.map(([, d]) => d);
    expect(ders.map((d) => d.fingerprint).sort()).toEqual(cosigners.map((c) => c.root.fingerprint).sort());
    for (const d of ders) expect(d.path.slice(0, 4)).toEqual([48 + HARD, 1 + HARD, HARD, 2 + HARD]);
    const [branch, index] = ders[0]!.path.slice(4) as [0 | 1, number];
    const out = branch === 0 ? walletKeyOf(wallet, 'regtest').receive(index) : walletKeyOf(wallet, 'regtest').change(index);
    expect(Buffer.from(input.witnessScript!).equals(Buffer.from(out.witnessScript!))).toBe(true);
    return out;
  }

  it('2-of-3 wsh(sortedmulti): each cosigner signs the PSBT alone; one signature is refused, two are combined, recorded, broadcast and confirmed', async () => {
    const [a, b, c] = [signingCosigner(), signingCosigner(), signingCosigner()];
    const r = await walletWithScheduledRefund(`wsh(sortedmulti(2,${a.withOrigin}/<0;1>/*,${b.withOrigin}/<0;1>/*,${c.withOrigin}/<0;1>/*))`);
    const unsigned = await r.psbt();
    const parsed = psbtOf(unsigned.psbt);
    const input = parsed.getInput(0);
    expectCosignerDerivations(input, [a, b, c], r.wallet);
    expect(input.witnessUtxo).toBeDefined();
    expect(input.nonWitnessUtxo).toBeDefined();
    expect(input.redeemScript).toBeUndefined();
    // Global xpubs: every cosigner's account key with its whole origin.
    const globals = (parsed as unknown as { global: { xpub?: [unknown, { fingerprint: number; path: number[] }][] } }).global.xpub!;
    expect(globals.map(([, o]) => o.fingerprint).sort()).toEqual([a, b, c].map((x) => x.root.fingerprint).sort());
    // The change output carries the wallet's own scripts, so a signer recognises it as change.
    const change = parsed.getOutput(1);
    expect(change.witnessScript).toBeDefined();
    expect(change.bip32Derivation).toHaveLength(3);
    // The fee is the rate times the size of a 2-of-3 P2WSH input, one refund output and the change.
    const row = OUTPUT_KINDS['p2wsh-multisig'].inputSize(71, 2, 3);
    expect(row).toEqual({ base: 41, witness: 1 + 1 + 2 * 72 + 1 + 105 });

    const byA = a.sign(unsigned.psbt);
    const byC = c.sign(unsigned.psbt);
    const alone = await r.submit(byA);
    expect(alone).toMatchObject({ return: '201', status: expect.stringContaining('1 of the 2 signatures') });
    expect(await t.ctx.db.kysely.selectFrom('spends').selectAll().where('wallet_id', '=', r.wallet.id).execute()).toEqual([]);

    const accepted = await r.submit([byA, byC]);
    expect(accepted, JSON.stringify(accepted)).toMatchObject({ return: '0', tx_id: expect.stringMatching(/^[0-9a-f]{64}$/), fee: unsigned.fee });
    const stored = await t.ctx.db.kysely.selectFrom('spends').select(['txid', 'fee_sats', 'vsize']).where('wallet_id', '=', r.wallet.id).executeTakeFirstOrThrow();
    expect(stored.txid).toBe(accepted.tx_id);
    // The fee was the rate times the estimate, an upper bound of the signed size that is at most 2 vbytes above it.
    const estimate = Number(stored.fee_sats) / unsigned.fee_rate;
    expect(Number(stored.vsize)).toBeLessThanOrEqual(estimate);
    expect(Number(stored.vsize)).toBeGreaterThanOrEqual(estimate - 2);
    await confirm(accepted.tx_id);
    expect(await r.refundState()).toMatchObject({ state: 'confirmed', tx_id: accepted.tx_id, confirmations: 1 });
    // The same cosigners' PSBTs again: nothing is scheduled any more, and no coin is spent twice.
    expect((await r.submit([byA, byC])).return).toBe('201');
    expect(await t.ctx.db.kysely.selectFrom('spends').selectAll().where('wallet_id', '=', r.wallet.id).execute()).toHaveLength(1);
  });

  it('2-of-3 sh(wsh(multi)) keeps the keys in the order given; the PSBT carries redeem and witness script; two cosigners pasted as one text are combined', async () => {
    const path = "m/48'/1'/0'/1'";
    const [a, b, c] = [signingCosigner(path), signingCosigner(path), signingCosigner(path)];
    const r = await walletWithScheduledRefund(`sh(wsh(multi(2,${a.withOrigin}/0/*,${b.withOrigin}/0/*,${c.withOrigin}/0/*)))`);
    const unsigned = await r.psbt();
    const input = psbtOf(unsigned.psbt).getInput(0);
    expect(input.redeemScript).toBeDefined();
    expect(input.witnessScript).toBeDefined();
    const ders = new Map(input.bip32Derivation!.map(([pub, d]) => [Buffer.from(pub).toString('hex'), d.fingerprint]));
    // multi(): the witness script lists a, b, c in the descriptor's order.
    const inScript = [...Buffer.from(input.witnessScript!).toString('hex').matchAll(/21(0[23][0-9a-f]{64})/g)].map((m) => ders.get(m[1]!));
    expect(inScript).toEqual([a, b, c].map((x) => x.root.fingerprint));

    const accepted = await r.submit(`${b.sign(unsigned.psbt)}\n${c.sign(unsigned.psbt)}\n`);
    expect(accepted, JSON.stringify(accepted)).toMatchObject({ return: '0' });
    await confirm(accepted.tx_id);
    expect(await r.refundState()).toMatchObject({ state: 'confirmed', confirmations: 1 });
  });

  it('a cosigner’s signature of another transaction is named and refused; PSBTs of different transactions are not combined', async () => {
    const [a, b] = [signingCosigner(), signingCosigner()];
    const r = await walletWithScheduledRefund(`wsh(sortedmulti(2,${a.withOrigin}/<0;1>/*,${b.withOrigin}/<0;1>/*))`);
    const unsigned = await r.psbt();
    const other = psbtOf(unsigned.psbt);
    other.updateOutput(1, { amount: other.getOutput(1).amount! - 1n });
    const otherByB = b.sign(base64.encode(other.toPSBT(0)));
    expect(await r.submit([a.sign(unsigned.psbt), otherByB])).toMatchObject({ return: '201', status: expect.stringContaining('not of one transaction') });
    // B's signature of the other transaction moved into the right one.
    const right = psbtOf(a.sign(unsigned.psbt));
    const stolen = psbtOf(otherByB).getInput(0).partialSig!;
    right.updateInput(0, { partialSig: stolen });
    const refused = await r.submit(base64.encode(right.toPSBT(0)));
    expect(refused).toMatchObject({ return: '201', status: expect.stringContaining(`the signature of cosigner ${b.fingerprint} does not verify`) });
    expect(await t.ctx.db.kysely.selectFrom('spends').selectAll().where('wallet_id', '=', r.wallet.id).execute()).toEqual([]);
  });

  it('2-of-2 bare sh(sortedmulti): the PSBT carries the redeem script and previous transaction; one PSBT signed in turn by both is taken alone', async () => {
    const path = "m/45'";
    const [a, b] = [signingCosigner(path), signingCosigner(path)];
    const r = await walletWithScheduledRefund(`sh(sortedmulti(2,${a.withOrigin}/0/*,${b.withOrigin}/0/*))`);
    const unsigned = await r.psbt();
    const input = psbtOf(unsigned.psbt).getInput(0);
    expect(input.redeemScript).toBeDefined();
    expect(input.witnessScript).toBeUndefined();
    expect(input.nonWitnessUtxo).toBeDefined();
    expect(input.bip32Derivation).toHaveLength(2);
    const accepted = await r.submit(b.sign(a.sign(unsigned.psbt)));
    expect(accepted, JSON.stringify(accepted)).toMatchObject({ return: '0' });
    await confirm(accepted.tx_id);
    expect(await r.refundState()).toMatchObject({ state: 'confirmed', confirmations: 1 });
  });

  it('a list that is empty, holds a non-text or mixes a PSBT with a raw transaction is refused and nothing is stored', async () => {
    const [a, b] = [signingCosigner(), signingCosigner()];
    const r = await walletWithScheduledRefund(`wsh(sortedmulti(1,${a.withOrigin}/0/*,${b.withOrigin}/0/*))`);
    const unsigned = await r.psbt();
    expect(await r.submit([])).toMatchObject({ return: '201', status: expect.stringContaining("list of the cosigners' partially signed PSBTs") });
    expect(await r.submit([a.sign(unsigned.psbt), 7])).toMatchObject({ return: '201' });
    expect(await r.submit([a.sign(unsigned.psbt), '0200000000'])).toMatchObject({ return: '201', status: expect.stringContaining('each is a PSBT') });
    expect(await t.ctx.db.kysely.selectFrom('spends').selectAll().where('wallet_id', '=', r.wallet.id).execute()).toEqual([]);
    // 1-of-2: one cosigner's signature is the threshold.
    const accepted = await r.submit([a.sign(unsigned.psbt)]);
    expect(accepted, JSON.stringify(accepted)).toMatchObject({ return: '0' });
  });

  it('tr(): the PSBT carries the BIP371 internal key and taproot derivation; a BIP86 signer’s key-path signature is finalised, broadcast and confirmed', async () => {
    const a = signingCosigner("m/86'/1'/0'");
    const r = await walletWithScheduledRefund(`tr(${a.withOrigin}/0/*)`);
    const unsigned = await r.psbt();
    const input = psbtOf(unsigned.psbt).getInput(0);
    const key = walletKeyOf(r.wallet, 'regtest');
    const [[xonly, der]] = input.tapBip32Derivation! as [[Uint8Array, { hashes: Uint8Array[]; der: { fingerprint: number; path: number[] } }]];
    expect(der.hashes).toEqual([]);
    expect(der.der.fingerprint).toBe(a.root.fingerprint);
    expect(der.der.path.slice(0, 3)).toEqual([86 + HARD, 1 + HARD, HARD]);
    const index = der.der.path[4]!;
    expect(Buffer.from(input.tapInternalKey!).equals(Buffer.from(key.receive(index).tapInternalKey!))).toBe(true);
    expect(Buffer.from(xonly).equals(Buffer.from(input.tapInternalKey!))).toBe(true);
    expect(psbtOf(unsigned.psbt).getOutput(1).tapInternalKey).toBeDefined();

    const signed = a.sign(unsigned.psbt);
    // The key-path signature verifies against the output key under BIP341's sighash (checked here because bcoin
    // 1.0.2 does not validate witness v1 spends: it treats them as upgradable and refuses them from its mempool).
    const signedTx = psbtOf(signed);
    const spent = signedTx.getInput(0).witnessUtxo!;
    const sighash = signedTx.preimageWitnessV1(0, [spent.script], SigHash.DEFAULT, [spent.amount]);
    expect(schnorr.verify(signedTx.getInput(0).tapKeySig!, sighash, spent.script.subarray(2))).toBe(true);

    const accepted = await r.submit(signed);
    expect(accepted, JSON.stringify(accepted)).toMatchObject({ return: '0' });
    const stored = await t.ctx.db.kysely.selectFrom('spends').select(['raw_hex', 'txid']).where('wallet_id', '=', r.wallet.id).executeTakeFirstOrThrow();
    expect(stored.txid).toBe(accepted.tx_id);
    // bcoin's mempool answers "non-mandatory-script-verify-flag" for a taproot spend, so a block built here mines it.
    await expect(node.sendAndWait(stored.raw_hex)).rejects.toThrow(/non-mandatory-script-verify-flag/);
    await node.mineBlockWith([stored.raw_hex]);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();
    expect(await r.refundState()).toMatchObject({ state: 'confirmed', tx_id: accepted.tx_id, confirmations: 1 });
  });
});
