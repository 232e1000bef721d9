// A whole block rebuilt from Esplora's paged JSON (`/block/:hash` and `/block/:hash/txs/:start`), for servers
// that serve no `/block/:hash/raw` (issue 39). The bytes are rebuilt, not trusted: block-scan.ts parses them and
// checks every txid against the verified header's Merkle root, and a txid is the hash of the serialization made
// here from the JSON, so a server that changes any field that matters (an output's value or script, an input's
// outpoint) sends a block that no longer hashes to its header. Fields the txid does not cover (witness) cannot
// be checked that way, and satgate reads none of them. Anything malformed is the server's fault, never a crash.
import { BackendUnavailableError } from './light-backend.ts';

/** Esplora's fixed page size for a block's transactions (`/block/:hash/txs/:start_index`). */
export const ESPLORA_BLOCK_PAGE = 25;

/**
 * Most transactions a block can hold: 1,000,000 bytes of non-witness data over the smallest transaction
 * (about 60 bytes). A claimed count above it is a lie that would only cost us requests.
 */
export const MAX_BLOCK_TXS = 17_000;

const bad = (what: string): never => {
  throw new BackendUnavailableError(`server sent a malformed block page: ${what}`);
};

function u32(n: unknown, what: string): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 0xffffffff) bad(what);
  return n as number;
}

function hexBytes(h: unknown, what: string): Buffer {
  if (typeof h !== 'string' || h.length % 2 !== 0 || !/^[0-9a-f]*$/.test(h)) bad(what);
  return Buffer.from(h as string, 'hex');
}

function txidBytes(h: unknown, what: string): Buffer {
  if (typeof h !== 'string' || !/^[0-9a-f]{64}$/.test(h)) bad(what);
  // JSON shows hashes in display order; the wire carries them reversed.
  return Buffer.from(h as string, 'hex').reverse();
}

function varint(n: number): Buffer {
  if (n < 0xfd) return Buffer.from([n]);
  if (n <= 0xffff) {
    const b = Buffer.alloc(3);
    b[0] = 0xfd;
    b.writeUInt16LE(n, 1);
    return b;
  }
  if (n <= 0xffffffff) {
    const b = Buffer.alloc(5);
    b[0] = 0xfe;
    b.writeUInt32LE(n, 1);
    return b;
  }
  const b = Buffer.alloc(9);
  b[0] = 0xff;
  b.writeBigUInt64LE(BigInt(n), 1);
  return b;
}

const withLength = (b: Buffer): Buffer[] => [varint(b.length), b];

/**
 * One transaction's bytes from its Esplora JSON: witness (BIP144 marker and flag) only when an input has one,
 * as the network serialized it. Values are whole satoshis as JSON numbers; one that is not a safe integer is
 * refused rather than rounded.
 */
export function txBytesFromEsploraJson(tx: unknown): Buffer {
  if (typeof tx !== 'object' || tx === null) bad('a transaction is not an object');
  const t = tx as Record<string, unknown>;
  // Esplora prints the version as the unsigned 32 bits; a signed reading is accepted too.
  if (typeof t.version !== 'number' || !Number.isInteger(t.version) || t.version < -0x80000000 || t.version > 0xffffffff) bad('version');
  const version = Buffer.alloc(4);
  version.writeUInt32LE((t.version as number) >>> 0);
  const locktime = Buffer.alloc(4);
  locktime.writeUInt32LE(u32(t.locktime, 'locktime'));
  if (!Array.isArray(t.vin) || t.vin.length === 0) bad('vin');
  if (!Array.isArray(t.vout)) bad('vout');
  const vin = t.vin as unknown[];
  const vout = t.vout as unknown[];

  const body: Buffer[] = [varint(vin.length)];
  const witnesses: Buffer[] = [];
  let hasWitness = false;
  for (const input of vin) {
    if (typeof input !== 'object' || input === null) bad('an input is not an object');
    const i = input as Record<string, unknown>;
    const outpoint = Buffer.alloc(4);
    outpoint.writeUInt32LE(u32(i.vout, 'input vout'));
    const sequence = Buffer.alloc(4);
    sequence.writeUInt32LE(u32(i.sequence, 'input sequence'));
    body.push(txidBytes(i.txid, 'input txid'), outpoint, ...withLength(hexBytes(i.scriptsig, 'scriptsig')), sequence);
    // Esplora leaves `witness` out when an input has none.
    if (i.witness === undefined || i.witness === null) {
      witnesses.push(varint(0));
      continue;
    }
    if (!Array.isArray(i.witness)) bad('witness');
    const items = i.witness as unknown[];
    if (items.length > 0) hasWitness = true;
    witnesses.push(varint(items.length));
    for (const item of items) witnesses.push(...withLength(hexBytes(item, 'witness item')));
  }
  body.push(varint(vout.length));
  for (const output of vout) {
    if (typeof output !== 'object' || output === null) bad('an output is not an object');
    const o = output as Record<string, unknown>;
    if (typeof o.value !== 'number' || !Number.isSafeInteger(o.value) || o.value < 0) bad('output value');
    const value = Buffer.alloc(8);
    value.writeBigUInt64LE(BigInt(o.value as number));
    body.push(value, ...withLength(hexBytes(o.scriptpubkey, 'scriptpubkey')));
  }
  return Buffer.concat(hasWitness ? [version, Buffer.from([0, 1]), ...body, ...witnesses, locktime] : [version, ...body, locktime]);
}

/** The block JSON fields read here (`GET /block/:hash`); the header itself is rebuilt by the caller. */
export function blockTxCount(block: unknown): number {
  const n = (block as { tx_count?: unknown } | null)?.tx_count;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_BLOCK_TXS) bad('tx_count');
  return n as number;
}

/**
 * Checks one page (`/block/:hash/txs/:start`) holds what a page at `start` of a block of `count` transactions
 * must: exactly 25, or the rest at the end. A short or long page would shift every transaction after it.
 */
export function pageTransactions(page: unknown, start: number, count: number): unknown[] {
  if (!Array.isArray(page)) bad(`page at ${start} is not a list`);
  const want = Math.min(ESPLORA_BLOCK_PAGE, count - start);
  if ((page as unknown[]).length !== want) bad(`page at ${start} has ${(page as unknown[]).length} transactions, not ${want}`);
  return page as unknown[];
}

/** The serialized block: the 80-byte header, the transaction count, then every transaction in order. */
export function blockBytes(header: Uint8Array, txs: Buffer[]): Uint8Array {
  return new Uint8Array(Buffer.concat([header, varint(txs.length), ...txs]));
}
