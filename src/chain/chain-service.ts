import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { Network } from '../bitcoin/networks.ts';
import { ServiceUnavailableError } from '../core/errors.ts';
import { RpcClient } from './rpc-client.ts';
import { ChainStore } from './chain-store.ts';
import { ChainWatcher } from './chain-watcher.ts';
import { WatchedSet, type WatchedAddress } from './watched-set.ts';
import type { ChainId } from './chain-id.ts';
import type { ChainChangeListener } from './chain-events.ts';
import { subscribeBcoin, type PushSubscription } from './bcoin-push.ts';

/** One followed chain: its node, what it watches and the watcher. */
export interface FollowedChain {
  id: ChainId;
  network: Network;
  rpc: RpcClient;
  store: ChainStore;
  watched: WatchedSet;
  watcher: ChainWatcher;
}

/** Where each chain's node is; a chain without a node is not followed. */
export interface ChainEndpoints {
  live?: { rpcUrl: string; cookieFile?: string };
  test?: { rpcUrl: string; cookieFile?: string; network: Network };
}

/** The chains this process follows, and the one way other code asks for a mode's chain. */
export class ChainService {
  private readonly chains = new Map<ChainId, FollowedChain>();
  private readonly listeners: ChainChangeListener[] = [];
  private readonly committedListeners: Array<() => void> = [];
  private readonly pushes: PushSubscription[] = [];
  private pushWanted = true;
  /** Each chain's node URL with its credentials (the push subscription authenticates with them). */
  private readonly nodeUrls = new Map<ChainId, string>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly pollMs: number,
    private readonly fallbackFeeRate: bigint,
  ) {}

  /** Sets up the watchers for the configured nodes and loads their watched sets. */
  async configure(endpoints: ChainEndpoints): Promise<void> {
    if (endpoints.live) await this.add('live', 'mainnet', endpoints.live.rpcUrl, endpoints.live.cookieFile);
    if (endpoints.test) await this.add('test', endpoints.test.network, endpoints.test.rpcUrl, endpoints.test.cookieFile);
  }

  private async add(id: ChainId, network: Network, rpcUrl: string, cookieFile?: string): Promise<void> {
    const rpc = new RpcClient({ url: rpcUrl, cookieFile, fallbackFeeRate: this.fallbackFeeRate, timeoutMs: 30_000 });
    const store = new ChainStore(this.db, id);
    const watched = new WatchedSet(id);
    await watched.load(this.db);
    const watcher = new ChainWatcher({ rpc, store, watched, clock: this.clock, log: this.log, pollMs: this.pollMs, network });
    for (const l of this.listeners) watcher.onChange(l);
    for (const l of this.committedListeners) watcher.onCommitted(l);
    this.chains.set(id, { id, network, rpc, store, watched, watcher });
    this.nodeUrls.set(id, rpcUrl);
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
        mode === 'live'
          ? 'live mode is not available: no mainnet node is configured (set SATGATE_LIVE_RPC_URL)'
          : 'sandbox mode is not available: no test network node is configured (set SATGATE_TEST_RPC_URL)',
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

  /**
   * bcoin announces transactions and blocks over its websocket: each one wakes the watcher. Bitcoin Core's
   * ZMQ is not used (no npm ZMQ library installs without a native build or binary download; see
   * docs/performance.md), so on Core the watcher polls only.
   */
  private async subscribe(c: FollowedChain): Promise<void> {
    try {
      const info = await c.rpc.call<{ subversion?: string }>('getnetworkinfo');
      if (!/bcoin/i.test(info.subversion ?? '')) return;
      this.pushes.push(subscribeBcoin(this.nodeUrls.get(c.id) ?? c.rpc.url, () => c.watcher.wake(), this.log));
    } catch (err) {
      this.log.debug({ chain: c.id, err: err instanceof Error ? err.message : String(err) }, 'node events unavailable; polling only');
    }
  }

  /** Stops every watcher, waiting for polls in progress. */
  async stop(): Promise<void> {
    for (const p of this.pushes.splice(0)) p.close();
    await Promise.all([...this.chains.values()].map((c) => c.watcher.stop()));
  }

  /** Polls every chain once now (tests and the dev CLI use it to avoid waiting for the timer). */
  async pollNow(): Promise<void> {
    for (const c of this.chains.values()) await c.watcher.pollOnce();
  }
}
