import type { Logger } from 'pino';
import { parseBlock } from '../bitcoin/raw-block.ts';
import { parseTransaction, type RawTx } from '../bitcoin/raw-tx.ts';
import type { Clock } from '../core/clock.ts';
import type { RpcClient } from './rpc-client.ts';
import type { ChainStore } from './chain-store.ts';
import type { WatchedSet } from './watched-set.ts';
import type { ChainChangeListener } from './chain-events.ts';
import { matchTx } from './tx-recorder.ts';
import type { ChainFollower } from './chain-source.ts';
import { PeriodicTask } from '../core/periodic-task.ts';
import { ChangeFeed, TipMark } from './change-feed.ts';

/** How the watcher is doing, for GET /health. */
export interface WatcherHealth {
  [detail: string]: unknown;
  ok: boolean;
  network: string;
  tipHeight: number | null;
  watchedScripts: number;
  lastPollAt: number | null;
  /** Polls completed since start. */
  polls: number;
  lastTipChangeAt: number | null;
  stalled: boolean;
  error: string | null;
}

/** Watcher settings. */
export interface WatcherOptions {
  rpc: RpcClient;
  store: ChainStore;
  watched: WatchedSet;
  clock: Clock;
  log: Logger;
  pollMs: number;
  network: string;
  /** The node unanswered this long makes the watcher stalled. */
  nodeSilenceMs?: number;
  /** The tip unchanged this long makes the watcher stalled (not on regtest, where blocks come on demand). */
  tipSilenceMs?: number;
  /** What /health and `satgate status` call this source: `devchain` for development mode's own node. */
  sourceLabel?: 'rpc' | 'devchain';
}

/**
 * Follows one chain (DESIGN.md section 4): scans new blocks from the stored tip, rolls back to the fork
 * point on a reorg, scans the mempool, withdraws transactions that leave it unmined, and applies each
 * block's effects with the new tip in one database transaction.
 */
export class ChainWatcher implements ChainFollower {
  private readonly seenMempool = new Set<string>();
  private readonly task: PeriodicTask;
  private readonly feed: ChangeFeed;
  private readonly tipMark: TipMark;
  private running: Promise<void> | null = null;
  private lastPollAt: number | null = null;
  private polls = 0;
  private lastNodeAnswerAt: number | null = null;
  /** The node's best height as last seen (the lag is how far the processed tip is behind it). */
  private nodeTipHeight: number | null = null;
  private lastError: string | null = null;
  private readonly startedAt: number;

  constructor(private readonly opts: WatcherOptions) {
    this.startedAt = opts.clock();
    this.feed = new ChangeFeed(opts.store, opts.watched, opts.clock, 'each-change');
    this.tipMark = new TipMark(opts.clock);
    // pollOnce never throws (errors go to health), so onError has nothing to add.
    this.task = new PeriodicTask(() => this.pollOnce(), { everyMs: opts.pollMs, fromStart: true, onError: () => {} });
  }

  private get stopped(): boolean {
    return this.task.stopping;
  }

  /** Registers a listener called inside every change's database transaction. */
  onChange(listener: ChainChangeListener): void {
    this.feed.onChange(listener);
  }

  /** Registers a listener called after each change's transaction commits (e.g. to wake the outbox). */
  onCommitted(listener: () => void): void {
    this.feed.onCommitted(listener);
  }

  /** Starts polling every `pollMs`. */
  start(): void {
    this.task.start();
  }

  /**
   * Polls now instead of at the next tick (a push hint from the node: a new transaction or block). Hints
   * during a poll make one more poll right after it, since that poll may have asked the node before.
   */
  wake(): void {
    this.task.wake();
  }

  /** Stops polling and waits for a poll in progress to finish. */
  async stop(): Promise<void> {
    await this.task.stop();
    await this.running;
  }

  /**
   * One poll: blocks, then mempool. Errors are logged and reported in health, never thrown. A poll
   * already under way may have asked the node before the caller's change, so this waits for it and
   * then polls afresh.
   */
  async pollOnce(): Promise<void> {
    await this.exclusive(async () => {
      try {
        // Addresses other processes issued since the last poll (several API processes on one database).
        await this.opts.watched.loadNew(this.opts.store.db);
        await this.syncBlocks();
        await this.syncMempool();
        this.lastError = null;
      } catch (err) {
        await this.recoverFrom(err);
      } finally {
        this.lastPollAt = this.opts.clock();
        this.polls++;
      }
    });
  }

