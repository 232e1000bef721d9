// `satgate report check`: the ledger's totals for a period beside what the chain itself says the wallet received and
// spent in the blocks of that period, read from the chain source, not from satgate's records: a node's blocks, or a
// light server's (Electrum, Esplora) history of each of the wallet's scripts.
import type { Db } from '../db/database.ts';
import { parseBlock } from '../bitcoin/raw-block.ts';
import { parseTransaction } from '../bitcoin/raw-tx.ts';
import { btcFixed } from './ledger.ts';
import { LightChainSource, RpcChainSource, type ChainSource } from '../chain/chain-source.ts';

/** What the check needs of a node. */
export interface BlockReader {
  getBlockCount(): Promise<number>;
  getBlockHash(height: number): Promise<string>;
  getBlockTime(hash: string): Promise<number>;
  getRawBlock(hash: string): Promise<Uint8Array>;
  getRawTransaction(txid: string): Promise<Uint8Array | null>;
}

/** What the check needs of a light server: a script's history, transactions, and the headers of their blocks. */
export interface HistoryReader {
  /** The script's transactions with the height of their block (0 or less: unconfirmed). */
  history(script: Uint8Array): Promise<Array<{ txid: string; height: number }>>;
  /** The block time at `height`, in seconds. */
  getBlockTimeAt(height: number): Promise<number>;
  getRawTransaction(txid: string): Promise<Uint8Array | null>;
}

/** A chain source as the check reads it. */
export type ChainReader = BlockReader | HistoryReader;

export interface Totals {
  receivedSats: bigint;
  spentSats: bigint;
  /** Per transaction: net to the wallet (received − spent). */
  byTx: Map<string, bigint>;
}

export interface CheckResult {
  ledger: Totals;
  chain: Totals;
  differences: string[];
}

/** The ledger's confirmed rows that stand (neither reversing nor reversed), by the time of their block. */
export async function ledgerTotals(db: Db, walletId: bigint, from: number, to: number): Promise<Totals> {
  const rows = await db.kysely
    .selectFrom('ledger_entries as e')
    .leftJoin('ledger_entries as r', 'r.reverses_id', 'e.id')
    .select(['e.txid', 'e.kind', 'e.amount_sats', 'e.fee_sats'])
    .where('e.wallet_id', '=', walletId)
    .where('e.reverses_id', 'is', null)
    .where('r.id', 'is', null)
    .where('e.confirmed_at', '>=', BigInt(from))
    .where('e.confirmed_at', '<', BigInt(to))
    .execute();
  const t: Totals = { receivedSats: 0n, spentSats: 0n, byTx: new Map() };
  for (const r of rows) {
    const net = r.amount_sats + (r.fee_sats ?? 0n);
    if (r.kind === 'receipt') t.receivedSats += net;
    else t.spentSats -= net;
    t.byTx.set(r.txid, (t.byTx.get(r.txid) ?? 0n) + net);
  }
  return t;
}

/** First height whose block time is at or after `ms` (block times are nearly ordered; a binary search suffices). */
async function firstHeightAt(node: BlockReader, ms: number, tip: number): Promise<number> {
  let lo = 0;
  let hi = tip + 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((await node.getBlockTime(await node.getBlockHash(mid))) * 1000 < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * What the chain says: outputs paying the wallet's scripts, and inputs spending the wallet's coins, in the blocks
 * whose time falls in the period. A transaction that spends the wallet's coins counts its outputs back to the wallet
 * as change (net spent), as the ledger does. `scripts` are every address the wallet issued (hex).
 */
export async function chainTotals(node: BlockReader, scripts: Set<string>, from: number, to: number): Promise<Totals> {
  const tip = await node.getBlockCount();
  const count = counter(node, scripts);
  for (let h = await firstHeightAt(node, from, tip); h <= tip; h++) {
    const hash = await node.getBlockHash(h);
    if ((await node.getBlockTime(hash)) * 1000 >= to) break;
    for (const tx of parseBlock(await node.getRawBlock(hash)).txs) await count.add(tx);
  }
  return count.totals;
}

/**
 * The same from a light server: the union of the wallet's scripts' histories (a script's history lists the
 * transactions paying it and those spending from it), each mined one counted once when its block's time falls in
 * the period. The server's answers are claims the check does not verify; the watcher verified what the ledger holds.
 */
export async function chainTotalsFromHistories(reader: HistoryReader, scripts: Set<string>, from: number, to: number): Promise<Totals> {
  const heights = new Map<string, number>();
  for (const hex of scripts) for (const e of await reader.history(Buffer.from(hex, 'hex'))) if (e.height > 0) heights.set(e.txid, e.height);
  const times = new Map<number, number>();
  const count = counter(reader, scripts);
  for (const [txid, height] of [...heights].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))) {
    let time = times.get(height);
    if (time === undefined) times.set(height, (time = await reader.getBlockTimeAt(height)));
    if (time * 1000 < from || time * 1000 >= to) continue;
    const raw = await reader.getRawTransaction(txid);
    if (!raw) throw new Error(`the chain source does not know ${txid}, which it listed in a script's history`);
    await count.add(parseTransaction(raw));
  }
  return count.totals;
}

