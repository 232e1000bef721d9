import type { Logger } from 'pino';
import { parseTransaction, type RawTx } from '../../bitcoin/raw-tx.ts';
import type { Network } from '../../bitcoin/networks.ts';
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import type { ChainStore } from '../chain-store.ts';
import type { WatchedSet } from '../watched-set.ts';
import type { ChainChange, ChainChangeCause, ChainChangeListener } from '../chain-events.ts';
import type { ChainFollower, FollowerHealth } from '../chain-source.ts';
import { recordMatchedTx, type TxPlace } from '../tx-recorder.ts';
import { PeriodicTask } from '../../core/periodic-task.ts';
import { HeaderChain, HeaderLie } from './header-chain.ts';
import { HeaderStore } from './header-store.ts';
import { merkleRootFromBranch } from './merkle-proof.ts';
import { addressTiers, type Tier } from './address-tiers.ts';
import type { LightBackend } from './light-backend.ts';
import type { HistoryEntry } from './script-hash.ts';
import type { MempoolSocket } from './mempool-socket.ts';
import { addressFromScript } from '../../bitcoin/address.ts';

export interface LightWatcherOptions {
  backend: LightBackend;
  store: ChainStore;
  watched: WatchedSet;
  db: Db;
  clock: Clock;
  log: Logger;
  pollMs: number;
  network: Network;
  /** Warm addresses are asked about every this many polls (default 10). */
  warmEvery?: number;
  /** Cold addresses asked about per poll, in a rolling sweep (default 1). */
  coldPerPoll?: number;
  nodeSilenceMs?: number;
  /**
   * mempool.space's websocket: hot addresses (up to its cap) are tracked there, a push names the addresses
   * to ask about now, and tracked addresses are polled only every `warmEvery` polls (the safety net).
   */
  push?: MempoolSocket;
  /** How often the tracked list is brought up to date from the database (no server request; default 5 s). */
  pushTrackMs?: number;
}

/** A claim a server made that did not verify: logged, shown in /health, ignored. */
export interface Lie {
  at: number;
  kind: 'bad-header' | 'txid-mismatch' | 'bad-merkle-proof' | 'missing-transaction';
  detail: string;
}

/**
 * Follows one chain through a light server (DESIGN.md section 10): keeps its own verified header chain,
 * asks per watched script (hot every poll, warm less often, cold in a sweep), and records a transaction
 * as mined only with a Merkle proof of the txid it computed into a header of that chain. The records
 * and change events are the ones the node watcher makes, so everything above is unchanged.
 */
export class LightWatcher implements ChainFollower {
  readonly headers: HeaderChain;
  private readonly listeners: ChainChangeListener[] = [];
  private readonly committedListeners: Array<() => void> = [];
  /** An emitted change of this poll touched an address; its transaction has committed by the poll's end. */
  private touchedThisPoll = false;
  private readonly statuses = new Map<bigint, string | null>();
  private readonly histories = new Map<bigint, HistoryEntry[]>();
  private readonly lies: Lie[] = [];
  private lieCount = 0;
  private readonly task: PeriodicTask;
  private running: Promise<void> | null = null;
  /** Pushes poll only while the timer runs (start() to stop()). */
  private started = false;
  private lastPollAt: number | null = null;
  private polls = 0;
  private lastServerAnswerAt: number | null = null;
  private lastTipChangeAt: number | null = null;
  private serverTip: number | null = null;
  private lastError: string | null = null;
  private coldCursor = 0;
  private warmCursor = 0;
  private sweep = { cold: 0, swept: 0, hot: 0, warm: 0 };
  private readonly startedAt: number;
  private pushPending = false;
  private syncedHeight: number | null = null;
  private belowCheckpoint = false;
  private readonly headerStore: HeaderStore;
  /** Stored headers are loaded once, at the first poll. */
  private headersLoaded = false;
  /** Lowest height whose stored header no longer matches our chain (null: the stored chain is ours). */
  private unsavedFrom: number | null = null;
  private readonly trackTask: PeriodicTask | null = null;
  /** Address ids a push named, waiting for a pushed poll. */
  private readonly pushed = new Set<bigint>();
  private pushedPollPending = false;
  /** Pushed addresses whose history could not be settled yet (a block above our headers): asked once more. */
  private readonly retryPushed = new Set<bigint>();
  private readonly retriedPushed = new Set<bigint>();
  private readonly addressCache = new Map<bigint, string | null>();
  private readonly idByAddress = new Map<string, bigint>();

