// Recording one transaction's effects on watched scripts, shared by the block-scanning watcher (node RPC)
// and the per-script light watcher (Electrum, Esplora), so both produce the same records.
import type { Transaction } from 'kysely';
import type { RawTx } from '../bitcoin/raw-tx.ts';
import type { Database } from '../db/schema.ts';
import type { ChainStore } from './chain-store.ts';
import type { WatchedSet } from './watched-set.ts';

/** Where a transaction was seen. */
export type TxPlace = { block: { hash: string; height: number; time: number } } | { mempool: true };

/** What a transaction does to watched scripts: outputs paying them, inputs spending their recorded outputs. */
export interface TxMatch {
  credits: Array<{ vout: number; addressId: bigint; value: bigint }>;
  debits: Array<{ vin: number; outputId: bigint }>;
}

/**
 * Matches a transaction against the watched set in memory only, so a caller can skip the database for the
 * (many) transactions that touch nothing of ours. Null when nothing matches.
 */
export function matchTx(watched: WatchedSet, tx: RawTx): TxMatch | null {
  const credits: TxMatch['credits'] = [];
  for (let vout = 0; vout < tx.outputs.length; vout++) {
    const out = tx.outputs[vout]!;
    const hit = watched.scripts.get(out.script);
    if (hit) credits.push({ vout, addressId: hit.addressId, value: out.value });
  }
  const debits: TxMatch['debits'] = [];
  if (!tx.coinbase) {
    for (let vin = 0; vin < tx.inputs.length; vin++) {
      const input = tx.inputs[vin]!;
      const outputId = watched.outpoints.get(`${input.prevTxid}:${input.vout}`);
      if (outputId !== undefined) debits.push({ vin, outputId });
    }
  }
  return credits.length === 0 && debits.length === 0 ? null : { credits, debits };
}

/**
 * Matches a transaction's outputs (paying a watched script) and inputs (spending a watched outpoint);
 * records it when it touches either. New outpoints go into `added` so the caller can undo them if the
 * database transaction fails. Returns whether anything matched.
 */
export async function recordMatchedTx(
  store: ChainStore,
  watched: WatchedSet,
  trx: Transaction<Database>,
  tx: RawTx,
  where: TxPlace,
  now: number,
  touched: Set<bigint>,
  added: Array<[string, bigint]>,
): Promise<boolean> {
  const match = matchTx(watched, tx);
  if (!match) return false;
  const { credits, debits } = match;
  const txRowId = await store.upsertTx(trx, { txid: tx.txid, locktime: tx.locktime }, where, now);
  for (const c of credits) {
    const outputId = await store.addOutput(trx, txRowId, c.vout, c.addressId, c.value, now);
    const key = `${tx.txid}:${c.vout}`;
    if (!watched.outpoints.has(key)) {
      watched.outpoints.set(key, outputId);
      added.push([key, outputId]);
    }
    touched.add(c.addressId);
  }
  for (const d of debits) touched.add(await store.addSpend(trx, txRowId, d.vin, d.outputId));
  return true;
}