  /**
   * A transaction the node pushed with its bytes (bcoin's websocket `tx`, Bitcoin Core's ZMQ `rawtx`): when it
   * pays a watched script or spends a watched output it is recorded at once as a mempool sighting, without
   * the poll's round trips (tip, mempool list, the transaction itself), which were most of a push's latency.
   * The bytes come from the node the polls ask, so the record is the same one a poll would make; a later
   * block sighting upgrades it and the polls' mempool check withdraws it if it leaves the mempool unmined.
   * One that matches nothing is left alone: a poll still looks at it (it may pay an address another process
   * issued and this one has not loaded yet). Never throws.
   */
  async pushTx(raw: Uint8Array): Promise<void> {
    if (this.stopped) return;
    let tx: RawTx;
    try {
      tx = parseTransaction(raw);
    } catch (err) {
      this.opts.log.debug({ chain: this.opts.store.chain, err: err instanceof Error ? err.message : String(err) }, 'unreadable pushed transaction ignored');
      return;
    }
    if (this.seenMempool.has(tx.txid) || !matchTx(this.opts.watched, tx)) return;
    await this.exclusive(async () => {
      if (this.stopped || this.seenMempool.has(tx.txid)) return;
      try {
        await this.recordMempoolTx(tx);
      } catch (err) {
        await this.recoverFrom(err);
      }
    });
  }

