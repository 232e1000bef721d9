// What one chain source kind provides to the registry (chain/sources.ts): how to open its source and watcher.
import type { Logger } from 'pino';
import type { Network } from '../bitcoin/networks.ts';
import type { Clock } from '../core/clock.ts';
import type { Db } from '../db/database.ts';
import type { ChainEndpoint } from '../config/chain-endpoint.ts';
import type { ChainFollower, ChainSource } from './chain-source.ts';
import type { ChainStore } from './chain-store.ts';
import type { WatchedSet } from './watched-set.ts';
import type { ChainId } from './chain-id.ts';
import type { PushSubscription } from './bcoin-push.ts';

/** What every kind's source and watcher are built from besides its endpoint. */
export interface SourceDeps {
  id: ChainId;
  network: Network;
  db: Db;
  store: ChainStore;
  watched: WatchedSet;
  clock: Clock;
  log: Logger;
  pollMs: number;
  /** The fee rate a source without an estimate answers with. */
  fallbackFeeRate: bigint;
}

/** A chain's source and the watcher following it. */
export interface OpenedSource {
  source: ChainSource;
  watcher: ChainFollower;
  /**
   * Subscribes to the source's own announcements where it makes any (a node's ZMQ or websocket), handing each
   * subscription to `keep` (closed when the chains stop); the watcher's timer stays the safety net.
   */
  subscribe?(keep: (subscription: PushSubscription) => void): Promise<void>;
}

/** One chain source kind. */
export interface SourceKind<E extends ChainEndpoint> {
  /** The endpoint field holding this kind's URL: its presence tells this kind's endpoints from the others'. */
  readonly urlField: keyof E & string;
  open(endpoint: E, deps: SourceDeps): OpenedSource;
}
