// The light watcher's own header chain: rebuilt from the stored rows, extended from the server through every
// check HeaderChain makes, stored as it grows, and followed onto a branch with more work by rolling the records
// back to the fork in the same transaction that replaces the stored headers above it.
import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Network } from '../../bitcoin/networks.ts';
import type { Database } from '../../db/schema.ts';
import type { ChainStore } from '../chain-store.ts';
import type { ChangeFeed, TipMark } from '../change-feed.ts';
import { HeaderChain, HeaderLie } from './header-chain.ts';
import { HeaderStore } from './header-store.ts';
import type { LightBackend } from './light-backend.ts';
import type { ServerLies } from './server-lies.ts';

export interface HeaderSyncDeps {
  backend: LightBackend;
  store: ChainStore;
  network: Network;
  log: Logger;
  feed: ChangeFeed;
  tip: TipMark;
  lies: ServerLies;
  /** The watcher is stopping: leave the loop. */
  stopped(): boolean;
  /** The server answered (for the stall clock in /health). */
  answered(): void;
  /** The records rolled back to a fork: what was proven above it must be proven again. */
  rolledBack(): void;
  /** Blocks are scanned (block-scan.ts): the stored tip moves with each block scanned, not with the headers. */
  scansBlocks?(): boolean;
}

export class HeaderSync {
  readonly headers: HeaderChain;
  /** The height of the server's best chain, as it last said. */
  serverTip: number | null = null;
  /** The server's chain ends below our checkpoint: nothing it says can be checked. */
  belowCheckpoint = false;
  /** Stored headers are loaded once, at the first poll. */
  loaded = false;
  private readonly headerStore: HeaderStore;
  /** Lowest height whose stored header no longer matches our chain (null: the stored chain is ours). */
  private unsavedFrom: number | null = null;

  constructor(private readonly deps: HeaderSyncDeps) {
    this.headers = new HeaderChain(deps.network);
    this.headerStore = new HeaderStore(deps.store.db, deps.store.chain);
  }

  /** Forgets the headers in memory: the next sync reads them afresh from the database. */
  forget(): void {
    this.headers.clear();
    this.loaded = false;
    this.unsavedFrom = null;
  }

  /** Brings our header chain, and the stored tip, up to the server's best chain where it verifies. */
  async sync(): Promise<void> {
    if (!this.loaded) await this.load();
    await this.extend();
  }

  /**
   * Rebuilds the header chain from the stored rows, through the same checks a server's headers pass (links,
   * proof of work, targets, median time: local work, about a second per 100,000 headers), so nothing is
   * taken on trust from the database either. Stored rows that fail (a damaged row, a checkpoint a newer
   * release moved) are dropped from that height and fetched again from the server.
   */
  private async load(): Promise<void> {
    const { log, store } = this.deps;
    const base = this.headers.baseHeight;
    const rows = await this.headerStore.load(base);
    let next = base;
    for (let i = 0; i < rows.length; ) {
      const chunk: Uint8Array[] = [];
      while (i < rows.length && chunk.length < 2016 && rows[i]!.height === next + chunk.length) chunk.push(rows[i++]!.raw);
      if (chunk.length === 0) break; // a gap: what follows cannot link
      try {
        this.headers.connect(next, chunk);
      } catch (err) {
        if (!(err instanceof HeaderLie)) throw err;
        log.warn({ chain: store.chain, height: next, err: err.message }, 'stored headers fail verification from here; they are fetched again');
        break;
      }
      next += chunk.length;
    }
    if (next <= (rows.at(-1)?.height ?? -1)) this.unsavedFrom = next;
    this.loaded = true;
    const tip = this.headers.tip();
    if (tip) log.info({ chain: store.chain, height: tip.height, headers: this.headers.length }, 'verified headers loaded from the database');
  }

  /** Marks our chain from `height` up as not yet stored. */
  private changedFrom(height: number): void {
    this.unsavedFrom = this.unsavedFrom === null ? height : Math.min(this.unsavedFrom, height);
  }

  /** Writes the headers that changed since the last write in `trx`; returns the height written from. */
  private async write(trx: Transaction<Database>): Promise<number | null> {
    const from = this.unsavedFrom;
    if (from !== null) await this.headerStore.replaceFrom(trx, from, this.headers.from(from));
    return from;
  }

  /** After the transaction that wrote from `from` committed: nothing changed since, nothing is left to write. */
  private saved(from: number | null): void {
    if (from !== null && this.unsavedFrom === from) this.unsavedFrom = null;
  }

  private async save(): Promise<void> {
    if (this.unsavedFrom === null) return;
    this.saved(await this.deps.feed.change((trx) => this.write(trx)));
  }

