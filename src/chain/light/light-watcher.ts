import type { Logger } from 'pino';
import type { Network } from '../../bitcoin/networks.ts';
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import type { ChainStore } from '../chain-store.ts';
import type { WatchedSet } from '../watched-set.ts';
import type { ChainChangeListener } from '../chain-events.ts';
import type { ChainFollower, FollowerHealth } from '../chain-source.ts';
import { ChangeFeed, TipMark } from '../change-feed.ts';
import { PeriodicTask } from '../../core/periodic-task.ts';
import type { HeaderChain } from './header-chain.ts';
import { BlockScan } from './block-scan.ts';
import { HeaderSync } from './header-sync.ts';
import { HistoryVerifier } from './history-verifier.ts';
import type { LightBackend } from './light-backend.ts';
import type { MempoolSocket } from './mempool-socket.ts';
import { PushedAddresses } from './pushed-addresses.ts';
import { ScriptPoll } from './script-poll.ts';
import { ServerLies } from './server-lies.ts';
import { parseTransaction } from '../../bitcoin/raw-tx.ts';

/** How long the addresses a broadcast touches are asked about, at most (one answer records the transaction). */
const BROADCAST_WATCH_MS = 10 * 60_000;

export type { Lie } from './server-lies.ts';

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
  /** With blocks: how often a timer's poll asks an address expecting money (default 15 s; script-poll.ts). */
  hotEveryMs?: number;
}

/**
 * Follows one chain through a light server (DESIGN.md section 10): keeps its own verified header chain
 * (header-sync.ts); where the server serves whole blocks (Esplora), scans each new block against the whole
 * watched set (block-scan.ts) and asks per script only about addresses expecting money; otherwise asks per
 * watched script (hot every poll, warm less often, cold in a sweep: script-poll.ts),
 * and records a transaction as mined only with a Merkle proof of the txid it computed into a header of that
 * chain (history-verifier.ts). The records and change events are the ones the node watcher makes (change-feed.ts),
 * so everything above is unchanged. This file is the loop: when to poll, what one poll does, and /health.
 */
export class LightWatcher implements ChainFollower {
  readonly headers: HeaderChain;
  /** Committed-listeners hear of a poll's changes at its end: by then every change of the poll has committed. */
  private readonly feed: ChangeFeed;
  private readonly tipMark: TipMark;
  private readonly lies: ServerLies;
  private readonly headerSync: HeaderSync;
  private readonly scripts: ScriptPoll;
  private readonly blocks: BlockScan;
  private readonly pushed: PushedAddresses;
  private readonly task: PeriodicTask;
  private running: Promise<void> | null = null;
  /** Pushes poll only while the timer runs (start() to stop()). */
  private started = false;
  private lastPollAt: number | null = null;
  private polls = 0;
  private lastServerAnswerAt: number | null = null;
  private lastError: string | null = null;
  private readonly startedAt: number;
  private pushPending = false;
  /** With blocks: wakes the poll at the moment the next address expecting money is due, not at the next tick. */
  private dueTimer: NodeJS.Timeout | null = null;
  private syncedHeight: number | null = null;
  private readonly trackTask: PeriodicTask | null = null;

