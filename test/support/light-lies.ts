// The lies a light test server can be told to tell, and the throttles it can apply. Each lie is one a
// compromised server could tell; satgate must log it, show it in /health and change nothing because of it.
import { randomBytes } from 'node:crypto';
import { parseTransaction, type RawTx } from '../../src/bitcoin/raw-tx.ts';
import { hash256, toDisplayHex } from '../../src/devchain/block-builder.ts';
import { meetsTarget } from '../../src/chain/light/pow.ts';

export interface LieSettings {
  /** A payment to this script that is in no block, claimed mined in the tip block (its proof cannot verify). */
  phantomPayment?: { script: Uint8Array; value: bigint };
  /** A payment to this script claimed mined in a block above the tip whose header fails proof of work (its proof matches that header). */
  badPowBlock?: { script: Uint8Array; value: bigint };
  /** Merkle proofs are those of another transaction of the same block. */
  proofForAnotherTx?: boolean;
  /** After a reorg, transactions of orphaned blocks are still reported at their old heights, with their old proofs. */
  hiddenReorg?: boolean;
  /** Every transaction of this script is left out of its history (an omission: no proof is needed to stay silent). */
  hideHistoryOf?: Uint8Array;
  /** Electrum: this script's list is sent empty while its status stays the honest one (a status for a history not sent). */
  hideListKeepStatus?: Uint8Array;
  /** Esplora: whole blocks are sent with a transaction altered (they no longer hash to the header's Merkle root). */
  tamperBlocks?: boolean;
  /** Esplora: no `/block/:hash/raw` route (404), as a server that serves no whole blocks. */
  noRawBlocks?: boolean;
  /** Esplora: no `/block/:hash/txs/:start` route (404) either; with noRawBlocks, a server that serves no blocks at all. */
  noBlockPages?: boolean;
  /** Esplora: a block's paged transactions show the last one's first output worth more than it is. */
  tamperBlockPages?: boolean;
  /** Esplora: histories show each unconfirmed transaction's first output worth more than it is (`/tx/:txid/hex` stays true). */
  tamperHistoryTxs?: boolean;
  /** Stuck at this height (a server that stopped syncing): no tip, header or mined transaction above it. */
  stuckAt?: number;
}

export interface ThrottleSettings {
  /** Requests allowed per window; more are refused (Esplora: HTTP 429; Electrum: the connection is dropped). */
  requests: number;
  windowMs: number;
  /** Electrum: how a refusal is answered; `drop` (default) closes the session, `busy` answers JSON-RPC -101. */
  refuse?: 'drop' | 'busy';
}

/** A transaction paying `value` to `script` from an input that exists nowhere. */
export function phantomTx(script: Uint8Array, value: bigint): RawTx {
  const parts: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const u64 = (n: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(n);
    return b;
  };
  parts.push(u32(2), Buffer.from([1]), randomBytes(32), u32(0), Buffer.from([0]), u32(0xffffffff));
  parts.push(Buffer.from([1]), u64(value), Buffer.from([script.length]), Buffer.from(script), u32(0));
  return parseTransaction(Buffer.concat(parts));
}

/** An 80-byte header on `prevHash` committing to `merkleRootDisplay`, whose hash does NOT meet `bits`. */
export function headerFailingPow(prevHash: string, merkleRootDisplay: string, time: number, bits: number): Uint8Array {
  const h = Buffer.alloc(80);
  h.writeUInt32LE(0x20000000, 0);
  Buffer.from(prevHash, 'hex').reverse().copy(h, 4);
  Buffer.from(merkleRootDisplay, 'hex').reverse().copy(h, 36);
  h.writeUInt32LE(time, 68);
  h.writeUInt32LE(bits, 72);
  for (let nonce = 0; ; nonce++) {
    h.writeUInt32LE(nonce, 76);
    if (!meetsTarget(toDisplayHex(hash256(h)), bits)) return new Uint8Array(h);
  }
}

/** A simple fixed-window request counter kept by the server. */
export class ServerThrottle {
  requests = 0;
  refused = 0;
  private windowStart = Date.now();
  private inWindow = 0;
  settings: ThrottleSettings | null = null;
  /** When each request came (admitted or refused), and when the first refusal was. */
  readonly times: number[] = [];
  firstRefusalAt: number | null = null;

  /** Counts a request; false when it is over the limit. */
  admit(): boolean {
    this.requests++;
    const now = Date.now();
    this.times.push(now);
    if (!this.settings) return true;
    if (now - this.windowStart >= this.settings.windowMs) {
      this.windowStart = now;
      this.inWindow = 0;
    }
    this.inWindow++;
    if (this.inWindow > this.settings.requests) {
      this.refused++;
      this.firstRefusalAt ??= now;
      return false;
    }
    return true;
  }
}
