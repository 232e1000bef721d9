// What a light watcher asks its server each poll: every hot address, a rolling slice of the warm ones and a
// slow sweep of the cold ones (hot addresses a push covers count as warm), with pushed addresses first; the
// histories that verify are recorded, and a waiting transaction no asked script lists any more is withdrawn.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import type { ChainStore } from '../chain-store.ts';
import type { ChangeFeed } from '../change-feed.ts';
import type { WatchedSet } from '../watched-set.ts';
import { addressTiers, closingAddresses, expectingAddresses, type Tier } from './address-tiers.ts';
import type { HeaderChain } from './header-chain.ts';
import type { HistoryVerifier } from './history-verifier.ts';
import type { LightBackend } from './light-backend.ts';
import type { MempoolSocket } from './mempool-socket.ts';
import type { PushedAddresses } from './pushed-addresses.ts';
import type { HistoryEntry } from './script-hash.ts';

export interface ScriptPollDeps {
  backend: LightBackend;
  store: ChainStore;
  watched: WatchedSet;
  db: Db;
  clock: Clock;
  log: Logger;
  feed: ChangeFeed;
  headers: HeaderChain;
  verifier: HistoryVerifier;
  pushed: PushedAddresses;
  push?: MempoolSocket;
  /** Warm addresses are asked about every this many polls (default 10). */
  warmEvery?: number;
  /** Cold addresses asked about per poll, in a rolling sweep (default 1). */
  coldPerPoll?: number;
  /** Several servers: an unpaid order's address is asked of every healthy server when its window ends within this (default 2 min). */
  closingMs?: number;
  /** Confirmations come from whole blocks (block-scan.ts): only addresses expecting money are asked. */
  blocks?(): boolean;
  /**
   * With blocks: a scheduled poll asks each address expecting money at most this often (default 15 s: 240
   * requests an hour per open order); a poll asked for (pollNow, a push) asks all of them.
   */
  hotEveryMs?: number;
  stopped(): boolean;
  /** The server answered (for the stall clock in /health). */
  answered(): void;
}

export class ScriptPoll {
  /** How many addresses are in each tier, and how far the cold sweep has got, as of the last full poll. */
  sweep = { cold: 0, swept: 0, hot: 0, warm: 0 };
  private readonly statuses = new Map<bigint, string | null>();
  private readonly histories = new Map<bigint, HistoryEntry[]>();
  private coldCursor = 0;
  private warmCursor = 0;
  /**
   * With blocks: when each address expecting money is next due on the timer, a slot of its own grid (nextSlot):
   * an order costs one question per interval whatever an answer takes, the watcher wakes at the slot (nextDueAt)
   * instead of the next 1 s tick, so a payer waits at most one interval plus a round trip, and orders opened
   * together are asked spread over the interval instead of queueing behind each other every round.
   */
  private readonly dueAt = new Map<bigint, number>();
  /**
   * With blocks: addresses a transaction we broadcast touches (its watched outputs, the watched outputs it spends),
   * to the moment they stop counting as expecting. Our own spend is not recorded before a server lists it, and only
   * an address expecting money is asked between blocks: without this, a refund or withdrawal would show only once
   * mined. After one answer the transaction is recorded, and the mempool rule of address-tiers.ts keeps them asked.
   */
  private readonly broadcastTouched = new Map<bigint, number>();

  constructor(private readonly deps: ScriptPollDeps) {}

  /** Every script's history is asked afresh (after a rollback, what was above the fork must be proven again). */
  forgetStatuses(): void {
    this.statuses.clear();
  }

  /** A transaction we broadcast touches these addresses: they are asked about until `until` (epoch ms). */
  expectBroadcast(addressIds: Iterable<bigint>, until: number): void {
    for (const id of addressIds) {
      this.broadcastTouched.set(id, until);
      this.dueAt.delete(id);
    }
  }

  /** With blocks: the earliest moment an address expecting money is due on the timer (epoch ms), if any. */
  nextDueAt(): number | null {
    let next: number | null = null;
    for (const at of this.dueAt.values()) if (next === null || at < next) next = at;
    return next;
  }

