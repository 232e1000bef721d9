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

  /**
   * Whether confirmations come from blocks rather than per-address questions: the backend has the question (one
   * Esplora, or a pool of Esplora servers; never Electrum) and did not answer 404 for a block and the one below it.
   */
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
      // The check is handed to the backend so that several servers (server-pool.ts) move on to the next one
      // when a server's bytes fail it; what is finally sent is judged here, where a lie is recorded.
      let checked: { raw: Uint8Array; block: RawBlock } | null = null;
      const check = (bytes: Uint8Array): boolean => {
        const judged = judgeBlock(bytes, header.hash, header.merkleRoot);
        if ('block' in judged) checked = { raw: bytes, block: judged.block };
        return 'block' in judged;
      };
      const raw = await backend.rawBlock!(header.hash, check);
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
      const block = this.verified(raw, checked, header.hash, header.merkleRoot, height);
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

  /** The block, when it is the one our header names and its transactions are the ones the header commits to; a lie recorded otherwise. */
  private verified(raw: Uint8Array, checked: { raw: Uint8Array; block: RawBlock } | null, hash: string, root: string, height: number): RawBlock | null {
    // The bytes the backend's check already accepted are not parsed again (a block can be megabytes).
    if (checked?.raw === raw) return checked.block;
    const judged = judgeBlock(raw, hash, root);
    if ('block' in judged) return judged.block;
    this.deps.lies.record('bad-block', `block ${hash} at ${height}: ${judged.wrong}`);
    return null;
  }
}

/** Whether the bytes are the block our header names, with the transactions it commits to; records nothing. */
function judgeBlock(raw: Uint8Array, hash: string, root: string): { block: RawBlock } | { wrong: string } {
  let block: RawBlock;
  try {
    block = parseBlock(raw);
  } catch (err) {
    return { wrong: `the bytes sent are not a block (${(err as Error).message})` };
  }
  const txids = block.txs.map((t) => t.txid);
  // Repeated transactions can reproduce a root (CVE-2012-2459); a valid block never has them.
  if (block.header.hash !== hash || new Set(txids).size !== txids.length || merkleRoot(txids) !== root) {
    return { wrong: "its transactions do not match the verified header's Merkle root" };
  }
  return { block };
}
