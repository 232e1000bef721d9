import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { Network } from '../bitcoin/networks.ts';
import { ServiceUnavailableError } from '../core/errors.ts';
import type { ChainEndpoint, ChainEndpoints } from '../config/chain-endpoint.ts';
import { ChainStore } from './chain-store.ts';
import type { ChainFollower, ChainSource } from './chain-source.ts';
import { WatchedSet, type WatchedAddress } from './watched-set.ts';
import type { ChainId } from './chain-id.ts';
import type { ChainChangeListener } from './chain-events.ts';
import type { PushSubscription } from './bcoin-push.ts';
import { openChainSource } from './sources.ts';
import type { OpenedSource } from './source-kind.ts';

export type { ChainEndpoint, ChainEndpoints };

/** One followed chain: its source, what it watches and the watcher. */
export interface FollowedChain {
  id: ChainId;
  network: Network;
  source: ChainSource;
  store: ChainStore;
  watched: WatchedSet;
  watcher: ChainFollower;
}

/** The chains this process follows, and the one way other code asks for a mode's chain. */
export class ChainService {
  private readonly chains = new Map<ChainId, FollowedChain>();
  private readonly listeners: ChainChangeListener[] = [];
  private readonly committedListeners: Array<() => void> = [];
  private readonly pushes: PushSubscription[] = [];
  private pushWanted = true;
  /** The only chain is the built-in regtest chain of development mode (a live source would end development mode). */
  private developmentMode = false;
  /** Each chain whose source makes announcements of its own: how to subscribe to them. */
  private readonly subscribers = new Map<ChainId, NonNullable<OpenedSource['subscribe']>>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly pollMs: number,
    private readonly fallbackFeeRate: bigint,
  ) {}

  /** Sets up the watchers for the configured nodes and loads their watched sets. */
  async configure(endpoints: ChainEndpoints): Promise<void> {
    this.developmentMode = !endpoints.live && endpoints.test !== undefined && 'devChain' in endpoints.test && endpoints.test.devChain === true;
    if (endpoints.live) await this.add('live', 'mainnet', endpoints.live);
    if (endpoints.test) await this.add('test', endpoints.test.network, endpoints.test);
  }

  private async add(id: ChainId, network: Network, endpoint: ChainEndpoint): Promise<void> {
    const store = new ChainStore(this.db, id);
    const watched = new WatchedSet(id);
    await watched.load(this.db);
    const { source, watcher, subscribe } = openChainSource(endpoint, {
      id,
      network,
      db: this.db,
      store,
      watched,
      clock: this.clock,
      log: this.log,
      pollMs: this.pollMs,
      fallbackFeeRate: this.fallbackFeeRate,
    });
    if (subscribe) this.subscribers.set(id, subscribe);
    for (const l of this.listeners) watcher.onChange(l);
    for (const l of this.committedListeners) watcher.onCommitted(l);
    this.chains.set(id, { id, network, source, store, watched, watcher });
  }

  /** Registers a listener on every chain, present and future, called inside each change's transaction. */
  onChange(listener: ChainChangeListener): void {
    this.listeners.push(listener);
    for (const c of this.chains.values()) c.watcher.onChange(listener);
  }

  /** Registers a listener called after any chain change that touched an address has committed. */
  onCommitted(listener: () => void): void {
    this.committedListeners.push(listener);
    for (const c of this.chains.values()) c.watcher.onCommitted(listener);
  }

  /** Whether `start` subscribes to the nodes' own events (on by default; SATGATE_NODE_PUSH=0 turns it off). */
  usePush(on: boolean): void {
    this.pushWanted = on;
  }

  /** The followed chain of a wallet mode, or a clear error when no node is configured for it. */
  forMode(mode: ChainId): FollowedChain {
    const chain = this.chains.get(mode);
    if (!chain) {
      throw new ServiceUnavailableError(
        mode === 'live' && this.developmentMode
          ? 'live mode is not available: this server runs in development mode, which follows only its built-in regtest ' +
            'chain, so register a test key (vpub, tpub or upub) for a test_ wallet. To take live payments, give live mode a ' +
            'chain source and restart: SATGATE_LIVE_RPC_URL (your Bitcoin Core node), SATGATE_LIVE_ELECTRUM_URL or ' +
            'SATGATE_LIVE_ESPLORA_URL (e.g. https://mempool.space/api); with a chain source set, development mode ends'
          : mode === 'live'
          ? 'live mode is not available: no mainnet chain source is configured (set SATGATE_LIVE_RPC_URL, SATGATE_LIVE_ELECTRUM_URL or SATGATE_LIVE_ESPLORA_URL)'
          : 'sandbox mode is not available: no test network chain source is configured (set SATGATE_TEST_RPC_URL, SATGATE_TEST_ELECTRUM_URL or SATGATE_TEST_ESPLORA_URL)',
      );
    }
    return chain;
  }

  /** The chain of a mode if followed. */
  get(mode: ChainId): FollowedChain | undefined {
    return this.chains.get(mode);
  }

  /** Every followed chain. */
  all(): FollowedChain[] {
    return [...this.chains.values()];
  }

  /** Starts watching a newly issued address's script on its chain (no-op when the chain is not followed). */
  watch(mode: ChainId, script: Uint8Array, address: WatchedAddress): void {
    this.chains.get(mode)?.watched.addScript(script, address);
  }

  /** Starts every watcher, and subscribes to each node's events where it offers them. */
  start(): void {
    for (const c of this.chains.values()) {
      c.watcher.start();
      if (this.pushWanted) void this.subscribe(c);
    }
  }

  /** Subscribes to the source's own announcements where it makes any (a node's ZMQ or bcoin websocket). */
  private async subscribe(c: FollowedChain): Promise<void> {
    // Light sources make none here: Electrum subscriptions and mempool.space's websocket are the watcher's own.
    await this.subscribers.get(c.id)?.((p) => this.pushes.push(p));
  }

  /** Stops every watcher, waiting for polls in progress. */
  async stop(): Promise<void> {
    for (const p of this.pushes.splice(0)) p.close();
    await Promise.all([...this.chains.values()].map((c) => c.watcher.stop()));
  }

  /** Stops every watcher and closes the sources' connections (light servers keep sockets open). */
  async close(): Promise<void> {
    await this.stop();
    await Promise.all([...this.chains.values()].map((c) => c.source.close()));
  }

  /** Polls every chain once now (tests and the dev CLI use it to avoid waiting for the timer). */
  async pollNow(): Promise<void> {
    for (const c of this.chains.values()) await c.watcher.pollOnce();
  }
}
