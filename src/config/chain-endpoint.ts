// Where each chain is read from, as the configuration names it: one endpoint shape per chain source kind, told
// apart by the field holding its URL. chain/sources.ts builds each kind's source and watcher from its shape.
import type { Network } from '../bitcoin/networks.ts';

/** A Bitcoin node's JSON-RPC (SATGATE_*_RPC_URL). */
export interface RpcSourceEndpoint {
  rpcUrl: string;
  cookieFile?: string;
  /** Development mode's own regtest node (shown as `devchain`). */
  devChain?: boolean;
  /** Bitcoin Core's ZMQ publisher of `rawtx` and `hashblock` (SATGATE_*_ZMQ_URL). */
  zmqUrl?: string | null;
}

/** A light server's request budget (SATGATE_LIGHT_MAX_RPS): a token bucket with backoff after refusals. */
export interface LightBudget {
  /** Sustained requests per second (default 5). */
  ratePerSecond?: number;
  /** Burst size (default 20). */
  burst?: number;
  /** First backoff after a refusal, doubled per refusal in a row up to maxBackoffMs (default 1000). */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/** Light-server request budget and proxy, shared by the Electrum and Esplora endpoints. */
export interface LightOptions {
  /** `socks5://host:port` (Tor; SATGATE_PROXY). */
  proxy?: string | null;
  budget?: LightBudget;
  /** Esplora: tip asked no more often than this (default 10 s, its cache; SATGATE_ESPLORA_TIP_CACHE_MS). */
  tipCacheMs?: number;
  /** Warm addresses every N polls, cold ones per poll. */
  warmEvery?: number;
  /** Esplora with whole blocks: an address expecting money is asked by the timer once per this (default 15 s). */
  hotEveryMs?: number;
  coldPerPoll?: number;
  /**
   * The other servers of a comma-separated list, of the same kind, after the first (which the kind's URL
   * field holds); absent for one server. Several servers are followed as one (light/server-pool.ts).
   */
  extraServers?: string[];
  /** Histories of hot addresses are cross-checked by this many servers in turn (default 2; SATGATE_LIGHT_QUORUM). */
  quorum?: number;
}

/** An Electrum server (SATGATE_*_ELECTRUM_URL). */
export interface ElectrumSourceEndpoint extends LightOptions {
  electrumUrl: string;
  /**
   * Script subscriptions per server at most (SATGATE_LIGHT_MAX_SUBSCRIPTIONS, default 20,000, below Fulcrum's 50,000);
   * beyond it hot addresses keep theirs and the rest are polled. Lowered to what a server accepts when it refuses more.
   */
  maxSubscriptions?: number;
}

/** An Esplora API (SATGATE_*_ESPLORA_URL), with mempool.space's websocket beside it when its own URL is set. */
export interface EsploraSourceEndpoint extends LightOptions {
  esploraUrl: string;
  /** `wss://mempool.space/api/v1/ws` (SATGATE_*_ESPLORA_WS_URL); absent: polling only. */
  esploraWsUrl?: string | null;
  /** Addresses tracked at most (lowered by the server's own answer; SATGATE_ESPLORA_WS_MAX_ADDRESSES). */
  wsMaxAddresses?: number;
  /** How often the tracked list follows the hot addresses (local, no request). */
  pushTrackMs?: number;
  /** First reconnect delay of the websocket. */
  wsBackoffMs?: number;
  wsMaxBackoffMs?: number;
}

/** Each chain source kind's endpoint, by the kind's name (chain/sources.ts has one entry per name). */
export interface ChainEndpointsByKind {
  rpc: RpcSourceEndpoint;
  electrum: ElectrumSourceEndpoint;
  esplora: EsploraSourceEndpoint;
}

export type ChainSourceKind = keyof ChainEndpointsByKind;

/** Where one chain is read from: exactly one source. */
export type ChainEndpoint = ChainEndpointsByKind[ChainSourceKind];

/** Where each chain is read from; a chain without a source is not followed. */
export interface ChainEndpoints {
  live?: ChainEndpoint;
  test?: ChainEndpoint & { network: Network };
}
