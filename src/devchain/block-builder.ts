// Raw byte construction of transactions and blocks for tests and benchmarks (coinbases,
// witness commitments, merkle roots, headers): the parts btc-signer does not build.
import { createHash } from 'node:crypto';

/** Parts of a transaction to serialize; txids in display order hex. */
export interface TxParts {
  version?: number;
  inputs: { prevTxid: string; vout: number; scriptSig?: Uint8Array; sequence?: number; witness?: Uint8Array[] }[];
  outputs: { value: bigint; script: Uint8Array }[];
  locktime?: number;
}

/** Growable little-endian byte writer. */
export class ByteWriter {
  private buf = new Uint8Array(256);
  private len = 0;

  private grow(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  u8(v: number): this {
    this.grow(1);
    this.buf[this.len++] = v & 0xff;
    return this;
  }

  u32(v: number): this {
    this.grow(4);
    for (let i = 0; i < 4; i++) this.buf[this.len++] = (v >>> (8 * i)) & 0xff;
    return this;
  }

  u64(v: bigint): this {
    this.grow(8);
    for (let i = 0n; i < 8n; i++) this.buf[this.len++] = Number((v >> (8n * i)) & 0xffn);
    return this;
  }

  varint(n: number): this {
    if (n < 0xfd) return this.u8(n);
    if (n <= 0xffff) return this.u8(0xfd).u8(n).u8(n >> 8);
    if (n <= 0xffffffff) return this.u8(0xfe).u32(n);
    return this.u8(0xff).u32(n % 0x100000000).u32(Math.floor(n / 0x100000000));
  }

  bytes(b: Uint8Array): this {
    this.grow(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  varBytes(b: Uint8Array): this {
    return this.varint(b.length).bytes(b);
  }

  /** A 32-byte hash given in display order hex, written in internal (reversed) order. */
  hashHex(hex: string): this {
    return this.bytes(Buffer.from(hex, 'hex').reverse());
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

/** Serialize a transaction; with witness when any input carries one (or `withWitness` forces it). */
export function serializeTx(tx: TxParts, withWitness?: boolean): Uint8Array {
  const segwit = withWitness ?? tx.inputs.some((i) => i.witness !== undefined && i.witness.length > 0);
  const w = new ByteWriter().u32(tx.version ?? 2);
  if (segwit) w.u8(0).u8(1);
  w.varint(tx.inputs.length);
  for (const i of tx.inputs) {
    w.hashHex(i.prevTxid).u32(i.vout).varBytes(i.scriptSig ?? new Uint8Array()).u32(i.sequence ?? 0xffffffff);
  }
  w.varint(tx.outputs.length);
  for (const o of tx.outputs) w.u64(o.value).varBytes(o.script);
  if (segwit) {
    for (const i of tx.inputs) {
      const stack = i.witness ?? [];
      w.varint(stack.length);
      for (const item of stack) w.varBytes(item);
    }
  }
  return w.u32(tx.locktime ?? 0).finish();
}

/** Double SHA-256. */
export function hash256(data: Uint8Array): Uint8Array {
  return createHash('sha256').update(createHash('sha256').update(data).digest()).digest();
}

/** Display-order hex of an internal-order hash. */
export function toDisplayHex(h: Uint8Array): string {
  return Buffer.from(h).reverse().toString('hex');
}

/** Merkle root (internal byte order) of display-order hex hashes. */
export function merkleRoot(hashesHex: string[]): Uint8Array {
  if (hashesHex.length === 0) throw new Error('merkle root of nothing');
  let level: Uint8Array[] = hashesHex.map((h) => Uint8Array.from(Buffer.from(h, 'hex').reverse()));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const a = level[i]!;
      const b = level[i + 1] ?? a;
      next.push(hash256(Buffer.concat([a, b])));
    }
    level = next;
  }
  return level[0]!;
}

/** Minimal script push of a non-negative integer (BIP34 height encoding). */
export function scriptNumPush(n: number): Uint8Array {
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.push(v % 256);
  if (bytes.length > 0 && (bytes[bytes.length - 1]! & 0x80) !== 0) bytes.push(0);
  return Uint8Array.from([bytes.length, ...bytes]);
}

/** Coinbase transaction parts: BIP34 height, an extra nonce, optional witness commitment. */
export function coinbaseParts(opts: {
  height: number;
  value: bigint;
  script: Uint8Array;
  /** Witness merkle root commitment hash (internal order) when the block carries witness data. */
  witnessCommitment?: Uint8Array;
  extraNonce?: Uint8Array;
}): TxParts {
  const extra = opts.extraNonce ?? new Uint8Array(8);
  const scriptSig = Buffer.concat([scriptNumPush(opts.height), Uint8Array.from([extra.length]), extra]);
  const outputs = [{ value: opts.value, script: opts.script }];
  if (opts.witnessCommitment) {
    const commitment = Buffer.concat([Buffer.from('6a24aa21a9ed', 'hex'), opts.witnessCommitment]);
    outputs.push({ value: 0n, script: commitment });
  }
  return {
    version: 2,
    inputs: [
      {
        prevTxid: '00'.repeat(32),
        vout: 0xffffffff,
        scriptSig,
        witness: opts.witnessCommitment ? [new Uint8Array(32)] : undefined,
      },
    ],
    outputs,
    locktime: 0,
  };
}

/** BIP141 commitment: hash256(witness merkle root ‖ 32-byte reserved value of zeros). */
export function witnessCommitment(wtxidsHex: string[]): Uint8Array {
  // The coinbase's own wtxid counts as zero.
  const root = merkleRoot(['00'.repeat(32), ...wtxidsHex]);
  return hash256(Buffer.concat([root, new Uint8Array(32)]));
}

/** Serialize an 80-byte header. */
export function serializeHeader(h: {
  version: number;
  prevHash: string;
  merkleRoot: Uint8Array;
  time: number;
  bits: number;
  nonce: number;
}): Uint8Array {
  return new ByteWriter()
    .u32(h.version)
    .hashHex(h.prevHash)
    .bytes(h.merkleRoot)
    .u32(h.time)
    .u32(h.bits)
    .u32(h.nonce)
    .finish();
}

/** Target for compact bits. */
export function targetFromBits(bits: number): bigint {
  const exponent = bits >>> 24;
  const mantissa = BigInt(bits & 0x007fffff);
  return exponent <= 3 ? mantissa >> BigInt(8 * (3 - exponent)) : mantissa << BigInt(8 * (exponent - 3));
}

/** Increment the header's nonce until its hash meets the target; returns the solved header. */
export function grindHeader(header: Uint8Array, bits: number): Uint8Array {
  const target = targetFromBits(bits);
  const view = new DataView(header.buffer, header.byteOffset, 80);
  for (let nonce = 0; nonce <= 0xffffffff; nonce++) {
    view.setUint32(76, nonce, true);
    if (BigInt('0x' + toDisplayHex(hash256(header))) <= target) return header;
  }
  throw new Error('nonce space exhausted');
}

/** Serialize a block from its header and raw transactions. */
export function serializeBlock(header: Uint8Array, txs: Uint8Array[]): Uint8Array {
  const w = new ByteWriter().bytes(header).varint(txs.length);
  for (const tx of txs) w.bytes(tx);
  return w.finish();
}