  constructor(private readonly opts: LightWatcherOptions) {
    this.headers = new HeaderChain(opts.network);
    this.headerStore = new HeaderStore(opts.store.db, opts.store.chain);
    this.startedAt = opts.clock();
    // pollOnce never throws (errors go to health), so onError has nothing to add.
    this.task = new PeriodicTask(() => this.pollOnce(), { everyMs: opts.pollMs, onError: () => {} });
    const push = opts.push;
    if (push) {
      this.trackTask = new PeriodicTask(() => this.refreshTracking(), { everyMs: opts.pushTrackMs ?? 5_000, onError: () => {} });
      // A block: the tip moved (a pushed poll with no address brings the headers, so confirmations count).
      push.onBlock(() => {
        opts.backend.refreshTip?.();
        this.wakeFor([]);
      });
      // Never the pushed content: only which addresses to ask the API about, through the verified path.
      push.onAddresses((addresses) => this.wakeFor(addresses));
      // After a (re)connect, whatever happened while no push could come is asked for.
      push.onTracked((addresses) => this.wakeFor(addresses));
    }
    // A push (new tip, a status changed, a reconnect) polls at once instead of waiting for the timer.
    opts.backend.onPush(() => {
      if (!this.started || this.stopped || this.pushPending) return;
      this.pushPending = true;
      setTimeout(() => {
        this.pushPending = false;
        if (this.started && !this.stopped) void this.pollOnce();
      }, 50).unref();
    });
  }

  onChange(listener: ChainChangeListener): void {
    this.listeners.push(listener);
  }

  /** Registers a listener called after a poll whose committed changes touched an address (wakes the outbox). */
  onCommitted(listener: () => void): void {
    this.committedListeners.push(listener);
  }

  /** Polls now instead of at the next tick (a push hint). */
  wake(): void {
    this.task.wake();
  }

  private get stopped(): boolean {
    return this.task.stopping;
  }

  start(): void {
    // Started again (the singleton lease came back): another process may have moved the stored headers while
    // this one was idle, so they are read afresh, like the watched set, rather than trusted from memory.
    if (this.headersLoaded && !this.running) {
      this.headers.clear();
      this.headersLoaded = false;
      this.unsavedFrom = null;
    }
    this.started = true;
    this.task.start();
    this.trackTask?.start();
    this.opts.push?.start();
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.opts.push?.close();
    await this.trackTask?.stop();
    await this.task.stop();
    await this.running;
  }

  /** The addresses a push named are asked about now (a pushed poll); the rest wait for their schedule. */
  wakeFor(addresses: string[]): void {
    for (const a of addresses) {
      const id = this.idByAddress.get(a);
      if (id !== undefined) {
        this.pushed.add(id);
        this.retriedPushed.delete(id);
      }
    }
    this.schedulePushedPoll();
  }

  private schedulePushedPoll(): void {
    if (!this.started || this.stopped || this.pushedPollPending) return;
    this.pushedPollPending = true;
    setTimeout(() => {
      this.pushedPollPending = false;
      // The addresses are taken when the poll runs: a scheduled poll under way asks them first meanwhile.
      if (this.started && !this.stopped) void this.pollOnce('pushed');
    }, 20).unref();
  }