type ParsedTx = ReturnType<typeof parseTransaction>;

/**
 * Counts transactions: outputs paying the wallet's scripts received, inputs spending its coins spent; a transaction
 * that spends the wallet's coins counts its outputs back to the wallet as change (net spent), as the ledger does.
 */
function counter(source: { getRawTransaction(txid: string): Promise<Uint8Array | null> }, scripts: Set<string>) {
  const totals: Totals = { receivedSats: 0n, spentSats: 0n, byTx: new Map() };
  const valueCache = new Map<string, { value: bigint; ours: boolean }>();
  const prevout = async (txid: string, vout: number) => {
    const key = `${txid}:${vout}`;
    let hit = valueCache.get(key);
    if (!hit) {
      const raw = await source.getRawTransaction(txid);
      const out = raw ? parseTransaction(raw).outputs[vout] : undefined;
      hit = { value: out?.value ?? 0n, ours: out ? scripts.has(Buffer.from(out.script).toString('hex')) : false };
      valueCache.set(key, hit);
    }
    return hit;
  };
  const add = async (tx: ParsedTx) => {
    let spent = 0n;
    if (!tx.coinbase) for (const input of tx.inputs) {
      const p = await prevout(input.prevTxid, input.vout);
      if (p.ours) spent += p.value;
    }
    let received = 0n;
    tx.outputs.forEach((o, i) => {
      const ours = scripts.has(Buffer.from(o.script).toString('hex'));
      valueCache.set(`${tx.txid}:${i}`, { value: o.value, ours });
      if (ours) received += o.value;
    });
    if (spent === 0n && received === 0n) return;
    const net = received - spent;
    if (spent > 0n) totals.spentSats += -net;
    else totals.receivedSats += net;
    totals.byTx.set(tx.txid, net);
  };
  return { totals, add };
}

/** Compares the two; each difference is a line a person can read. */
export function compareTotals(ledger: Totals, chain: Totals): string[] {
  const out: string[] = [];
  if (ledger.receivedSats !== chain.receivedSats) out.push(`received: ledger ${btcFixed(ledger.receivedSats)} BTC, chain ${btcFixed(chain.receivedSats)} BTC`);
  if (ledger.spentSats !== chain.spentSats) out.push(`spent (with fees): ledger ${btcFixed(ledger.spentSats)} BTC, chain ${btcFixed(chain.spentSats)} BTC`);
  for (const txid of new Set([...ledger.byTx.keys(), ...chain.byTx.keys()])) {
    const a = ledger.byTx.get(txid) ?? 0n;
    const b = chain.byTx.get(txid) ?? 0n;
    if (a !== b) out.push(`${txid}: ledger ${btcFixed(a)} BTC, chain ${btcFixed(b)} BTC`);
  }
  return out;
}

export async function reconcile(db: Db, reader: ChainReader, walletId: bigint, from: number, to: number): Promise<CheckResult> {
  const scripts = new Set((await db.kysely.selectFrom('addresses').select('script_hex').where('wallet_id', '=', walletId).execute()).map((r) => r.script_hex.toLowerCase()));
  const ledger = await ledgerTotals(db, walletId, from, to);
  const chain = 'history' in reader ? await chainTotalsFromHistories(reader, scripts, from, to) : await chainTotals(reader, scripts, from, to);
  return { ledger, chain, differences: compareTotals(ledger, chain) };
}

/** A chain source as the check reads it: a node's blocks, or a light server's script histories and headers. */
export function blockReaderOf(source: ChainSource): ChainReader | null {
  if (source instanceof LightChainSource) {
    const backend = source.backend;
    return {
      history: async (script) => {
        const h = await backend.history(script);
        return h === 'unchanged' ? [] : h.entries;
      },
      // A header's time is its bytes 68..71, little-endian.
      getBlockTimeAt: async (height) => {
        const [header] = await backend.headers(height, 1);
        if (!header || header.length !== 80) throw new Error(`the chain source has no header at height ${height}`);
        return Buffer.from(header).readUInt32LE(68);
      },
      getRawTransaction: (txid) => backend.rawTransaction(txid),
    };
  }
  if (!(source instanceof RpcChainSource)) return null;
  const rpc = source.rpc;
  return {
    getBlockCount: async () => (await rpc.getBlockchainInfo()).blocks,
    getBlockHash: (h) => rpc.getBlockHash(h),
    getBlockTime: async (hash) => (await rpc.getBlockHeader(hash)).time,
    getRawBlock: (hash) => rpc.getRawBlock(hash),
    getRawTransaction: (txid) => rpc.getRawTransaction(txid),
  };
}
