import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { Network } from '../bitcoin/networks.ts';
import { ServiceUnavailableError } from '../core/errors.ts';
import { RpcClient } from './rpc-client.ts';
import { ChainStore } from './chain-store.ts';
import { ChainWatcher } from './chain-watcher.ts';
import { LightChainSource, RpcChainSource, type ChainFollower, type ChainSource } from './chain-source.ts';
import { LightWatcher } from './light/light-watcher.ts';
import { ElectrumBackend } from './light/electrum-backend.ts';
import { EsploraBackend } from './light/esplora-backend.ts';
import { MempoolSocket } from './light/mempool-socket.ts';
import { parseElectrumUrl } from './light/electrum-client.ts';
import { parseProxyUrl } from './light/socks-proxy.ts';
import type { BudgetOptions } from './light/request-budget.ts';
import type { LightBackend } from './light/light-backend.ts';
import { WatchedSet, type WatchedAddress } from './watched-set.ts';
import type { ChainId } from './chain-id.ts';
import type { ChainChangeListener } from './chain-events.ts';
import { subscribeBcoin, type PushSubscription } from './bcoin-push.ts';
import { subscribeZmq } from './zmq-subscriber.ts';

/** One followed chain: its source, what it watches and the watcher. */
export interface FollowedChain {
  id: ChainId;
  network: Network;
  source: ChainSource;
  store: ChainStore;
  watched: WatchedSet;
  watcher: ChainFollower;
}

/** Light-server request budget and proxy, shared by the Electrum and Esplora endpoints. */
interface LightOptions {
  /** `socks5://host:port` (Tor). */
  proxy?: string | null;
  budget?: BudgetOptions;
  /** Esplora: tip asked no more often than this (default 10 s, its cache). */
  tipCacheMs?: number;
  /** Warm addresses every N polls, cold ones per poll. */
  warmEvery?: number;
  coldPerPoll?: number;
}

/** Where one chain is read from: exactly one of a node's RPC, an Electrum server or an Esplora API. */
export type ChainEndpoint =
  | {
      rpcUrl: string;
      cookieFile?: string;
      /** Development mode's own regtest node (shown as `devchain`). */
      devChain?: boolean;
      /** Bitcoin Core's ZMQ publisher of `rawtx` and `hashblock`. */
      zmqUrl?: string | null;
    }
  | ({ electrumUrl: string } & LightOptions)
  | ({ esploraUrl: string } & EsploraPushOptions & LightOptions);

/** mempool.space's websocket beside an Esplora API (docs/decisions.md: enabled only by its own URL). */
interface EsploraPushOptions {
  /** `wss://mempool.space/api/v1/ws`; absent: polling only. */
  esploraWsUrl?: string | null;
  /** Addresses tracked at most (lowered by the server's own answer). */
  wsMaxAddresses?: number;
  /** How often the tracked list follows the hot addresses (local, no request). */
  pushTrackMs?: number;
  /** First reconnect delay of the websocket. */
  wsBackoffMs?: number;
  wsMaxBackoffMs?: number;
}

/** Where each chain is read from; a chain without a source is not followed. */
export interface ChainEndpoints {
  live?: ChainEndpoint;
  test?: ChainEndpoint & { network: Network };
}