  constructor(private readonly opts: LightWatcherOptions) {
    const { backend, store, watched, db, clock, log, network, push } = opts;
    this.startedAt = clock();
    this.feed = new ChangeFeed(store, watched, clock, 'end-of-poll');
    this.tipMark = new TipMark(clock);
    this.lies = new ServerLies(clock, log, store.chain, backend);
    const stopped = () => this.stopped;
    const answered = () => {
      this.lastServerAnswerAt = clock();
    };
    this.headerSync = new HeaderSync({
      backend,
      store,
      network,
      log,
      feed: this.feed,
      tip: this.tipMark,
      lies: this.lies,
      stopped,
      answered,
      rolledBack: () => {
        this.scripts.forgetStatuses();
        backend.forgetHistories?.();
      },
      scansBlocks: () => this.blocks.enabled,
    });
    this.headers = this.headerSync.headers;
    this.blocks = new BlockScan({ backend, store, feed: this.feed, headers: this.headers, lies: this.lies, log, tip: this.tipMark, stopped, answered });
    backend.observe?.({
      hashAt: (height) => this.headers.at(height)?.hash,
      tipHeight: () => this.headers.tip()?.height ?? null,
      isMined: async (txid) => (await store.txState(txid))?.state === 'block',
    });
    this.pushed = new PushedAddresses({
      watched,
      store,
      db,
      clock,
      network,
      headers: this.headers,
      push,
      canPoll: () => this.started && !this.stopped,
      pollPushed: () => void this.pollOnce('pushed'),
      blocks: () => this.blocks.enabled,
    });
    const verifier = new HistoryVerifier({ backend, store, feed: this.feed, headers: this.headers, lies: this.lies });
    this.scripts = new ScriptPoll({
      backend,
      store,
      watched,
      db,
      clock,
      log,
      feed: this.feed,
      headers: this.headers,
      verifier,
      pushed: this.pushed,
      push,
      warmEvery: opts.warmEvery,
      coldPerPoll: opts.coldPerPoll,
      blocks: () => this.blocks.enabled,
      hotEveryMs: opts.hotEveryMs,
      stopped,
      answered,
    });
    // pollOnce never throws (errors go to health), so onError has nothing to add.
    this.task = new PeriodicTask(() => this.pollOnce('scheduled'), { everyMs: opts.pollMs, onError: () => {} });
    if (push) {
      this.trackTask = new PeriodicTask(() => this.pushed.refreshTracking(this.stopped), { everyMs: opts.pushTrackMs ?? 5_000, onError: () => {} });
      // A block: the tip moved (a pushed poll with no address brings the headers, so confirmations count).
      push.onBlock(() => {
        backend.refreshTip?.();
        this.wakeFor([]);
      });
      // Never the pushed content: only which addresses to ask the API about, through the verified path.
      push.onAddresses((addresses) => this.wakeFor(addresses));
      // After a (re)connect, whatever happened while no push could come is asked for.
      push.onTracked((addresses) => this.wakeFor(addresses));
    }
    // A push (new tip, a status changed, a reconnect) polls at once instead of waiting for the timer.
    backend.onPush(() => {
      if (!this.started || this.stopped || this.pushPending) return;
      this.pushPending = true;
      setTimeout(() => {
        this.pushPending = false;
        if (this.started && !this.stopped) void this.pollOnce();
      }, 50).unref();
    });
  }

  onChange(listener: ChainChangeListener): void {
    this.feed.onChange(listener);
  }

  /** Registers a listener called after a poll whose committed changes touched an address (wakes the outbox). */
  onCommitted(listener: () => void): void {
    this.feed.onCommitted(listener);
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
    if (this.headerSync.loaded && !this.running) this.headerSync.forget();
    this.started = true;
    this.task.start();
    this.trackTask?.start();
    this.opts.push?.start();
  }

  async stop(): Promise<void> {
    this.started = false;
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = null;
    await this.opts.push?.close();
    await this.trackTask?.stop();
    await this.task.stop();
    await this.running;
  }

  /**
   * A transaction we broadcast: the watched addresses it pays and those whose outputs it spends are asked about
   * for the next ten minutes (script-poll.ts), so our own refund or withdrawal shows before it is mined. A fault
   * here is logged and never fails the broadcast, which has happened.
   */
  async noteBroadcast(raw: Uint8Array): Promise<void> {
    try {
      const tx = parseTransaction(raw);
      const { watched, db } = this.opts;
      const ids = new Set<bigint>();
      for (const out of tx.outputs) {
        const hit = watched.scripts.get(out.script);
        if (hit) ids.add(hit.addressId);
      }
      const spent = tx.inputs.map((i) => watched.outpoints.get(`${i.prevTxid}:${i.vout}`)).filter((id): id is bigint => id !== undefined);
      if (spent.length > 0) {
        const rows = await db.kysely.selectFrom('chain_outputs').select('address_id').where('id', 'in', spent).execute();
        for (const r of rows) ids.add(r.address_id);
      }
      this.scripts.expectBroadcast(ids, this.opts.clock() + BROADCAST_WATCH_MS);
    } catch (err) {
      this.opts.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not note the addresses of a broadcast transaction');
    }
  }