  private addressOf(id: bigint): string | null {
    let a = this.addressCache.get(id);
    if (a === undefined) {
      const script = this.opts.watched.scriptsById.get(id);
      a = script ? (addressFromScript(script, this.opts.network) ?? null) : null;
      this.addressCache.set(id, a);
      if (a !== null) this.idByAddress.set(a, id);
    }
    return a;
  }

  /** Tells the websocket which hot addresses to track, newest first (a database query, no server request). */
  private async refreshTracking(): Promise<void> {
    const push = this.opts.push;
    const tip = this.headers.tip();
    if (!push || !tip || this.stopped) return;
    await this.opts.watched.loadNew(this.opts.store.db);
    const tiers = await addressTiers(this.opts.db, this.opts.store.chain, this.opts.clock(), tip.height);
    const hot: bigint[] = [];
    for (const id of this.opts.watched.scriptsById.keys()) if ((tiers.get(id) ?? 'hot') === 'hot') hot.push(id);
    hot.sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
    const addresses: string[] = [];
    for (const id of hot) {
      const a = this.addressOf(id);
      if (a !== null) addresses.push(a);
    }
    // Newly tracked addresses are asked once: a push covers only what happens after tracking starts.
    const fresh = push.track(addresses);
    if (fresh.length > 0) this.wakeFor(fresh);
  }

  /** One poll now; `pushed`: a pushed poll, the headers and just the addresses pushes named. */
  async pollOnce(scope?: 'pushed'): Promise<void> {
    while (this.running) await this.running;
    this.running = (async () => {
      let only: Set<bigint> | undefined;
      if (scope === 'pushed') {
        only = new Set(this.pushed);
        this.pushed.clear();
      }
      try {
        // Addresses issued by other processes on the same PostgreSQL database (scale-out) join before we ask.
        await this.opts.watched.loadNew(this.opts.store.db);
        if (!this.headersLoaded) await this.loadHeaders();
        await this.syncHeaders();
        await this.syncScripts(only);
        // Caught up to a height only once every due script was asked at it (what the node watcher's tip means).
        if (!only) this.syncedHeight = this.headers.tip()?.height ?? null;
        this.lastError = null;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        // Logged once while it repeats (a server below the checkpoint fails every poll); /health shows it throughout.
        const level = message === this.lastError ? 'debug' : 'warn';
        this.lastError = message;
        this.opts.log[level]({ chain: this.opts.store.chain, source: this.opts.backend.url, err: message }, 'light chain poll failed; will retry');
        this.opts.watched.outpoints.clear();
        await this.opts.watched.load(this.opts.store.db).catch(() => {});
      } finally {
        this.lastPollAt = this.opts.clock();
        this.polls++;
        this.running = null;
        if (this.retryPushed.size > 0) {
          for (const id of this.retryPushed) {
            this.pushed.add(id);
            this.retriedPushed.add(id);
          }
          this.retryPushed.clear();
          this.schedulePushedPoll();
        }
        if (this.touchedThisPoll) {
          this.touchedThisPoll = false;
          for (const listener of this.committedListeners) listener();
        }
      }
    })();
    return this.running;
  }

