import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { addTweakTimesG, compressAll, toNoblePoint } from './public-tweak.ts';

const Point = secp256k1.Point;
const N = Point.Fn.ORDER;
const bytes32 = (k: bigint) => Uint8Array.from(Buffer.from(k.toString(16).padStart(64, '0'), 'hex'));
const scalar = fc.bigInt({ min: 1n, max: N - 1n });

/** parent + tweak·G by the library's complete arithmetic. */
const expected = (parent: InstanceType<typeof Point>, tweak: bigint) => parent.add(Point.BASE.multiply(tweak));

describe('parent + tweak·G for public tweaks', () => {
  it('agrees with the library for random parents and tweaks, one by one and encoded together', () => {
    fc.assert(
      fc.property(scalar, fc.array(scalar, { minLength: 1, maxLength: 8 }), (parentKey, tweaks) => {
        const parent = Point.BASE.multiply(parentKey);
        const { x, y } = parent.toAffine();
        const sums = tweaks.map((t) => addTweakTimesG(x, y, bytes32(t)));
        const want = tweaks.map((t) => expected(parent, t));
        if (sums.some((s) => s === undefined)) return; // a doubling or infinity: the library's case (odds ~2^-256)
        sums.forEach((s, i) => expect(toNoblePoint(s!).equals(want[i]!)).toBe(true));
        expect(compressAll(sums.map((s) => s!)).map(bytesToHex)).toEqual(want.map((p) => bytesToHex(p.toBytes(true))));
      }),
      { numRuns: 100 },
    );
  });

  it('covers every window and digit: tweaks with zero bytes, single bytes at each position, the extremes', () => {
    const parent = Point.BASE.multiply(0x1234567890abcdefn);
    const { x, y } = parent.toAffine();
    const tweaks = [1n, 2n, 255n, 256n, N - 1n, N - 2n, (1n << 255n) + 1n, 0xff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00n];
    for (let w = 0; w < 32; w++) tweaks.push(0x01n << BigInt(8 * w), 0xffn << BigInt(8 * w), 0x80n << BigInt(8 * w));
    for (const t of tweaks.filter((k) => k < N)) {
      const sum = addTweakTimesG(x, y, bytes32(t));
      expect(sum, `tweak ${t.toString(16)}`).toBeDefined();
      expect(bytesToHex(compressAll([sum!])[0]!), `tweak ${t.toString(16)}`).toBe(bytesToHex(expected(parent, t).toBytes(true)));
    }
  });

  it('leaves the sums its formulas do not cover to the caller: the parent doubled, and the point at infinity', () => {
    const t = 0xdeadbeefn;
    const doubled = Point.BASE.multiply(t).toAffine(); // parent = t·G, so parent + t·G = 2·parent
    expect(addTweakTimesG(doubled.x, doubled.y, bytes32(t))).toBeUndefined();
    const opposite = Point.BASE.multiply(N - t).toAffine(); // parent = -t·G, so the sum is the point at infinity
    expect(addTweakTimesG(opposite.x, opposite.y, bytes32(t))).toBeUndefined();
    expect(() => addTweakTimesG(doubled.x, doubled.y, new Uint8Array(31))).toThrow(RangeError);
  });
});