  /** Runs `work` when no poll or pushed transaction is being processed (they share the in-memory state). */
  private async exclusive(work: () => Promise<void>): Promise<void> {
    while (this.running) await this.running.catch(() => {});
    this.running = work().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async recoverFrom(err: unknown): Promise<void> {
    this.lastError = err instanceof Error ? err.message : String(err);
    this.opts.log.warn({ chain: this.opts.store.chain, err: this.lastError }, 'chain poll failed; will retry');
    // The in-memory outpoints may hold entries of a rolled-back transaction; reload from the truth.
    this.opts.watched.outpoints.clear();
    await this.opts.watched.load(this.opts.store.db).catch(() => {});
  }

  /** Health for GET /health: stalled when the node is silent or the tip stops moving for too long. */
  health(): WatcherHealth {
    const now = this.opts.clock();
    const nodeSilence = this.opts.nodeSilenceMs ?? Math.max(120_000, this.opts.pollMs * 30);
    const tipSilence = this.opts.tipSilenceMs ?? 3 * 3_600_000;
    const nodeStalled = now - (this.lastNodeAnswerAt ?? this.startedAt) > nodeSilence;
    const tipStalled = this.opts.network !== 'regtest' && now - (this.tipMark.changedAt ?? this.startedAt) > tipSilence;
    const stalled = nodeStalled || tipStalled;
    return {
      ok: !stalled,
      network: this.opts.network,
      source: this.opts.sourceLabel ?? 'rpc',
      sourceUrl: this.opts.rpc.url,
      tipHeight: this.tipMark.height,
      tipHash: this.tipMark.hash,
      serverTipHeight: this.nodeTipHeight,
      lag: this.tipMark.height !== null && this.nodeTipHeight !== null ? Math.max(0, this.nodeTipHeight - this.tipMark.height) : null,
      // The node validated every block itself (full validation): satgate takes your own node's word.
      verified: true,
      watchedScripts: this.opts.watched.size,
      lastPollAt: this.lastPollAt,
      polls: this.polls,
      lastTipChangeAt: this.tipMark.changedAt,
      stalled,
      error: this.lastError,
    };
  }

  private async syncBlocks(): Promise<void> {
    const { rpc, store } = this.opts;
    const best = await rpc.getBestBlockHash();
    this.lastNodeAnswerAt = this.opts.clock();
    let tip = await store.tip();
    if (!tip) {
      // First start: begin at the node's tip; addresses issued from now on are watched from here.
      const header = await rpc.getBlockHeader(best);
      await this.feed.change((trx, now) =>
        store.setTip(trx, { hash: best, height: header.height, prevHash: header.previousblockhash ?? '', time: header.time }, now),
      );
      this.nodeTipHeight = header.height;
      this.tipMark.note(header.height, best);
      return;
    }
    this.tipMark.height = tip.height;
    this.tipMark.hash = tip.hash;
    if (best === tip.hash) {
      this.nodeTipHeight = tip.height;
      return;
    }

    tip = await this.rollbackIfReorged(tip);
    const bestHeight = (await rpc.getBlockHeader(best)).height;
    this.nodeTipHeight = bestHeight;
    for (let height = tip.height + 1; height <= bestHeight && !this.stopped; height++) {
      const hash = await rpc.getBlockHash(height);
      const raw = await rpc.getRawBlock(hash);
      const block = parseBlock(raw);
      if (block.header.prevHash !== tip.hash) {
        // The node switched branches while we were scanning: next poll finds the fork point.
        return;
      }
      await this.applyBlock(block.header.hash, height, block.header.prevHash, block.header.time, block.txs);
      tip = { hash: block.header.hash, height };
    }
  }

  /** When our tip is no longer on the node's best chain, rolls back to the highest block that still is. */
  private async rollbackIfReorged(tip: { hash: string; height: number }): Promise<{ hash: string; height: number }> {
    const { rpc, store } = this.opts;
    if ((await rpc.getBlockHash(tip.height).catch(() => null)) === tip.hash) return tip;
    let height = tip.height - 1;
    let forkHash: string | undefined;
    for (; height >= 0; height--) {
      const ours = await store.blockHashAt(height);
      if (!ours) {
        // Below the block this watcher started from (a fresh install starts at the tip and scans no history), so
        // nothing at or below this height was ever recorded: the node's block here is a base as good as the
        // start was. Happens when the start block itself is reorganised away.
        forkHash = await rpc.getBlockHash(height);
        break;
      }
      if ((await rpc.getBlockHash(height)) === ours) {
        forkHash = ours;
        break;
      }
    }
    if (!forkHash) throw new Error('no common block with the node');
    const forkHeight = height;
    const header = await rpc.getBlockHeader(forkHash);
    this.opts.log.warn({ chain: store.chain, from: tip.height, forkHeight }, 'chain reorganisation: rolling back to the fork point');
    await this.feed.rollback(forkHeight, { hash: forkHash, height: forkHeight, prevHash: header.previousblockhash ?? '', time: header.time });
    this.tipMark.note(forkHeight, forkHash);
    return { hash: forkHash, height: forkHeight };
  }

  private async applyBlock(hash: string, height: number, prevHash: string, time: number, txs: RawTx[]): Promise<void> {
    const { store } = this.opts;
    await this.feed.record(txs, { block: { hash, height, time } }, async (trx, now, touched) => {
      await store.setTip(trx, { hash, height, prevHash, time }, now);
      await this.feed.emit(trx, touched.size > 0 ? 'block' : 'tip', touched, height, now);
    });
    this.tipMark.note(height, hash);
  }

  private async syncMempool(): Promise<void> {
    const { rpc, store } = this.opts;
    const tipBefore = (await store.tip())?.hash;
    const mempool = new Set(await rpc.getRawMempool());
    this.lastNodeAnswerAt = this.opts.clock();
    for (const txid of this.seenMempool) if (!mempool.has(txid)) this.seenMempool.delete(txid);

    for (const txid of mempool) {
      if (this.seenMempool.has(txid) || this.stopped) continue;
      const raw = await rpc.getRawTransaction(txid);
      if (!raw) {
        this.seenMempool.add(txid);
        continue;
      }
      await this.recordMempoolTx(parseTransaction(raw));
    }

    // A transaction we hold as waiting that the node no longer has, unmined: replaced or evicted. Only
    // judged when no block arrived meanwhile, since a block empties the mempool of what it confirms (asked
    // only when something looks gone: one round trip less on the usual poll).
    const waiting = await store.mempoolTxs();
    const gone = [...waiting].filter(([txid]) => !mempool.has(txid)).map(([, id]) => id);
    if (gone.length === 0) return;
    if ((await rpc.getBestBlockHash()) !== tipBefore) return;
    await this.feed.withdraw(gone, () => this.tipMark.height ?? 0);
    this.opts.log.info({ chain: store.chain, count: gone.length }, 'transactions withdrawn: they left the mempool unmined');
  }

  /**
   * Records one mempool transaction when it touches a watched script or outpoint, in its own database
   * transaction; one that touches nothing opens none. Marks it seen either way once done.
   */
  private async recordMempoolTx(tx: RawTx): Promise<void> {
    if (!matchTx(this.opts.watched, tx)) {
      this.seenMempool.add(tx.txid);
      return;
    }
    await this.feed.record([tx], { mempool: true }, async (trx, now, touched, matched) => {
      if (matched) await this.feed.emit(trx, 'mempool', touched, this.tipMark.height ?? 0, now);
    });
    this.seenMempool.add(tx.txid);
  }
}