/** The chains this process follows, and the one way other code asks for a mode's chain. */
export class ChainService {
  private readonly chains = new Map<ChainId, FollowedChain>();
  private readonly listeners: ChainChangeListener[] = [];
  private readonly committedListeners: Array<() => void> = [];
  private readonly pushes: PushSubscription[] = [];
  private pushWanted = true;
  /** Each node-RPC chain's client and URL with its credentials (the push subscription authenticates with them). */
  private readonly nodes = new Map<ChainId, { rpc: RpcClient; url: string; zmqUrl: string | null; watcher: ChainWatcher }>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly pollMs: number,
    private readonly fallbackFeeRate: bigint,
  ) {}

  /** Sets up the watchers for the configured nodes and loads their watched sets. */
  async configure(endpoints: ChainEndpoints): Promise<void> {
    if (endpoints.live) await this.add('live', 'mainnet', endpoints.live);
    if (endpoints.test) await this.add('test', endpoints.test.network, endpoints.test);
  }

  private async add(id: ChainId, network: Network, endpoint: ChainEndpoint): Promise<void> {
    const store = new ChainStore(this.db, id);
    const watched = new WatchedSet(id);
    await watched.load(this.db);
    const common = { store, watched, clock: this.clock, log: this.log, pollMs: this.pollMs, network };
    let source: ChainSource;
    let watcher: ChainFollower;
    if ('rpcUrl' in endpoint) {
      const rpc = new RpcClient({ url: endpoint.rpcUrl, cookieFile: endpoint.cookieFile, fallbackFeeRate: this.fallbackFeeRate, timeoutMs: 30_000 });
      source = new RpcChainSource(rpc);
      const nodeWatcher = new ChainWatcher({ rpc, ...common, sourceLabel: endpoint.devChain ? 'devchain' : 'rpc' });
      watcher = nodeWatcher;
      this.nodes.set(id, { rpc, url: endpoint.rpcUrl, zmqUrl: endpoint.zmqUrl ?? null, watcher: nodeWatcher });
    } else {
      let backend: LightBackend;
      let push: MempoolSocket | undefined;
      if ('electrumUrl' in endpoint) {
        backend = new ElectrumBackend({
          endpoint: parseElectrumUrl(endpoint.electrumUrl),
          proxy: endpoint.proxy ? parseProxyUrl(endpoint.proxy) : null,
          budget: endpoint.budget,
        });
      } else {
        if (endpoint.proxy) throw new Error('SATGATE_PROXY is supported for Electrum servers only (see docs/decisions.md)');
        backend = new EsploraBackend({ url: endpoint.esploraUrl, budget: endpoint.budget, tipCacheMs: endpoint.tipCacheMs });
        if (endpoint.esploraWsUrl) {
          push = new MempoolSocket({
            url: endpoint.esploraWsUrl,
            maxAddresses: endpoint.wsMaxAddresses ?? 100,
            log: this.log,
            backoffMs: endpoint.wsBackoffMs,
            maxBackoffMs: endpoint.wsMaxBackoffMs,
          });
        }
      }
      source = new LightChainSource(backend, this.fallbackFeeRate);
      watcher = new LightWatcher({
        backend,
        db: this.db,
        warmEvery: endpoint.warmEvery,
        coldPerPoll: endpoint.coldPerPoll,
        push,
        pushTrackMs: 'esploraUrl' in endpoint ? endpoint.pushTrackMs : undefined,
        ...common,
      });
    }
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
        mode === 'live'
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

  /**
   * Subscribes to the node's own announcements. With a ZMQ URL (Bitcoin Core's `-zmqpubrawtx` and
   * `-zmqpubhashblock`), through our ZMTP subscriber; otherwise, when the node is bcoin, through its websocket.
   * Either way a transaction's bytes go to the watcher (recorded at once when they pay a watched script) and
   * a block wakes it; the timer keeps polling as the safety net.
   */
  private async subscribe(c: FollowedChain): Promise<void> {
    const node = this.nodes.get(c.id);
    if (!node) return; // light sources: Electrum subscriptions and polling (see chain/light/)
    const on = { tx: (raw: Uint8Array) => void node.watcher.pushTx(raw), block: () => node.watcher.wake() };
    if (node.zmqUrl) {
      this.pushes.push(
        subscribeZmq({
          url: node.zmqUrl,
          topics: ['rawtx', 'hashblock'],
          onMessage: (m) => (m.topic === 'rawtx' ? on.tx(m.body) : on.block()),
          // Announcements sent while the connection was down are lost: look once.
          onReconnect: on.block,
          log: this.log,
        }),
      );
      return;
    }
    try {
      const info = await node.rpc.call<{ subversion?: string }>('getnetworkinfo');
      if (!/bcoin/i.test(info.subversion ?? '')) return;
      this.pushes.push(subscribeBcoin(node.url, on, this.log));
    } catch (err) {
      this.log.debug({ chain: c.id, err: err instanceof Error ? err.message : String(err) }, 'node events unavailable; polling only');
    }
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
