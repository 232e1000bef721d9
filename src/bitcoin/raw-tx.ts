// Hand-written walker over raw transaction bytes (DESIGN.md section 4 "Speed"): reads only
// what the chain watcher needs and computes the txid without copying the transaction.
import { createHash, hash as oneShotHash } from 'node:crypto';

/** One transaction input: the outpoint it spends. */
export interface RawTxInput {
  /** Spent transaction id, hex in display order (as Bitcoin Core prints it). */
  prevTxid: string;
  vout: number;
}

/** One transaction output. */
export interface RawTxOutput {
  value: bigint;
  /** scriptPubKey; a subarray of the parsed bytes (no copy). */
  script: Uint8Array;
}

/** A parsed transaction. */
export interface RawTx {
  /** Transaction id (hash of the non-witness serialization), display order hex. */
  txid: string;
  version: number;
  hasWitness: boolean;
  /** True when this is a coinbase transaction (single input spending the null outpoint). */
  coinbase: boolean;
  inputs: RawTxInput[];
  outputs: RawTxOutput[];
  locktime: number;
  /** The whole serialized transaction (witness included); a subarray, no copy. */
  bytes: Uint8Array;
  /** Virtual size in vbytes (weight / 4 rounded up). */
  vsize: number;
}

/** Thrown when bytes are not a well-formed transaction or block. */
export class RawParseError extends Error {
  override name = 'RawParseError';
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const NULL_TXID = '0'.repeat(64);

/** Hex of bytes[start, end) in reverse order: how Bitcoin displays hashes. */
export function reversedHex(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let s = '';
  for (let i = end - 1; i >= start; i--) s += HEX[bytes[i]!];
  return s;
}

/** Double SHA-256 of a contiguous byte range. */
export function sha256d(data: Uint8Array): Buffer {
  return oneShotHash('sha256', oneShotHash('sha256', data, 'buffer'), 'buffer');
}

/** Cursor over a byte array with bounds-checked little-endian reads. */
export class ByteReader {
  pos: number;
  constructor(
    readonly bytes: Uint8Array,
    start = 0,
  ) {
    this.pos = start;
  }

  need(n: number): void {
    if (this.pos + n > this.bytes.length) {
      throw new RawParseError(`truncated data: need ${n} bytes at offset ${this.pos} of ${this.bytes.length}`);
    }
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.pos++]!;
  }

  u32(): number {
    this.need(4);
    const b = this.bytes;
    const p = this.pos;
    this.pos = p + 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16)) + b[p + 3]! * 0x1000000;
  }

  /** 64-bit little-endian unsigned integer as bigint. */
  u64(): bigint {
    const lo = this.u32();
    const hi = this.u32();
    // Below 2^53 the integer sum is exact; real output values are always below 2^51.
    if (hi < 0x200000) return BigInt(hi * 0x100000000 + lo);
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  /** Bitcoin CompactSize. */
  varint(): number {
    const first = this.u8();
    if (first < 0xfd) return first;
    if (first === 0xfd) {
      this.need(2);
      const v = this.bytes[this.pos]! | (this.bytes[this.pos + 1]! << 8);
      this.pos += 2;
      return v;
    }
    if (first === 0xfe) return this.u32();
    const lo = this.u32();
    const hi = this.u32();
    if (hi >= 0x200000) throw new RawParseError('CompactSize too large');
    return hi * 0x100000000 + lo;
  }

  /** Skip n bytes, returning the start offset of the skipped range. */
  skip(n: number): number {
    this.need(n);
    const start = this.pos;
    this.pos += n;
    return start;
  }
}

/** Parse one transaction at the reader's position, leaving the reader just past it. */
export function readTransaction(r: ByteReader): RawTx {
  const bytes = r.bytes;
  const start = r.pos;
  const version = r.u32() | 0;
  let hasWitness = false;
  r.need(2);
  if (bytes[r.pos] === 0 && bytes[r.pos + 1] === 1) {
    hasWitness = true;
    r.pos += 2;
  }
  const bodyStart = r.pos;
  const nIn = r.varint();
  if (nIn === 0) throw new RawParseError('transaction without inputs');
  const inputs: RawTxInput[] = new Array(nIn);
  for (let i = 0; i < nIn; i++) {
    const p = r.skip(32);
    const vout = r.u32();
    r.skip(r.varint()); // scriptSig
    r.skip(4); // sequence
    inputs[i] = { prevTxid: reversedHex(bytes, p, p + 32), vout };
  }
  const nOut = r.varint();
  const outputs: RawTxOutput[] = new Array(nOut);
  for (let i = 0; i < nOut; i++) {
    const value = r.u64();
    const len = r.varint();
    const s = r.skip(len);
    outputs[i] = { value, script: bytes.subarray(s, s + len) };
  }
  const bodyEnd = r.pos;
  if (hasWitness) {
    for (let i = 0; i < nIn; i++) {
      const items = r.varint();
      for (let j = 0; j < items; j++) r.skip(r.varint());
    }
  }
  const witnessEnd = r.pos;
  const locktime = r.u32();
  const end = r.pos;

  let digest: Buffer;
  let baseSize: number;
  if (hasWitness) {
    // Non-witness serialization = version ‖ inputs-and-outputs ‖ locktime, hashed in place.
    digest = createHash('sha256')
      .update(bytes.subarray(start, start + 4))
      .update(bytes.subarray(bodyStart, bodyEnd))
      .update(bytes.subarray(witnessEnd, end))
      .digest();
    baseSize = 4 + (bodyEnd - bodyStart) + 4;
  } else {
    digest = oneShotHash('sha256', bytes.subarray(start, end), 'buffer');
    baseSize = end - start;
  }
  const txid = reversedHex(oneShotHash('sha256', digest, 'buffer'));
  const weight = baseSize * 3 + (end - start);
  const first = inputs[0]!;
  return {
    txid,
    version,
    hasWitness,
    coinbase: nIn === 1 && first.vout === 0xffffffff && first.prevTxid === NULL_TXID,
    inputs,
    outputs,
    locktime,
    bytes: bytes.subarray(start, end),
    vsize: Math.ceil(weight / 4),
  };
}

/** Parse a single raw transaction; the bytes must hold exactly one transaction. */
export function parseTransaction(bytes: Uint8Array): RawTx {
  const r = new ByteReader(bytes);
  const tx = readTransaction(r);
  if (r.pos !== bytes.length) throw new RawParseError(`${bytes.length - r.pos} trailing bytes after transaction`);
  return tx;
}

/** Witness txid (wtxid) of a parsed transaction, display order hex; equals the txid without witness. */
export function wtxidOf(tx: RawTx): string {
  return tx.hasWitness ? reversedHex(sha256d(tx.bytes)) : tx.txid;
}
