import { describe, expect, it } from 'vitest';
import { HDKey } from '@scure/bip32';
import { Transaction } from '@scure/btc-signer';
import { base64 } from '@scure/base';
import { mnemonicToSeedSync } from '@scure/bip39';
import { parseExtendedPublicKey, versionsForKind } from '../bitcoin/extended-key.ts';
import { deriveAddress } from '../bitcoin/receive-address.ts';
import { buildWatchOnlyPsbt, formatKeyOrigin, keyOrigin, parseKeyOrigin, readSignedTransaction } from './psbt.ts';

// BIP84's test mnemonic, as a test-network (vpub) account at depth 3, and an Electrum-style account at m/0' (depth 1).
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const root = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC), versionsForKind('vpub'));
const bip84 = root.derive("m/84'/1'/0'");
const electrumStyle = root.derive("m/0'");

/** A serialized one-in one-out transaction paying `amount` to `script` (its input is arbitrary). */
function previousTx(script: Uint8Array, amount: bigint): Uint8Array {
  const value = Buffer.alloc(8);
  value.writeBigUInt64LE(amount);
  return Buffer.concat([
    Buffer.from('02000000' + '01' + '11'.repeat(32) + '00000000' + '0151' + 'ffffffff' + '01', 'hex'),
    value,
    Buffer.from([script.length]),
    script,
    Buffer.from('00000000', 'hex'),
  ]);
}

function psbtFor(account: HDKey, origin?: string) {
  const key = parseExtendedPublicKey(account.publicExtendedKey);
  const coin = deriveAddress(key, 0, 3, 'p2wpkh', 'regtest');
  const change = deriveAddress(key, 1, 0, 'p2wpkh', 'regtest');
  const prev = Transaction.fromRaw(previousTx(coin.script, 50_000n), { allowUnknownInputs: true });
  const text = buildWatchOnlyPsbt({
    key,
    origin: origin ?? null,
    scriptType: 'p2wpkh',
    inputs: [{ txid: prev.id, vout: 0, value: 50_000n, script: coin.script, prevTx: previousTx(coin.script, 50_000n), branch: 0, index: 3 }],
    outputs: [{ script: deriveAddress(key, 0, 9, 'p2wpkh', 'regtest').script, amount: 20_000n }],
    change: { script: change.script, amount: 29_000n, index: 0 },
    testnet: true,
  });
  return { key, text, tx: Transaction.fromPSBT(base64.decode(text), { allowLegacyWitnessUtxo: true }) };
}

describe('PSBT key origins', () => {
  it('a depth-3 BIP84 account key: derivations name the account key itself with 0/i and 1/i, no global xpub', () => {
    const { key, tx } = psbtFor(bip84);
    expect(keyOrigin(key)).toEqual({ fingerprint: bip84.fingerprint, prefix: [], writeGlobalXpub: false });
    expect(tx.getInput(0).bip32Derivation).toEqual([[bip84.deriveChild(0).deriveChild(3).publicKey, { fingerprint: bip84.fingerprint, path: [0, 3] }]]);
    expect(tx.getOutput(1).bip32Derivation).toEqual([[bip84.deriveChild(1).deriveChild(0).publicKey, { fingerprint: bip84.fingerprint, path: [1, 0] }]]);
    expect((tx as unknown as { global: { xpub?: unknown } }).global.xpub).toBeUndefined();
  });

  it('a depth-1 key (Electrum seed, m/0h): its own parent fingerprint and child number, and the global xpub with that origin', () => {
    const { key, tx } = psbtFor(electrumStyle);
    expect(keyOrigin(key)).toEqual({ fingerprint: root.fingerprint, prefix: [0x80000000], writeGlobalXpub: true });
    expect(tx.getInput(0).bip32Derivation![0]![1]).toEqual({ fingerprint: root.fingerprint, path: [0x80000000, 0, 3] });
    const xpubs = (tx as unknown as { global: { xpub: [{ depth: number; publicKey: Uint8Array }, { fingerprint: number; path: number[] }][] } }).global.xpub;
    expect(xpubs).toHaveLength(1);
    expect(xpubs[0]![0].depth).toBe(1);
    expect(xpubs[0]![0].publicKey).toEqual(electrumStyle.publicKey);
    expect(xpubs[0]![1]).toEqual({ fingerprint: root.fingerprint, path: [0x80000000] });
  });

  it('an operator-given origin of a depth-3 key is written on every derivation and as the global xpub', () => {
    const origin = `[${root.fingerprint.toString(16).padStart(8, '0')}/84h/1h/0h]`;
    expect(parseKeyOrigin(origin)).toEqual({ fingerprint: root.fingerprint, path: [0x80000054, 0x80000001, 0x80000000] });
    expect(formatKeyOrigin(parseKeyOrigin(`[${root.fingerprint.toString(16).padStart(8, '0')}/84'/1'/0']`))).toBe(origin);
    const { tx } = psbtFor(bip84, origin);
    expect(tx.getInput(0).bip32Derivation![0]![1]).toEqual({ fingerprint: root.fingerprint, path: [0x80000054, 0x80000001, 0x80000000, 0, 3] });
    const xpubs = (tx as unknown as { global: { xpub: [{ depth: number }, { fingerprint: number; path: number[] }][] } }).global.xpub;
    expect(xpubs[0]![1]).toEqual({ fingerprint: root.fingerprint, path: [0x80000054, 0x80000001, 0x80000000] });
    // An origin whose length does not match the key's depth is not used (BIP174 would be broken).
    expect(keyOrigin(parseExtendedPublicKey(bip84.publicExtendedKey), `[${root.fingerprint.toString(16)}/84h/1h]`).writeGlobalXpub).toBe(false);
    expect(() => parseKeyOrigin('[xyz/1]')).toThrow(RangeError);
  });

  it('the owner of the account key signs the PSBT from the derivation it carries, and the result reads back', () => {
    const { tx } = psbtFor(bip84);
    const [pub, der] = tx.getInput(0).bip32Derivation![0]!;
    const signer = bip84.derive(`m/${der.path.join('/')}`);
    expect(signer.publicKey).toEqual(pub);
    tx.signIdx(signer.privateKey!, 0);
    const signed = readSignedTransaction(base64.encode(tx.toPSBT(0)));
    expect(signed.outputs.map((o) => o.amount)).toEqual([20_000n, 29_000n]);
    expect(() => readSignedTransaction(psbtFor(bip84).text)).toThrow(/not fully signed|not signed/);
    expect(() => readSignedTransaction('not a transaction')).toThrow(/expected a signed PSBT/);
  });
});