  /**
   * The timer's 1 s tick alone would add up to a second to every scheduled question (a payer's wait); a due moment
   * already past is left to the tick (a server that failed to answer is not asked again in a tight loop).
   */
  private wakeWhenDue(): void {
    const due = this.scripts.nextDueAt();
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = null;
    if (due === null || !this.started || this.stopped) return;
    const wait = due - this.opts.clock();
    if (wait <= 0 || wait > (this.opts.hotEveryMs ?? 15_000)) return;
    this.dueTimer = setTimeout(() => {
      this.dueTimer = null;
      this.task.wake();
    }, wait);
    this.dueTimer.unref();
  }

  /** The addresses a push named are asked about now (a pushed poll); the rest wait for their schedule. */
  wakeFor(addresses: string[]): void {
    this.pushed.wakeFor(addresses);
  }

  /**
   * One poll now; `pushed`: a pushed poll, the headers, new blocks and just the addresses pushes named;
   * `scheduled`: the timer's poll, which asks an address expecting money only when it is due.
   */
  async pollOnce(scope?: 'pushed' | 'scheduled'): Promise<void> {
    while (this.running) await this.running;
    this.running = (async () => {
      const only = scope === 'pushed' ? this.pushed.takeAll() : undefined;
      try {
        // Addresses issued by other processes on the same PostgreSQL database (scale-out) join before we ask.
        await this.opts.watched.loadNew(this.opts.store.db);
        await this.headerSync.sync();
        await this.blocks.run();
        await this.scripts.run(only, scope === 'scheduled');
        if (this.blocks.enabled) this.wakeWhenDue();
        // Caught up to a height only once every due script was asked at it (what the node watcher's tip means);
        // with blocks, once every block up to it was scanned.
        if (this.blocks.enabled) this.syncedHeight = this.blocks.height;
        else if (!only) this.syncedHeight = this.headers.tip()?.height ?? null;
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
        this.pushed.pollEnded();
        this.feed.pollEnded();
      }
    })();
    return this.running;
  }

  health(): FollowerHealth {
    const now = this.opts.clock();
    const silence = this.opts.nodeSilenceMs ?? Math.max(120_000, this.opts.pollMs * 30);
    const stalled = now - (this.lastServerAnswerAt ?? this.startedAt) > silence;
    const tip = this.headers.tip();
    const recentLie = this.lies.recentAt(now);
    const budget = this.opts.backend.budget();
    const { serverTip, belowCheckpoint } = this.headerSync;
    const sweep = this.scripts.sweep;
    return {
      ok: !stalled && !recentLie && !belowCheckpoint,
      network: this.opts.network,
      source: this.opts.backend.kind,
      sourceUrl: this.opts.backend.url,
      tipHeight: this.syncedHeight,
      tipHash: this.syncedHeight === null ? null : (this.headers.at(this.syncedHeight)?.hash ?? null),
      headerHeight: tip?.height ?? null,
      serverTipHeight: serverTip,
      lag: tip && serverTip !== null ? Math.max(0, serverTip - tip.height) : null,
      // Verified: our header chain reaches the server's tip and the server told no lie in the last hour.
      verified: tip !== undefined && serverTip !== null && tip.height >= serverTip && !recentLie,
      lies: this.lies.count,
      recentLies: this.lies.latest(),
      watchedScripts: this.opts.watched.size,
      confirmationsFrom: !this.blocks.enabled ? 'address-histories' : this.opts.backend.blockRoute?.() === 'pages' ? 'block-pages' : 'blocks',
      tiers: { hot: sweep.hot, warm: sweep.warm, cold: sweep.cold },
      coldSweep: { done: sweep.swept, of: sweep.cold },
      requests: budget.requests,
      requestsLastMinute: budget.requestsLastMinute,
      refusals: budget.refusals,
      connected: this.opts.backend.connected(),
      ...(this.opts.backend.servers ? { servers: this.opts.backend.servers() } : {}),
      // One Electrum server: its subscriptions beside the rest (several show theirs per server).
      ...(this.opts.backend.subscriptions ? { subscriptions: this.opts.backend.subscriptions() } : {}),
      ...(this.opts.push ? { push: { url: this.opts.push.url, ...this.opts.push.stats() } } : {}),
      lastPollAt: this.lastPollAt,
      polls: this.polls,
      lastTipChangeAt: this.tipMark.changedAt,
      stalled,
      error: this.lastError,
    };
  }
}
