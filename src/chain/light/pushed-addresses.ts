// The addresses pushes name (mempool.space's websocket, a tracked address's news): queued to be asked about in
// a pushed poll, ahead of the schedule, through the same verified path as every other question.
import type { Network } from '../../bitcoin/networks.ts';
import { addressFromScript } from '../../bitcoin/address.ts';
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import type { ChainStore } from '../chain-store.ts';
import type { WatchedSet } from '../watched-set.ts';
import { addressTiers, expectingAddresses } from './address-tiers.ts';
import type { HeaderChain } from './header-chain.ts';
import type { MempoolSocket } from './mempool-socket.ts';

export interface PushedAddressesDeps {
  watched: WatchedSet;
  store: ChainStore;
  db: Db;
  clock: Clock;
  network: Network;
  headers: HeaderChain;
  push?: MempoolSocket;
  /** Whether a poll may run now (the watcher is started and not stopping). */
  canPoll(): boolean;
  /** Runs a pushed poll: the headers, and the addresses queued here. */
  pollPushed(): void;
  /** Confirmations come from blocks: the addresses tracked are those expecting money (address-tiers.ts). */
  blocks?(): boolean;
}

export class PushedAddresses {
  /** Address ids a push named, waiting for a pushed poll. */
  private readonly queued = new Set<bigint>();
  private pollPending = false;
  /** Pushed addresses whose history could not be settled yet (a block above our headers): asked once more. */
  private readonly retry = new Set<bigint>();
  private readonly retried = new Set<bigint>();
  private readonly addressCache = new Map<bigint, string | null>();
  private readonly idByAddress = new Map<string, bigint>();

  constructor(private readonly deps: PushedAddressesDeps) {}

  /** The addresses a push named are asked about now (a pushed poll); the rest wait for their schedule. */
  wakeFor(addresses: string[]): void {
    for (const a of addresses) {
      const id = this.idByAddress.get(a);
      if (id !== undefined) {
        this.queued.add(id);
        this.retried.delete(id);
      }
    }
    this.schedulePoll();
  }

  /** Every queued address, taken off the queue (a pushed poll asks exactly these). */
  takeAll(): Set<bigint> {
    const all = new Set(this.queued);
    this.queued.clear();
    return all;
  }

  /** The next queued address, taken off the queue. */
  takeNext(): bigint | undefined {
    const next = this.queued.values().next();
    if (next.done) return undefined;
    this.queued.delete(next.value);
    return next.value;
  }

  /** A pushed address's history could not be settled: it is asked once more after this poll. */
  retryOnce(id: bigint): void {
    if (!this.retried.has(id)) this.retry.add(id);
  }

  /** After a poll: the addresses to ask once more are queued for a pushed poll. */
  pollEnded(): void {
    if (this.retry.size === 0) return;
    for (const id of this.retry) {
      this.queued.add(id);
      this.retried.add(id);
    }
    this.retry.clear();
    this.schedulePoll();
  }

  private schedulePoll(): void {
    if (!this.deps.canPoll() || this.pollPending) return;
    this.pollPending = true;
    setTimeout(() => {
      this.pollPending = false;
      // The addresses are taken when the poll runs: a scheduled poll under way asks them first meanwhile.
      if (this.deps.canPoll()) this.deps.pollPushed();
    }, 20).unref();
  }

  /** The address of a watched script, as pushes name it (null when it has none). */
  addressOf(id: bigint): string | null {
    let a = this.addressCache.get(id);
    if (a === undefined) {
      const script = this.deps.watched.scriptsById.get(id);
      a = script ? (addressFromScript(script, this.deps.network) ?? null) : null;
      this.addressCache.set(id, a);
      if (a !== null) this.idByAddress.set(a, id);
    }
    return a;
  }

  /** Tells the websocket which hot addresses to track, newest first (a database query, no server request). */
  async refreshTracking(stopped: boolean): Promise<void> {
    const { push, headers, watched, store, db, clock } = this.deps;
    const tip = headers.tip();
    if (!push || !tip || stopped) return;
    await watched.loadNew(store.db);
    const hot: bigint[] = [];
    if (this.deps.blocks?.()) {
      for (const id of await expectingAddresses(db, store.chain, clock())) if (watched.scriptsById.has(id)) hot.push(id);
    } else {
      const tiers = await addressTiers(db, store.chain, clock(), tip.height);
      for (const id of watched.scriptsById.keys()) if ((tiers.get(id) ?? 'hot') === 'hot') hot.push(id);
    }
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
}