  health(): FollowerHealth {
    const now = this.opts.clock();
    const silence = this.opts.nodeSilenceMs ?? Math.max(120_000, this.opts.pollMs * 30);
    const stalled = now - (this.lastServerAnswerAt ?? this.startedAt) > silence;
    const tip = this.headers.tip();
    const recentLie = this.lies.some((l) => now - l.at < 3_600_000);
    const budget = this.opts.backend.budget();
    return {
      ok: !stalled && !recentLie && !this.belowCheckpoint,
      network: this.opts.network,
      source: this.opts.backend.kind,
      sourceUrl: this.opts.backend.url,
      tipHeight: this.syncedHeight,
      tipHash: this.syncedHeight === null ? null : (this.headers.at(this.syncedHeight)?.hash ?? null),
      headerHeight: tip?.height ?? null,
      serverTipHeight: this.serverTip,
      lag: tip && this.serverTip !== null ? Math.max(0, this.serverTip - tip.height) : null,
      // Verified: our header chain reaches the server's tip and the server told no lie in the last hour.
      verified: tip !== undefined && this.serverTip !== null && tip.height >= this.serverTip && !recentLie,
      lies: this.lieCount,
      recentLies: this.lies.slice(-5),
      watchedScripts: this.opts.watched.size,
      tiers: { hot: this.sweep.hot, warm: this.sweep.warm, cold: this.sweep.cold },
      coldSweep: { done: this.sweep.swept, of: this.sweep.cold },
      requests: budget.requests,
      requestsLastMinute: budget.requestsLastMinute,
      refusals: budget.refusals,
      connected: this.opts.backend.connected(),
      ...(this.opts.push ? { push: { url: this.pushUrl(), ...this.opts.push.stats() } } : {}),
      lastPollAt: this.lastPollAt,
      polls: this.polls,
      lastTipChangeAt: this.lastTipChangeAt,
      stalled,
      error: this.lastError,
    };
  }

  private pushUrl(): string {
    return this.opts.push!.url;
  }

  private lie(kind: Lie['kind'], detail: string): void {
    this.lieCount++;
    this.lies.push({ at: this.opts.clock(), kind, detail });
    if (this.lies.length > 20) this.lies.shift();
    this.opts.log.warn({ chain: this.opts.store.chain, source: this.opts.backend.url, kind, detail }, 'light server sent a claim that does not verify; ignored');
  }

  // ---- headers ----

