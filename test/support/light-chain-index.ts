// The index both light test servers keep of a real bcoin regtest node: every block (header, txids,
// transactions), every output by script hash, and the mempool. Refreshed from the node's RPC before each
// answer, so the servers show exactly the node's chain, reorgs included.
import { createHash } from 'node:crypto';
import { parseBlock } from '../../src/bitcoin/raw-block.ts';
import { parseTransaction, type RawTx } from '../../src/bitcoin/raw-tx.ts';
import type { RpcClient } from '../../src/chain/rpc-client.ts';
import { merkleBranch } from '../../src/chain/light/merkle-proof.ts';
import { orderMempoolEntries } from '../../src/chain/light/script-hash.ts';

export interface IndexedBlock {
  hash: string;
  height: number;
  header: Uint8Array;
  txids: string[];
  time: number;
  bits: number;
  nonce: number;
  version: number;
  merkleRoot: string;
  prevHash: string;
  size: number;
}

export interface IndexedTx {
  tx: RawTx;
  /** Height of its block, or 0 (mempool, confirmed parents) / -1 (mempool, an unconfirmed parent). */
  height: number;
  blockHash: string | null;
  /** Position in its block. */
  pos: number;
}

export interface Output {
  /** Script SHA-256, not reversed (Esplora's form); Electrum's is this reversed. */
  sha: string;
  script: Uint8Array;
  value: bigint;
}

export interface HistoryItem {
  txid: string;
  height: number;
  /** Mempool entries only. */
  fee?: bigint;
}

export function scriptSha(script: Uint8Array): string {
  return createHash('sha256').update(script).digest('hex');
}

export class LightChainIndex {
  readonly blocks: IndexedBlock[] = [];
  private readonly byHash = new Map<string, IndexedBlock>();
  private readonly confirmed = new Map<string, IndexedTx>();
  private mempool = new Map<string, RawTx>();
  /** Outputs of every known transaction (confirmed or waiting): `txid:vout` → output. */
  private readonly outputs = new Map<string, Output>();
  /** Txids of transactions in the orphaned blocks of past reorgs, with where they were (for the hidden-reorg lie). */
  readonly orphaned = new Map<string, { height: number; blockTxids: string[]; pos: number; raw: Uint8Array }>();
  private refreshing: Promise<void> | null = null;
  private lastBest = '';

  constructor(readonly rpc: RpcClient) {}

