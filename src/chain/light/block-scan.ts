// Confirmations from whole blocks (issue 39): each new block of the verified header chain is fetched once and
// every output and input is matched against the whole watched set locally, as the node watcher does, so a light
// server is asked per block rather than per address. The block is taken only when its transactions hash to the
// Merkle root of our verified header (no per-transaction proof is needed for a whole block); the stored tip is
// the last block scanned, so a restart resumes there, and a reorg is the header chain's rollback followed by
// the scan of the new branch.
import type { Logger } from 'pino';
import { parseBlock, type RawBlock } from '../../bitcoin/raw-block.ts';
import type { ChainStore } from '../chain-store.ts';
import type { ChangeFeed, TipMark } from '../change-feed.ts';
import type { HeaderChain } from './header-chain.ts';
import type { LightBackend } from './light-backend.ts';
import { merkleRoot } from './merkle-proof.ts';
import type { ServerLies } from './server-lies.ts';

export interface BlockScanDeps {
  backend: LightBackend;
  store: ChainStore;
  feed: ChangeFeed;
  headers: HeaderChain;
  lies: ServerLies;
  log: Logger;
  tip: TipMark;
  stopped(): boolean;
  answered(): void;
}

export class BlockScan {
  /** The server answered 404 for a block: it serves no raw blocks, and per-address polling stands in. */
  private unavailable = false;
  /** The height of the last block scanned (the stored tip), as of the last run. */
  height: number | null = null;

  constructor(private readonly deps: BlockScanDeps) {}

  /** Whether confirmations come from blocks (the server serves them) rather than per-address questions. */
  get enabled(): boolean {
    return this.deps.backend.rawBlock !== undefined && !this.unavailable;
  }

  /** Scans every verified block above the stored tip, in order, each with its tip move in one change. */
  async run(): Promise<void> {
    const { store, headers, backend, log } = this.deps;
    if (!this.enabled) return;
    const stored = await store.tip();
    // The first start sets the tip (header-sync.ts); one that left our chain was rolled back there.
    if (!stored || headers.at(stored.height)?.hash !== stored.hash) return;
    this.height = stored.height;
    let prevHash = stored.hash;
    const top = headers.tip()?.height ?? stored.height;
    for (let height = stored.height + 1; height <= top && !this.deps.stopped(); height++) {
      const header = headers.at(height);
      if (!header || header.prevHash !== prevHash) return;
      const raw = await backend.rawBlock!(header.hash);
      this.deps.answered();
      if (raw === null) {
        // A block the server just reorganised away is not found either; the route is missing only when the
        // block below it, one we already took, is not found as well (one request more, only on a 404).
        if ((await backend.rawBlock!(prevHash)) !== null) return;
        this.unavailable = true;
        log.warn(
          { chain: store.chain, source: backend.url },
          'the light server does not serve whole blocks (/block/:hash/raw and /block/:hash/txs answered 404): confirmations are asked per address instead',
        );
        return;
      }
      const block = this.verified(raw, header.hash, header.merkleRoot, height);
      if (!block) return; // a lie: nothing of it is used; the block is asked again next poll
      const tip = { hash: header.hash, height, prevHash: header.prevHash, time: header.time };
      await this.deps.feed.record(block.txs, { block: { hash: tip.hash, height, time: tip.time } }, async (trx, now, touched) => {
        await store.setTip(trx, tip, now);
        await this.deps.feed.emit(trx, touched.size > 0 ? 'block' : 'tip', touched, height, now);
      });
      this.deps.tip.note(height);
      this.height = height;
      prevHash = tip.hash;
    }
  }

  /** The block, when it is the one our header names and its transactions are the ones the header commits to. */
  private verified(raw: Uint8Array, hash: string, root: string, height: number): RawBlock | null {
    let block: RawBlock;
    try {
      block = parseBlock(raw);
    } catch (err) {
      this.deps.lies.record('bad-block', `block ${hash} at ${height}: the bytes sent are not a block (${(err as Error).message})`);
      return null;
    }
    const txids = block.txs.map((t) => t.txid);
    // Repeated transactions can reproduce a root (CVE-2012-2459); a valid block never has them.
    if (block.header.hash !== hash || new Set(txids).size !== txids.length || merkleRoot(txids) !== root) {
      this.deps.lies.record('bad-block', `block ${hash} at ${height}: its transactions do not match the verified header's Merkle root`);
      return null;
    }
    return block;
  }
}
