// Block walker over raw bytes (`getblock <hash> false`); the transaction walker is in raw-tx.ts.
import { ByteReader, RawParseError, readTransaction, reversedHex, sha256d, type RawTx } from './raw-tx.ts';

/** The 80-byte block header, hashes in display order. */
export interface RawBlockHeader {
  /** Block hash (double SHA-256 of the header), display order hex. */
  hash: string;
  version: number;
  prevHash: string;
  merkleRoot: string;
  /** Block time, Unix seconds. */
  time: number;
  /** Compact target ("nBits") as a number, e.g. 0x207fffff. */
  bits: number;
  nonce: number;
}

/** A parsed block. */
export interface RawBlock {
  header: RawBlockHeader;
  txs: RawTx[];
}

/** Parse the 80-byte header at offset 0 of bytes. */
export function parseBlockHeader(bytes: Uint8Array): RawBlockHeader {
  if (bytes.length < 80) throw new RawParseError(`block header needs 80 bytes, got ${bytes.length}`);
  const r = new ByteReader(bytes);
  const version = r.u32() | 0;
  r.skip(64);
  const time = r.u32();
  const bits = r.u32();
  const nonce = r.u32();
  return {
    hash: reversedHex(sha256d(bytes.subarray(0, 80))),
    version,
    prevHash: reversedHex(bytes, 4, 36),
    merkleRoot: reversedHex(bytes, 36, 68),
    time,
    bits,
    nonce,
  };
}

/** Parse a whole serialized block: header, then every transaction. */
export function parseBlock(bytes: Uint8Array): RawBlock {
  const header = parseBlockHeader(bytes);
  const r = new ByteReader(bytes, 80);
  const count = r.varint();
  if (count === 0) throw new RawParseError('block without transactions');
  // A transaction takes well over 10 bytes; refuse absurd counts before allocating.
  if (count > (bytes.length - r.pos) / 10) throw new RawParseError(`block claims ${count} transactions`);
  const txs: RawTx[] = new Array(count);
  for (let i = 0; i < count; i++) txs[i] = readTransaction(r);
  if (r.pos !== bytes.length) throw new RawParseError(`${bytes.length - r.pos} trailing bytes after block`);
  return { header, txs };
}
