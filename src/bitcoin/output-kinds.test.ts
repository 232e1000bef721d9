import { describe, expect, it } from 'vitest';
import { p2ms, p2pkh, p2sh, p2tr, p2wpkh, p2wsh } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ALL_OUTPUT_KINDS, OUTPUT_KINDS, MAX_MULTISIG_KEYS } from './output-kinds.ts';
import { addressFromScript } from './address.ts';
import { sortKeys } from './script-build.ts';

const keys = [1, 2, 3].map((i) => secp256k1.getPublicKey(Uint8Array.from({ length: 32 }, (_, j) => (j === 31 ? i : 0x11)), true));
const hex = (b: Uint8Array | undefined) => Buffer.from(b ?? []).toString('hex');
const policy = { threshold: 2, sorted: true };

describe('the output-kinds table', () => {
  it('builds the same scripts as @scure/btc-signer for every kind', () => {
    const k = keys[0]!;
    const sorted = sortKeys(keys);
    const expected: Record<string, { script: Uint8Array; redeemScript?: Uint8Array; witnessScript?: Uint8Array }> = {
      p2pkh: p2pkh(k),
      'p2sh-p2wpkh': p2sh(p2wpkh(k)),
      p2wpkh: p2wpkh(k),
      p2tr: p2tr(k.subarray(1)),
      'p2wsh-multisig': p2wsh(p2ms(2, sorted)),
      'p2sh-p2wsh-multisig': p2sh(p2wsh(p2ms(2, sorted))),
      'p2sh-multisig': p2sh(p2ms(2, sorted)),
    };
    for (const kind of ALL_OUTPUT_KINDS) {
      const row = OUTPUT_KINDS[kind];
      const ours = row.spend(row.family === 'multisig' ? keys : [k], policy);
      const theirs = expected[kind]!;
      expect(hex(ours.script), kind).toBe(hex(theirs.script));
      expect(hex(ours.redeemScript), kind).toBe(hex(theirs.redeemScript));
      expect(hex(ours.witnessScript), kind).toBe(hex(theirs.witnessScript));
    }
  });

  it('encodes each kind as its row says', () => {
    const prefix = { base58: /^[13]/, bech32: /^bc1q/, bech32m: /^bc1p/ };
    for (const kind of ALL_OUTPUT_KINDS) {
      const row = OUTPUT_KINDS[kind];
      const { script } = row.spend(row.family === 'multisig' ? keys : [keys[0]!], policy);
      expect(addressFromScript(script, 'mainnet'), kind).toMatch(prefix[row.encoding]);
    }
  });

  it('keeps multisig within the P2SH push limit and CHECKMULTISIG’s key limit', () => {
    const many = Array.from({ length: 21 }, (_, i) => secp256k1.getPublicKey(Uint8Array.from({ length: 32 }, (_, j) => (j === 31 ? i + 1 : 0x22)), true));
    expect(OUTPUT_KINDS['p2sh-multisig'].spend(many.slice(0, 15), { threshold: 15, sorted: true }).redeemScript!.length).toBeLessThanOrEqual(520);
    expect(() => OUTPUT_KINDS['p2sh-multisig'].spend(many.slice(0, 16), policy)).toThrow(RangeError);
    expect(OUTPUT_KINDS['p2wsh-multisig'].spend(many.slice(0, MAX_MULTISIG_KEYS.p2wsh), policy).witnessScript!.length).toBe(20 * 34 + 4);
    expect(() => OUTPUT_KINDS['p2wsh-multisig'].spend(many, policy)).toThrow(RangeError);
    expect(() => OUTPUT_KINDS['p2wsh-multisig'].spend(keys, { threshold: 4, sorted: true })).toThrow(RangeError);
  });
});