  /** One poll's questions; `only`: just these addresses (a pushed poll); `scheduled`: a timer's poll. */
  async run(only?: Set<bigint>, scheduled = false): Promise<void> {
    const { watched, store, headers, push } = this.deps;
    const tip = headers.tip();
    if (!tip) return;
    if (only) {
      await this.ask([...only].filter((id) => watched.scriptsById.has(id)));
      return;
    }
    if (this.deps.blocks?.()) {
      await this.runExpecting(scheduled);
      return;
    }
    const warmEvery = this.deps.warmEvery ?? 10;
    const tiers = await addressTiers(this.deps.db, store.chain, this.deps.clock(), tip.height);
    const due: bigint[] = [];
    const hotIds = new Set<bigint>();
    const cold: bigint[] = [];
    const warmish: bigint[] = [];
    let hot = 0;
    let warm = 0;
    for (const id of watched.scriptsById.keys()) {
      const tier: Tier = tiers.get(id) ?? 'hot';
      if (tier === 'hot') {
        hot++;
        hotIds.add(id);
      }
      if (tier === 'warm') warm++;
      // A hot address the websocket tracks is polled like a warm one: pushes bring its news, polls are the net.
      const covered = tier === 'hot' && push !== undefined && push.isOpen && push.covers(this.deps.pushed.addressOf(id) ?? '');
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
    const perPoll = this.deps.coldPerPoll ?? 1;
    if (this.coldCursor >= cold.length) this.coldCursor = 0;
    due.push(...cold.slice(this.coldCursor, this.coldCursor + perPoll));
    this.coldCursor += perPoll;
    this.sweep = { hot, warm, cold: cold.length, swept: Math.min(this.coldCursor, cold.length) };
    // Several servers: an order about to expire is checked against every healthy one, not one in turn.
    const closing = this.deps.backend.servers ? await closingAddresses(this.deps.db, store.chain, this.deps.clock(), this.deps.closingMs ?? 120_000) : undefined;
    await this.ask(due, closing, hotIds);
  }

  /**
   * Confirmations come from blocks: only addresses expecting money are asked (mempool detection), each at most
   * every `hotEveryMs` on the timer, and none the websocket tracks (its pushes name them when news comes).
   */
  private async runExpecting(scheduled: boolean): Promise<void> {
    const { watched, store, push, clock } = this.deps;
    const now = clock();
    const expecting = await expectingAddresses(this.deps.db, store.chain, now);
    for (const [id, until] of this.broadcastTouched) {
      if (until <= now) this.broadcastTouched.delete(id);
      else expecting.add(id);
    }
    const every = this.deps.hotEveryMs ?? 15_000;
    const due: bigint[] = [];
    const nextDue = new Map<bigint, number>();
    let hot = 0;
    for (const id of expecting) {
      if (!watched.scriptsById.has(id)) continue;
      hot++;
      if (push !== undefined && push.isOpen && push.covers(this.deps.pushed.addressOf(id) ?? '')) {
        this.dueAt.delete(id);
        continue;
      }
      const at = this.dueAt.get(id);
      if (scheduled && at !== undefined && now < at) continue;
      due.push(id);
      // Set as each is asked: one the server failed to answer stays due.
      nextDue.set(id, nextSlot(id, now, every));
    }
    for (const id of this.dueAt.keys()) if (!expecting.has(id) || !watched.scriptsById.has(id)) this.dueAt.delete(id);
    this.sweep = { hot, warm: 0, cold: watched.scriptsById.size - hot, swept: 0 };
    const closing = this.deps.backend.servers ? await closingAddresses(this.deps.db, store.chain, now, this.deps.closingMs ?? 120_000) : undefined;
    await this.ask(due, closing, undefined, nextDue);
  }

  /** Asks the server about these scripts, records what verifies, and withdraws what vanished from them. */
  private async ask(due: bigint[], closing?: Set<bigint>, hotIds?: Set<bigint>, nextDue?: Map<bigint, number>): Promise<void> {
    const { watched, backend, pushed } = this.deps;
    const listed = new Set<string>();
    const checked = new Set<bigint>();
    for (let next = 0; ; ) {
      if (this.deps.stopped()) return;
      // Addresses a push named jump the queue of a long scheduled poll: their news is seconds old, the
      // schedule's is not (a warm round at 5 requests/s can take a minute).
      let id: bigint;
      let fromPush = false;
      const pushedId = pushed.takeNext();
      if (pushedId !== undefined) {
        id = pushedId;
        fromPush = true;
        if (!watched.scriptsById.has(id)) continue;
      } else if (next < due.length) id = due[next++]!;
      else break;
      const script = watched.scriptsById.get(id)!;
      const dueAgain = nextDue?.get(id);
      if (dueAgain !== undefined) this.dueAt.set(id, dueAgain);
      const known = this.statuses.has(id) ? this.statuses.get(id) : undefined;
      // Hot addresses keep their Electrum subscriptions first when a server's subscription cap is reached.
      const answer = await backend.history(script, known, { ...(closing?.has(id) ? { everyServer: true } : {}), ...(hotIds?.has(id) ? { hot: true } : {}) });
      this.deps.answered();
      let entries: HistoryEntry[];
      if (answer === 'unchanged') entries = this.histories.get(id) ?? [];
      else {
        entries = answer.entries;
        let complete = true;
        for (const e of entries) complete = (await this.deps.verifier.settle(e)) && complete;
        // Only a history fully processed may be skipped next time its status is unchanged.
        if (complete && backend.kind === 'electrum') this.statuses.set(id, answer.status);
        else this.statuses.delete(id);
        // A pushed confirmation can name a block our headers do not hold yet: one more look after this poll.
        if (fromPush && !complete) pushed.retryOnce(id);
        this.histories.set(id, entries);
      }
      for (const e of entries) listed.add(e.txid);
      checked.add(id);
    }
    await this.withdrawVanished(listed, checked);
  }

  /**
   * A transaction we hold as waiting that no checked script lists any more left the server's mempool
   * unmined (replaced, evicted, or reorganised out). Every address with a waiting transaction is hot,
   * so each such transaction's scripts were all asked this poll.
   */
  private async withdrawVanished(listed: Set<string>, checked: Set<bigint>): Promise<void> {
    const { store, headers } = this.deps;
    const waiting = await store.mempoolTxs();
    const gone: bigint[] = [];
    for (const [txid, rowId] of waiting) {
      if (listed.has(txid)) continue;
      const addresses = [...(await store.addressesOf(store.db.kysely, [rowId]))];
      if (addresses.length > 0 && addresses.every((a) => checked.has(a))) gone.push(rowId);
    }
    if (gone.length === 0) return;
    await this.deps.feed.withdraw(gone, () => headers.tip()?.height ?? 0);
    this.deps.log.info({ chain: store.chain, count: gone.length }, 'transactions withdrawn: the server no longer lists them');
  }
}

/**
 * The first slot after `now` of the address's grid: every `every` ms, at a phase of its own (a multiplicative
 * hash of its id, so consecutive ids land far apart). The first question of an address comes at once; the next
 * at its slot, at most one interval later (one question more in the order's life, never a longer wait).
 */
export function nextSlot(id: bigint, now: number, every: number): number {
  const phase = Number((id * 2_654_435_761n) % BigInt(every));
  const ahead = (((phase - now) % every) + every) % every;
  return now + (ahead === 0 ? every : ahead);
}
