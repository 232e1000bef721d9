import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { HDKey } from '@scure/bip32';
import { bytesToHex } from '@noble/hashes/utils.js';
import { loadVector } from '../../test/support/load-vector.ts';
import { ChildKeyDeriver } from './child-key.ts';

interface Bip32 { vectors: { name: string; seed_hex: string; chains: { path: string; xpub: string }[] }[] }
const bip32 = loadVector<Bip32>('bip32.json');

describe('fast public child derivation', () => {
  it('derives every non-hardened step of the BIP32 test vectors from the parent xpub alone', () => {
    let steps = 0;
    for (const v of bip32.vectors) {
      for (let i = 1; i < v.chains.length; i++) {
        const step = v.chains[i]!.path.split('/').at(-1)!;
        if (step.endsWith('H')) continue;
        const parent = HDKey.fromExtendedKey(v.chains[i - 1]!.xpub);
        const child = HDKey.fromExtendedKey(v.chains[i]!.xpub);
        const deriver = new ChildKeyDeriver(parent.publicKey!, parent.chainCode!);
        expect(bytesToHex(deriver.publicKeyAt(Number(step))), `${v.name} ${v.chains[i]!.path}`).toBe(bytesToHex(child.publicKey!));
        steps++;
      }
    }
    expect(steps).toBeGreaterThanOrEqual(4);
  });

  it('agrees with @scure/bip32 for random parents and indexes, and repeats itself', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.integer({ min: 0, max: 0x7fffffff }), (seed, index) => {
        const node = HDKey.fromMasterSeed(Uint8Array.from([...seed, 1])).deriveChild(7);
        const pub = new HDKey({ publicKey: node.publicKey!, chainCode: node.chainCode! });
        const deriver = new ChildKeyDeriver(pub.publicKey!, pub.chainCode!);
        const expected = bytesToHex(pub.deriveChild(index).publicKey!);
        expect(bytesToHex(deriver.publicKeyAt(index))).toBe(expected);
        expect(bytesToHex(deriver.publicKeyAt(index))).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('a run of children derived together equals each child derived alone', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.integer({ min: 0, max: 0x7fffffff - 40 }), fc.integer({ min: 0, max: 40 }), (seed, from, count) => {
        const node = HDKey.fromMasterSeed(Uint8Array.from([...seed, 2])).deriveChild(3);
        const deriver = new ChildKeyDeriver(node.publicKey!, node.chainCode!);
        const run = deriver.publicKeysFrom(from, count).map(bytesToHex);
        expect(run).toEqual(Array.from({ length: count }, (_, i) => bytesToHex(deriver.publicKeyAt(from + i))));
      }),
      { numRuns: 50 },
    );
  });

  it('refuses hardened, negative and fractional indexes, and a malformed parent', () => {
    const parent = HDKey.fromExtendedKey(bip32.vectors[0]!.chains[1]!.xpub);
    const deriver = new ChildKeyDeriver(parent.publicKey!, parent.chainCode!);
    for (const bad of [-1, 0x80000000, 2.5, Number.NaN]) expect(() => deriver.publicKeyAt(bad)).toThrow(RangeError);
    expect(() => deriver.publicKeysFrom(0x7fffffff, 2)).toThrow(RangeError);
    for (const bad of [-1, 1.5]) expect(() => deriver.publicKeysFrom(0, bad)).toThrow(RangeError);
    expect(() => new ChildKeyDeriver(parent.publicKey!.subarray(1), parent.chainCode!)).toThrow(RangeError);
    expect(() => new ChildKeyDeriver(Uint8Array.from([2, ...new Array<number>(32).fill(0xff)]), parent.chainCode!)).toThrow();
  });
});
