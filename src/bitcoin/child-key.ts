// Non-hardened public child derivation (BIP32 CKDpub) for one fixed parent, the hot path of issuing
// addresses. @scure/bip32's deriveChild decodes the parent's point, hashes the parent for its fingerprint,
// multiplies the tweak in constant time and validates the child again on every call. Here the parent
// point is decoded once, and parent + tweak·G is computed in variable time (public-tweak.ts): the tweak comes
// from HMAC-SHA512 of the chain code and the public key, so it is public data (anyone holding the xpub
// computes it) and constant time protects nothing.
import { createHmac } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { addTweakTimesG, compressAll, type Jacobian } from './public-tweak.ts';

const Point = secp256k1.Point;
const N = Point.Fn.ORDER;
const HARDENED = 0x80000000;

/** Derives the compressed public keys of the children `i` (0 ≤ i < 2^31) of one public parent. */
export class ChildKeyDeriver {
  private readonly parent: InstanceType<typeof Point>;
  private readonly parentX: bigint;
  private readonly parentY: bigint;
  private readonly data = new Uint8Array(37);
  private readonly view = new DataView(this.data.buffer);

  /** `publicKey`: the parent's 33-byte compressed key; `chainCode`: its 32-byte chain code. */
  constructor(
    publicKey: Uint8Array,
    private readonly chainCode: Uint8Array,
  ) {
    if (publicKey.length !== 33 || chainCode.length !== 32) throw new RangeError('a parent needs a 33-byte public key and a 32-byte chain code');
    this.parent = Point.fromBytes(publicKey);
    ({ x: this.parentX, y: this.parentY } = this.parent.toAffine());
    this.data.set(publicKey, 0);
  }

  /**
   * The child's 33-byte compressed public key. Like @scure/bip32 (and as BIP32 says), an index whose
   * tweak is out of range or whose child is the point at infinity (odds about 2^-127) yields the next
   * index's key instead, so both derive the same addresses for every index.
   */
  publicKeyAt(index: number): Uint8Array {
    return compressAll([this.pointAt(index)])[0]!;
  }

  /**
   * The compressed keys of children `from` … `from + count - 1`, as `publicKeyAt` gives them one by one. Encoding
   * a key needs its point in affine form, one field inversion per point (about a fifth of a child's cost); a run
   * shares one inversion among all its points (Montgomery's trick).
   */
  publicKeysFrom(from: number, count: number): Uint8Array[] {
    if (!Number.isInteger(count) || count < 0) throw new RangeError('a run of children needs a whole, non-negative count');
    const points: Jacobian[] = [];
    for (let i = 0; i < count; i++) points.push(this.pointAt(from + i));
    return compressAll(points);
  }

  private pointAt(index: number): Jacobian {
    if (!Number.isInteger(index) || index < 0 || index >= HARDENED) throw new RangeError('a public child index must be an integer from 0 to 2^31-1');
    this.view.setUint32(33, index, false);
    const I = createHmac('sha512', this.chainCode).update(this.data).digest();
    const tweak = BigInt(`0x${I.toString('hex', 0, 32)}`);
    if (tweak >= N) return this.next(index);
    if (tweak === 0n) return { X: this.parentX, Y: this.parentY, Z: 1n };
    const fast = addTweakTimesG(this.parentX, this.parentY, I.subarray(0, 32));
    if (fast) return fast;
    // Cases the fast formulas leave out (the child is the parent doubled, or the point at infinity): the
    // library's complete arithmetic.
    const child = this.parent.add(Point.BASE.multiplyUnsafe(tweak));
    if (child.is0()) return this.next(index);
    const { x, y } = child.toAffine();
    return { X: x, Y: y, Z: 1n };
  }

  private next(index: number): Jacobian {
    if (index + 1 >= HARDENED) throw new RangeError(`no valid public child at or after index ${index}`);
    return this.pointAt(index + 1);
  }
}
