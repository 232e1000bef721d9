// P + t·G on secp256k1 for a public point P and a public scalar t: the whole cost of a BIP32 public child
// (CKDpub), which the address pool pays once per address it stores (issue 16). @noble/curves' variable-time
// multiply over a precomputed generator table took 169 µs of a child's ~190: 33 additions with complete
// projective formulas, about 35 field operations each, every one reduced at once. Here the table holds
// affine multiples of G, one per byte of the scalar (32 × 255 points, 0.8 MB, built once per thread in about
// 60 ms), and a Jacobian accumulator adds them with mixed addition (7 multiplications, 4 squarings): 32
// additions of about 20 field operations. Nothing here is secret (the tweak is HMAC-SHA512 of the xpub's own
// public data, which anyone holding the xpub computes), so variable time protects nothing. Any case the
// incomplete formulas do not cover (doubling, the point at infinity) is handed to the library's complete
// arithmetic.
import { secp256k1 } from '@noble/curves/secp256k1.js';

const Point = secp256k1.Point;
type NoblePoint = InstanceType<typeof Point>;
const P = Point.Fp.ORDER;
const WINDOWS = 32;
const DIGITS = 255;

const Fp = Point.Fp;
const mod = (a: bigint): bigint => {
  const r = a % P;
  return r < 0n ? r + P : r;
};

// table[w * DIGITS + d - 1] = d · 256^w · G, affine: xs and ys in two flat arrays.
let tableX: bigint[] | undefined;
let tableY: bigint[] | undefined;

function table(): [bigint[], bigint[]] {
  if (!tableX || !tableY) {
    const points: NoblePoint[] = [];
    let base = Point.BASE;
    for (let w = 0; w < WINDOWS; w++) {
      let multiple = base;
      for (let d = 1; d <= DIGITS; d++) {
        points.push(multiple);
        multiple = multiple.add(base);
      }
      base = multiple; // 256 · base
    }
    const zInverses = Fp.invertBatch(points.map((p) => p.Z));
    tableX = points.map((p, i) => mod(p.X * zInverses[i]!));
    tableY = points.map((p, i) => mod(p.Y * zInverses[i]!));
  }
  return [tableX, tableY];
}

/** A point in Jacobian coordinates (x = X/Z², y = Y/Z³). */
export interface Jacobian {
  X: bigint;
  Y: bigint;
  Z: bigint;
}

/**
 * Adds the affine point (x2, y2) to the Jacobian point `a` in place (madd-2007-bl). Returns false, leaving `a`
 * unchanged, when the points share an x coordinate (equal or opposite): the caller falls back then.
 */
function addAffine(a: Jacobian, x2: bigint, y2: bigint): boolean {
  // Products of reduced (non-negative) values are reduced with % alone; differences get P added first.
  const { X: X1, Y: Y1, Z: Z1 } = a;
  const Z1Z1 = (Z1 * Z1) % P;
  const U2 = (x2 * Z1Z1) % P;
  const S2 = (y2 * ((Z1 * Z1Z1) % P)) % P;
  const H = (U2 - X1 + P) % P;
  if (H === 0n) return false;
  const HH = (H * H) % P;
  const I = (4n * HH) % P;
  const J = (H * I) % P;
  const r = (2n * (S2 - Y1 + P)) % P;
  const V = (X1 * I) % P;
  const X3 = (((r * r) % P) + 3n * P - J - 2n * V) % P;
  a.Y = ((r * (V - X3 + P)) % P + 2n * P - ((2n * Y1 * J) % P)) % P;
  const Z1H = Z1 + H;
  a.Z = ((Z1H * Z1H) % P + 2n * P - Z1Z1 - HH) % P;
  a.X = X3;
  return true;
}

/**
 * `parent` + `tweak`·G for 0 < tweak < n, the tweak given as its 32 big-endian bytes (each byte is one window
 * of the table), in Jacobian coordinates; undefined in the cases the incomplete formulas do not cover (the
 * caller uses the library's complete arithmetic then).
 */
export function addTweakTimesG(parentX: bigint, parentY: bigint, tweak: Uint8Array): Jacobian | undefined {
  if (tweak.length !== WINDOWS) throw new RangeError('a tweak is 32 bytes');
  const [xs, ys] = table();
  let acc: Jacobian | undefined;
  for (let w = 0; w < WINDOWS; w++) {
    const d = tweak[WINDOWS - 1 - w]!;
    if (d === 0) continue;
    const i = w * DIGITS + d - 1;
    if (acc === undefined) acc = { X: xs[i]!, Y: ys[i]!, Z: 1n };
    else if (!addAffine(acc, xs[i]!, ys[i]!)) return undefined;
  }
  if (acc === undefined || !addAffine(acc, parentX, parentY)) return undefined;
  return acc;
}

/** Compressed 33-byte encodings of Jacobian points (none at infinity), with one shared inversion. */
export function compressAll(points: Jacobian[]): Uint8Array[] {
  const zInverses = Fp.invertBatch(points.map((p) => p.Z));
  return points.map((p, i) => {
    const zi = zInverses[i]!;
    const zi2 = mod(zi * zi);
    const x = mod(p.X * zi2);
    const y = mod(p.Y * mod(zi2 * zi));
    const out = new Uint8Array(33);
    out[0] = y & 1n ? 3 : 2;
    out.set(Buffer.from(x.toString(16).padStart(64, '0'), 'hex'), 1);
    return out;
  });
}

/** The library's point for a Jacobian one (the tests compare with it). */
export function toNoblePoint(p: Jacobian): NoblePoint {
  const zi = Fp.inv(p.Z);
  const zi2 = mod(zi * zi);
  return Point.fromAffine({ x: mod(p.X * zi2), y: mod(p.Y * mod(zi2 * zi)) });
}