  /**
   * Rebuilds the header chain from the stored rows, through the same checks a server's headers pass (links,
   * proof of work, targets, median time: local work, about a second per 100,000 headers), so nothing is
   * taken on trust from the database either. Stored rows that fail (a damaged row, a checkpoint a newer
   * release moved) are dropped from that height and fetched again from the server.
   */
  private async loadHeaders(): Promise<void> {
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
        this.opts.log.warn({ chain: this.opts.store.chain, height: next, err: err.message }, 'stored headers fail verification from here; they are fetched again');
        break;
      }
      next += chunk.length;
    }
    if (next <= (rows.at(-1)?.height ?? -1)) this.unsavedFrom = next;
    this.headersLoaded = true;
    const tip = this.headers.tip();
    if (tip) this.opts.log.info({ chain: this.opts.store.chain, height: tip.height, headers: this.headers.length }, 'verified headers loaded from the database');
  }

  /** Marks our chain from `height` up as not yet stored. */
  private headersChangedFrom(height: number): void {
    this.unsavedFrom = this.unsavedFrom === null ? height : Math.min(this.unsavedFrom, height);
  }

  /** Writes the headers that changed since the last write in `trx`; returns the height written from. */
  private async writeHeaders(trx: Parameters<ChainChangeListener>[0]): Promise<number | null> {
    const from = this.unsavedFrom;
    if (from !== null) await this.headerStore.replaceFrom(trx, from, this.headers.from(from));
    return from;
  }

  /** After the transaction that wrote from `from` committed: nothing changed since, nothing is left to write. */
  private headersSaved(from: number | null): void {
    if (from !== null && this.unsavedFrom === from) this.unsavedFrom = null;
  }

  private async saveHeaders(): Promise<void> {
    if (this.unsavedFrom === null) return;
    this.headersSaved(await this.opts.store.transaction((trx) => this.writeHeaders(trx)));
  }

  private async syncHeaders(): Promise<void> {
    const { backend } = this.opts;
    const serverTip = await backend.tipHeight();
    this.serverTip = serverTip;
    this.lastServerAnswerAt = this.opts.clock();
    // A chain that ends below our checkpoint cannot be checked at all: a server still syncing, or one that
    // serves another network (a regtest or testnet server configured for mainnet). Nothing it says is used.
    this.belowCheckpoint = !this.headers.tip() && serverTip < this.headers.baseHeight;
    if (this.belowCheckpoint) {
      throw new Error(
        `the server's best chain ends at height ${serverTip}, below ${this.opts.network}'s checkpoint at ${this.headers.baseHeight}: ` +
          'it is still syncing or serves another network; nothing it says is used',
      );
    }
    let back = 0;
    for (let guard = 0; guard < 10_000 && !this.stopped; guard++) {
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
        this.lie('bad-header', err.message);
        return;
      }
      if (result.kind === 'extended') {
        this.headersChangedFrom(before + 1);
        await this.saveHeaders();
      }
      if (result.kind === 'reorg') {
        // The stored suffix is replaced in the rollback's transaction: headers and records move together.
        this.headersChangedFrom(result.forkHeight + 1);
        await this.rollback(result.forkHeight, 'the server showed a branch with more work');
      }
      if (result.kind === 'less-work') {
        this.opts.log.info({ chain: this.opts.store.chain, forkHeight: result.forkHeight }, 'server shows a branch with less work than ours; keeping ours');
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
    const { store } = this.opts;
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
        this.noteTip(tip.height);
        return;
      }
    }
    await store.transaction(async (trx) => {
      const now = this.opts.clock();
      await store.setTip(trx, { hash: tip.hash, height: tip.height, prevHash: tip.prevHash, time: tip.time }, now);
      await this.emit(trx, 'tip', new Set(), tip.height, now);
    });
    this.noteTip(tip.height);
  }

  private async rollback(forkHeight: number, why: string): Promise<void> {
    const { store } = this.opts;
    const fork = this.headers.at(forkHeight);
    this.opts.log.warn({ chain: store.chain, forkHeight, why }, 'chain reorganisation: rolling back to the fork point');
    const savedFrom = await store.transaction(async (trx) => {
      const now = this.opts.clock();
      const touched = await store.rollbackAbove(trx, forkHeight);
      const written = await this.writeHeaders(trx);
      if (fork) await store.setTip(trx, { hash: fork.hash, height: fork.height, prevHash: fork.prevHash, time: fork.time }, now);
      await this.emit(trx, 'reorg', touched, forkHeight, now);
      return written;
    });
    this.headersSaved(savedFrom);
    // Every script's history is asked afresh: what was above the fork must be proven again.
    this.statuses.clear();
    this.noteTip(forkHeight);
  }

  // ---- scripts ----

  private async syncScripts(only?: Set<bigint>): Promise<void> {
    const { watched, store, backend } = this.opts;
    const tip = this.headers.tip();
    if (!tip) return;
    if (only) {
      await this.askScripts([...only].filter((id) => watched.scriptsById.has(id)));
      return;
    }
    const push = this.opts.push;
    const warmEvery = this.opts.warmEvery ?? 10;
    const tiers = await addressTiers(this.opts.db, store.chain, this.opts.clock(), tip.height);
    const due: bigint[] = [];
    const cold: bigint[] = [];
    const warmish: bigint[] = [];
    let hot = 0;
    let warm = 0;
    for (const id of watched.scriptsById.keys()) {
      const tier: Tier = tiers.get(id) ?? 'hot';
      if (tier === 'hot') hot++;
      if (tier === 'warm') warm++;
      // A hot address the websocket tracks is polled like a warm one: pushes bring its news, polls are the net.
      const covered = tier === 'hot' && push !== undefined && push.isOpen && push.covers(this.addressOf(id) ?? '');
      if (tier === 'hot' && !covered) due.push(id);
      else if (tier === 'warm' || covered) warmish.push(id);
      else cold.push(id);
    }
    // Warm addresses a tenth per poll, in a rolling slice: each is asked every `warmEvery` polls, and no poll
    // carries all of them (at 5 requests/s a round of 200 would hold the hot addresses back for 40 s).
    const warmPerPoll = Math.ceil(warmish.length / warmEvery);
    if (this.warmCursor >= warmish.length) this.warmCursor = 0;
    due.push(...warmish.slice(this.warmCursor, this.warmCursor + warmPerPoll));
    this.warmCursor += warmPerPoll;
    const perPoll = this.opts.coldPerPoll ?? 1;
    if (this.coldCursor >= cold.length) this.coldCursor = 0;
    due.push(...cold.slice(this.coldCursor, this.coldCursor + perPoll));
    this.coldCursor += perPoll;
    this.sweep = { hot, warm, cold: cold.length, swept: Math.min(this.coldCursor, cold.length) };
    await this.askScripts(due);
  }

  /** Asks the server about these scripts, records what verifies, and withdraws what vanished from them. */
  private async askScripts(due: bigint[]): Promise<void> {
    const { watched, backend } = this.opts;
    const listed = new Set<string>();
    const checked = new Set<bigint>();
    for (let next = 0; ; ) {
      if (this.stopped) return;
      // Addresses a push named jump the queue of a long scheduled poll: their news is seconds old, the
      // schedule's is not (a warm round at 5 requests/s can take a minute).
      let id: bigint;
      let fromPush = false;
      const pushed = this.pushed.values().next();
      if (!pushed.done) {
        id = pushed.value;
        fromPush = true;
        this.pushed.delete(id);
        if (!watched.scriptsById.has(id)) continue;
      } else if (next < due.length) id = due[next++]!;
      else break;
      const script = watched.scriptsById.get(id)!;
      const known = this.statuses.has(id) ? this.statuses.get(id) : undefined;
      const answer = await backend.history(script, known);
      this.lastServerAnswerAt = this.opts.clock();
      let entries: HistoryEntry[];
      if (answer === 'unchanged') entries = this.histories.get(id) ?? [];
      else {
        entries = answer.entries;
        let complete = true;
        for (const e of entries) complete = (await this.process(e)) && complete;
        // Only a history fully processed may be skipped next time its status is unchanged.
        if (complete && backend.kind === 'electrum') this.statuses.set(id, answer.status);
        else this.statuses.delete(id);
        // A pushed confirmation can name a block our headers do not hold yet: one more look after this poll.
        if (fromPush && !complete && !this.retriedPushed.has(id)) this.retryPushed.add(id);
        this.histories.set(id, entries);
      }
      for (const e of entries) listed.add(e.txid);
      checked.add(id);
    }
    await this.withdrawVanished(listed, checked);
  }

  /** Records one history entry once it verifies; false when it could not be settled this time. */
  private async process(entry: HistoryEntry): Promise<boolean> {
    const { store } = this.opts;
    const existing = await store.db.kysely
      .selectFrom('chain_txs')
      .select(['state', 'block_hash'])
      .where('chain', '=', store.chain)
      .where('txid', '=', entry.txid)
      .executeTakeFirst();
    if (entry.height > 0) {
      const header = this.headers.at(entry.height);
      if (!header) return false; // above our verified tip: next poll
      if (existing?.state === 'block' && existing.block_hash === header.hash) return true;
      const tx = await this.fetchTx(entry.txid);
      if (!tx) return false;
      const proof = await this.opts.backend.merkleProof(entry.txid, entry.height);
      const root = merkleRootFromBranch(tx.parsed.txid, proof.branch, proof.pos);
      // 64-byte transactions can pose as inner Merkle nodes; no real payment is that small.
      if (proof.height !== entry.height || root !== header.merkleRoot || tx.raw.length === 64) {
        this.lie('bad-merkle-proof', `${entry.txid} claimed in block ${entry.height} (${header.hash}) without a valid proof`);
        return false;
      }
      await this.record(tx.parsed, { block: { hash: header.hash, height: header.height, time: header.time } }, 'block');
      return true;
    }
    // Unconfirmed: shown as such and never as more. A transaction we hold as mined stays mined while its
    // block is in our chain; one withdrawn earlier comes back.
    if (existing && existing.state !== 'withdrawn') return true;
    const tx = await this.fetchTx(entry.txid);
    if (!tx) return false;
    await this.record(tx.parsed, { mempool: true }, 'mempool');
    return true;
  }

  /** The transaction's raw bytes; its id is computed here, never taken from the server. */
  private async fetchTx(txid: string): Promise<{ parsed: RawTx; raw: Uint8Array } | null> {
    const raw = await this.opts.backend.rawTransaction(txid);
    if (!raw) {
      this.lie('missing-transaction', `${txid} is in a history but the server does not produce it`);
      return null;
    }
    let parsed: RawTx;
    try {
      parsed = parseTransaction(raw);
    } catch (err) {
      this.lie('txid-mismatch', `${txid}: the bytes sent are not a transaction (${(err as Error).message})`);
      return null;
    }
    if (parsed.txid !== txid) {
      this.lie('txid-mismatch', `asked for ${txid}, the bytes sent hash to ${parsed.txid}`);
      return null;
    }
    return { parsed, raw };
  }

  private async record(tx: RawTx, where: TxPlace, cause: ChainChangeCause): Promise<void> {
    const { store, watched } = this.opts;
    const added: Array<[string, bigint]> = [];
    try {
      await store.transaction(async (trx) => {
        const now = this.opts.clock();
        const touched = new Set<bigint>();
        if (await recordMatchedTx(store, watched, trx, tx, where, now, touched, added)) {
          await this.emit(trx, cause, touched, this.headers.tip()?.height ?? 0, now);
        }
      });
    } catch (err) {
      for (const [key] of added) watched.outpoints.delete(key);
      throw err;
    }
  }

  /**
   * A transaction we hold as waiting that no checked script lists any more left the server's mempool
   * unmined (replaced, evicted, or reorganised out). Every address with a waiting transaction is hot,
   * so each such transaction's scripts were all asked this poll.
   */
  private async withdrawVanished(listed: Set<string>, checked: Set<bigint>): Promise<void> {
    const { store } = this.opts;
    const waiting = await store.mempoolTxs();
    const gone: bigint[] = [];
    for (const [txid, rowId] of waiting) {
      if (listed.has(txid)) continue;
      const addresses = await this.addressesOfTx(rowId);
      if (addresses.length > 0 && addresses.every((a) => checked.has(a))) gone.push(rowId);
    }
    if (gone.length === 0) return;
    await store.transaction(async (trx) => {
      const now = this.opts.clock();
      const touched = await store.withdraw(trx, gone, 'left the mempool unmined (replaced, evicted or reorganised out)', now);
      await this.emit(trx, 'withdrawn', touched, this.headers.tip()?.height ?? 0, now);
    });
    this.opts.log.info({ chain: store.chain, count: gone.length }, 'transactions withdrawn: the server no longer lists them');
  }

  private async addressesOfTx(rowId: bigint): Promise<bigint[]> {
    const db = this.opts.store.db.kysely;
    const credits = await db.selectFrom('chain_outputs').select('address_id').where('tx_id', '=', rowId).execute();
    const debits = await db
      .selectFrom('chain_spends')
      .innerJoin('chain_outputs', 'chain_outputs.id', 'chain_spends.output_id')
      .select('chain_outputs.address_id')
      .where('chain_spends.tx_id', '=', rowId)
      .execute();
    return [...credits, ...debits].map((r) => r.address_id);
  }

  private async emit(trx: Parameters<ChainChangeListener>[0], cause: ChainChangeCause, addressIds: Set<bigint>, tipHeight: number, now: number): Promise<void> {
    const change: ChainChange = { chain: this.opts.store.chain, cause, addressIds, tipHeight, now };
    for (const listener of this.listeners) await listener(trx, change);
    if (addressIds.size > 0) this.touchedThisPoll = true;
  }

  private noteTip(height: number): void {
    const current = this.lastTipHeight;
    if (current !== height) this.lastTipChangeAt = this.opts.clock();
    this.lastTipHeight = height;
  }
  private lastTipHeight: number | null = null;
}