  /**
   * Brings the index up to the node's chain and mempool. One refresh at a time, and a caller never joins
   * one already under way: it may have read the node before the caller's change.
   */
  async refresh(): Promise<void> {
    while (this.refreshing) await this.refreshing.catch(() => {});
    this.refreshing = this.doRefresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async doRefresh(): Promise<void> {
    const best = await this.rpc.getBestBlockHash();
    if (best !== this.lastBest) {
      const bestHeight = (await this.rpc.getBlockHeader(best)).height;
      // Drop our blocks the node no longer has at their height (a reorg), then add the new ones.
      let keep = Math.min(this.blocks.length - 1, bestHeight);
      while (keep >= 0 && (await this.rpc.getBlockHash(keep)) !== this.blocks[keep]!.hash) keep--;
      while (this.blocks.length - 1 > keep) this.dropTop();
      for (let h = keep + 1; h <= bestHeight; h++) this.addBlock(h, await this.rpc.getRawBlock(await this.rpc.getBlockHash(h)));
      this.lastBest = best;
    }
    const txids = new Set(await this.rpc.getRawMempool());
    const next = new Map<string, RawTx>();
    for (const txid of txids) {
      let tx = this.mempool.get(txid);
      if (!tx) {
        const raw = await this.rpc.getRawTransaction(txid);
        if (!raw) continue;
        tx = parseTransaction(raw);
      }
      next.set(txid, tx);
    }
    this.mempool = next;
    for (const tx of next.values()) this.noteOutputs(tx);
  }

  private addBlock(height: number, raw: Uint8Array): void {
    const block = parseBlock(raw);
    const b: IndexedBlock = {
      hash: block.header.hash,
      height,
      header: raw.subarray(0, 80),
      txids: block.txs.map((t) => t.txid),
      time: block.header.time,
      bits: block.header.bits,
      nonce: block.header.nonce,
      version: block.header.version,
      merkleRoot: block.header.merkleRoot,
      prevHash: block.header.prevHash,
      size: raw.length,
    };
    this.blocks[height] = b;
    this.byHash.set(b.hash, b);
    block.txs.forEach((tx, pos) => {
      this.confirmed.set(tx.txid, { tx, height, blockHash: b.hash, pos });
      this.noteOutputs(tx);
    });
  }

  private dropTop(): void {
    const b = this.blocks.pop()!;
    this.byHash.delete(b.hash);
    b.txids.forEach((txid, pos) => {
      const t = this.confirmed.get(txid);
      if (t && t.blockHash === b.hash) {
        this.orphaned.set(txid, { height: b.height, blockTxids: b.txids, pos, raw: t.tx.bytes });
        this.confirmed.delete(txid);
      }
    });
  }

  private noteOutputs(tx: RawTx): void {
    tx.outputs.forEach((o, vout) => this.outputs.set(`${tx.txid}:${vout}`, { sha: scriptSha(o.script), script: o.script, value: o.value }));
  }

  /** Txids of the transactions in the mempool now. */
  mempoolTxids(): string[] {
    return [...this.mempool.keys()];
  }

  tipHeight(): number {
    return this.blocks.length - 1;
  }

  block(hashOrHeight: string | number): IndexedBlock | undefined {
    return typeof hashOrHeight === 'number' ? this.blocks[hashOrHeight] : this.byHash.get(hashOrHeight);
  }

  tx(txid: string): IndexedTx | undefined {
    const c = this.confirmed.get(txid);
    if (c) return c;
    const m = this.mempool.get(txid);
    if (!m) return undefined;
    return { tx: m, height: this.mempoolHeight(m), blockHash: null, pos: -1 };
  }

  output(txid: string, vout: number): Output | undefined {
    return this.outputs.get(`${txid}:${vout}`);
  }

  private mempoolHeight(tx: RawTx): number {
    return tx.inputs.some((i) => this.mempool.has(i.prevTxid)) ? -1 : 0;
  }

  /** Fee of a transaction whose inputs are all known. */
  fee(tx: RawTx): bigint {
    let inSum = 0n;
    for (const i of tx.inputs) inSum += this.output(i.prevTxid, i.vout)?.value ?? 0n;
    return inSum - tx.outputs.reduce((s, o) => s + o.value, 0n);
  }

  private touches(tx: RawTx, sha: string): boolean {
    if (tx.outputs.some((o) => scriptSha(o.script) === sha)) return true;
    return !tx.coinbase && tx.inputs.some((i) => this.output(i.prevTxid, i.vout)?.sha === sha);
  }

  /** A script's history in the Electrum protocol's order: mined by height and position, then mempool by (-height, txid). */
  history(sha: string): HistoryItem[] {
    const mined: Array<IndexedTx> = [];
    for (const t of this.confirmed.values()) if (this.touches(t.tx, sha)) mined.push(t);
    mined.sort((a, b) => a.height - b.height || a.pos - b.pos);
    const waiting: HistoryItem[] = [];
    for (const tx of this.mempool.values()) if (this.touches(tx, sha)) waiting.push({ txid: tx.txid, height: this.mempoolHeight(tx), fee: this.fee(tx) });
    return [...mined.map((t) => ({ txid: t.tx.txid, height: t.height })), ...orderMempoolEntries(waiting)];
  }

  /** Unspent outputs paying the script (confirmed and waiting), not spent by any known transaction. */
  unspent(sha: string): Array<{ txid: string; vout: number; value: bigint; height: number }> {
    const spent = new Set<string>();
    const all = [...[...this.confirmed.values()].map((t) => t.tx), ...this.mempool.values()];
    for (const tx of all) if (!tx.coinbase) for (const i of tx.inputs) spent.add(`${i.prevTxid}:${i.vout}`);
    const out: Array<{ txid: string; vout: number; value: bigint; height: number }> = [];
    for (const item of this.history(sha)) {
      const t = this.tx(item.txid)!;
      t.tx.outputs.forEach((o, vout) => {
        if (scriptSha(o.script) === sha && !spent.has(`${item.txid}:${vout}`)) out.push({ txid: item.txid, vout, value: o.value, height: Math.max(0, item.height) });
      });
    }
    return out;
  }

  /** The Merkle branch of a mined transaction in its block. */
  merkle(txid: string): { height: number; branch: string[]; pos: number } | undefined {
    const t = this.confirmed.get(txid);
    if (!t) return undefined;
    return { height: t.height, branch: merkleBranch(this.blocks[t.height]!.txids, t.pos), pos: t.pos };
  }

  /** Median time of the 11 blocks up to height. */
  medianTime(height: number): number {
    const times: number[] = [];
    for (let h = height; h >= 0 && h > height - 11; h--) times.push(this.blocks[h]!.time);
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)]!;
  }
}
