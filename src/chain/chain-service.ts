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
    this.chains.set(id, { id, network, rpc, store, watched, watcher });
  }

  /** Registers a listener on every chain, present and future, called inside each change's transaction. */
  onChange(listener: ChainChangeListener): void {
    this.listeners.push(listener);
    for (const c of this.chains.values()) c.watcher.onChange(listener);
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

  /** Starts every watcher. */
  start(): void {
    for (const c of this.chains.values()) c.watcher.start();
  }

  /** Stops every watcher, waiting for polls in progress. */
  async stop(): Promise<void> {
    await Promise.all([...this.chains.values()].map((c) => c.watcher.stop()));
  }

  /** Polls every chain once now (tests and the dev CLI use it to avoid waiting for the timer). */
  async pollNow(): Promise<void> {
    for (const c of this.chains.values()) await c.watcher.pollOnce();
  }
}