  private async extend(): Promise<void> {
    const { backend, network, log, store } = this.deps;
    const serverTip = await backend.tipHeight();
    this.serverTip = serverTip;
    this.deps.answered();
    // A chain that ends below our checkpoint cannot be checked at all: a server still syncing, or one that
    // serves another network (a regtest or testnet server configured for mainnet). Nothing it says is used.
    this.belowCheckpoint = !this.headers.tip() && serverTip < this.headers.baseHeight;
    if (this.belowCheckpoint) {
      throw new Error(
        `the server's best chain ends at height ${serverTip}, below ${network}'s checkpoint at ${this.headers.baseHeight}: ` +
          'it is still syncing or serves another network; nothing it says is used',
      );
    }
    // The server's tip is the one we hold (its hash, where the protocol tells it): no header to ask for. A
    // branch of the same height has another tip hash, so it is still noticed.
    const ourTip = this.headers.tip();
    if (ourTip && serverTip === ourTip.height && backend.tipHash?.() === ourTip.hash) {
      await this.moveStoredTip();
      return;
    }
    let back = 0;
    for (let guard = 0; guard < 10_000 && !this.deps.stopped(); guard++) {
      const ours = this.headers.tip();
      // Re-fetch from our own tip (or deeper after a fork) so a same-height branch is noticed too.
      const start = ours ? Math.max(this.headers.baseHeight, ours.height - back) : this.headers.baseHeight;
      if (ours && serverTip < start) break;
      const count = Math.min(2016, Math.max(1, serverTip - start + 1));
      const raws = await backend.headers(start, count);
      if (raws.length === 0) break;
      let result;
      const before = this.headers.tip()?.height ?? this.headers.baseHeight - 1;
      try {
        result = this.headers.connect(start, raws);
      } catch (err) {
        if (!(err instanceof HeaderLie)) throw err;
        if (/does not link/.test(err.message) && ours && start > this.headers.baseHeight && err.message.includes(` at ${start} `)) {
          back = back * 2 + 1; // the fork is deeper: look further back
          continue;
        }
        this.deps.lies.record('bad-header', err.message);
        return;
      }
      if (result.kind === 'extended') {
        this.changedFrom(before + 1);
        await this.save();
      }
      if (result.kind === 'reorg') {
        // The stored suffix is replaced in the rollback's transaction: headers and records move together.
        this.changedFrom(result.forkHeight + 1);
        await this.rollback(result.forkHeight, 'the server showed a branch with more work');
      }
      if (result.kind === 'less-work') {
        log.info({ chain: store.chain, forkHeight: result.forkHeight }, 'server shows a branch with less work than ours; keeping ours');
        break;
      }
      back = 0;
      const tip = this.headers.tip()!;
      if (tip.height >= serverTip || raws.length < count) break;
    }
    await this.moveStoredTip();
  }

  /** Makes the stored tip our verified tip, rolling back first when the stored one left our chain (also after a restart). */
  private async moveStoredTip(): Promise<void> {
    const { store } = this.deps;
    const tip = this.headers.tip();
    if (!tip) return;
    const stored = await store.tip();
    if (stored) {
      const ourAtStored = this.headers.at(stored.height);
      if (stored.height > tip.height && !ourAtStored) return; // the server is behind what we processed: wait
      if (ourAtStored && ourAtStored.hash !== stored.hash) {
        // Our chain no longer holds the stored tip: find the highest processed block it still holds.
        let h = stored.height - 1;
        for (; h >= this.headers.baseHeight; h--) {
          const mine = await store.blockHashAt(h);
          if (mine !== undefined && mine === this.headers.at(h)?.hash) break;
        }
        await this.rollback(Math.max(h, this.headers.baseHeight), 'the stored tip left the verified chain');
      } else if (stored.hash === tip.hash) {
        this.deps.tip.note(tip.height);
        return;
      }
      // Scanning blocks: the scan moves the stored tip block by block (a first start begins at our tip, below).
      if (this.deps.scansBlocks?.()) return;
    }
    await this.deps.feed.moveTip({ hash: tip.hash, height: tip.height, prevHash: tip.prevHash, time: tip.time });
    this.deps.tip.note(tip.height);
  }

  private async rollback(forkHeight: number, why: string): Promise<void> {
    const { store, log, feed } = this.deps;
    const fork = this.headers.at(forkHeight);
    log.warn({ chain: store.chain, forkHeight, why }, 'chain reorganisation: rolling back to the fork point');
    const block = fork && { hash: fork.hash, height: fork.height, prevHash: fork.prevHash, time: fork.time };
    const savedFrom = await feed.rollback(forkHeight, block, (trx) => this.write(trx));
    this.saved(savedFrom ?? null);
    this.deps.rolledBack();
    this.deps.tip.note(forkHeight);
  }
}
