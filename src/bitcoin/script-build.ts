/** Output and redeem script builders shared by the output-kinds table and address decoding. */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';

export const OP_0 = 0x00;
export const OP_1 = 0x51;
export const OP_16 = 0x60;
export const OP_DUP = 0x76;
export const OP_HASH160 = 0xa9;
export const OP_EQUAL = 0x87;
export const OP_EQUALVERIFY = 0x88;
export const OP_CHECKSIG = 0xac;
export const OP_CHECKMULTISIG = 0xae;

/** RIPEMD160(SHA256(data)). */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}

export function p2pkhScript(hash: Uint8Array): Uint8Array {
  return Uint8Array.of(OP_DUP, OP_HASH160, 20, ...hash, OP_EQUALVERIFY, OP_CHECKSIG);
}

export function p2shScript(hash: Uint8Array): Uint8Array {
  return Uint8Array.of(OP_HASH160, 20, ...hash, OP_EQUAL);
}

export function witnessScript(version: number, program: Uint8Array): Uint8Array {
  return Uint8Array.of(version === 0 ? OP_0 : OP_1 + version - 1, program.length, ...program);
}

// Script numbers as Bitcoin Core's CScript << n writes them: OP_1..OP_16 for 1..16, else a one-byte push
// (multisig counts reach 20 in P2WSH).
function smallNumber(n: number): number[] {
  return n >= 1 && n <= 16 ? [OP_1 + n - 1] : [1, n];
}

/** `OP_m <key>… OP_n OP_CHECKMULTISIG` with the keys in the order given (callers sort for BIP67). */
export function multisigScript(threshold: number, keys: readonly Uint8Array[]): Uint8Array {
  const out: number[] = [...smallNumber(threshold)];
  for (const k of keys) out.push(k.length, ...k);
  out.push(...smallNumber(keys.length), OP_CHECKMULTISIG);
  return Uint8Array.from(out);
}

/** Length of a multisig script with `n` 33-byte keys, without building it. */
export function multisigScriptLength(threshold: number, n: number): number {
  return smallNumber(threshold).length + 34 * n + smallNumber(n).length + 1;
}

/** BIP67: keys in lexicographic order of their compressed encodings. */
export function sortKeys(keys: readonly Uint8Array[]): Uint8Array[] {
  return [...keys].sort((a, b) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  });
}

/**
 * BIP86 output key of an internal key: Q = P + int(hashTapTweak(x(P)))·G with P lifted to even y (BIP341 with
 * no script tree). Returns the 32-byte x-only Q.
 */
export function taprootOutputKey(internalKey: Uint8Array): Uint8Array {
  const { taggedHash, lift_x } = schnorr.utils;
  const x = internalKey.length === 33 ? internalKey.subarray(1) : internalKey;
  const P = lift_x(BigInt(`0x${Buffer.from(x).toString('hex')}`));
  const t = BigInt(`0x${Buffer.from(taggedHash('TapTweak', x)).toString('hex')}`);
  if (t >= secp256k1.Point.Fn.ORDER) throw new RangeError('taproot tweak out of range');
  const Q = t === 0n ? P : P.add(secp256k1.Point.BASE.multiply(t));
  return Q.toBytes(true).subarray(1);
}
