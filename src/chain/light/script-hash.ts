// Script hashes as each light protocol names a script, and Electrum's status hash of a history.
import { createHash } from 'node:crypto';

/** SHA-256 of the scriptPubKey, byte-reversed: the Electrum protocol's script hash. */
export function electrumScriptHash(script: Uint8Array): string {
  return Buffer.from(createHash('sha256').update(script).digest()).reverse().toString('hex');
}

/** SHA-256 of the scriptPubKey, not reversed: Esplora's `/scripthash/:hash`. */
export function esploraScriptHash(script: Uint8Array): string {
  return createHash('sha256').update(script).digest('hex');
}

/** One entry of a script's history: height > 0 mined, 0 unconfirmed with confirmed inputs, -1 with unconfirmed inputs. */
export interface HistoryEntry {
  txid: string;
  height: number;
}

/**
 * The Electrum status of a history already in the protocol's order (mined by height and position,
 * then mempool by (-height, txid)): sha256 of the concatenated `txid:height:`, hex; null when empty.
 */
export function electrumStatus(history: readonly HistoryEntry[]): string | null {
  if (history.length === 0) return null;
  return createHash('sha256')
    .update(history.map((h) => `${h.txid}:${h.height}:`).join(''))
    .digest('hex');
}

/** Orders mempool entries as the protocol's status rule wants: height 0 before -1, then by txid. */
export function orderMempoolEntries<T extends HistoryEntry>(entries: T[]): T[] {
  return [...entries].sort((a, b) => b.height - a.height || (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : 0));
}
