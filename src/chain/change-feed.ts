// What every chain watcher does to the database and tells the rest of the service, whichever source it
// follows: each change (transactions recorded, a rollback, a withdrawal, a new tip) is one database
// transaction whose listeners run inside it, and committed-listeners hear of it once it touched an address.
import type { Transaction } from 'kysely';
import type { RawTx } from '../bitcoin/raw-tx.ts';
import type { Clock } from '../core/clock.ts';
import type { Database } from '../db/schema.ts';
import type { ChainStore } from './chain-store.ts';
import type { WatchedSet } from './watched-set.ts';
import type { ChainChange, ChainChangeCause, ChainChangeListener } from './chain-events.ts';
import { recordMatchedTx, type TxPlace } from './tx-recorder.ts';

type Trx = Transaction<Database>;

/** A processed block as the store keeps it. */
export interface TipBlock {
  hash: string;
  height: number;
  prevHash: string;
  time: number;
}

/**
 * When committed-listeners are told: after each change commits (the node watcher), or once at the end of a
 * poll whose changes touched an address (the light watcher, which makes many small changes per poll).
 */
export type CommitNotice = 'each-change' | 'end-of-poll';

const WITHDRAWN_REASON = 'left the mempool unmined (replaced, evicted or reorganised out)';

export class ChangeFeed {
  private readonly listeners: ChainChangeListener[] = [];
  private readonly committedListeners: Array<() => void> = [];
  /** Set by `emit` when a change touched some address's records; cleared when the committed-listeners are told. */
  private touched = false;

  constructor(
    private readonly store: ChainStore,
    private readonly watched: WatchedSet,
    private readonly clock: Clock,
    private readonly notice: CommitNotice,
  ) {}

  /** Registers a listener called inside every change's database transaction. */
  onChange(listener: ChainChangeListener): void {
    this.listeners.push(listener);
  }

  /** Registers a listener called after changes that touched an address have committed (e.g. to wake the outbox). */
  onCommitted(listener: () => void): void {
    this.committedListeners.push(listener);
  }

  /** Runs one change in its own database transaction; `now` is read when the transaction starts. */
  async change<T>(work: (trx: Trx, now: number) => Promise<T>): Promise<T> {
    if (this.notice === 'each-change') this.touched = false;
    const out = await this.store.transaction((trx) => work(trx, this.clock()));
    if (this.notice === 'each-change') this.tellCommitted();
    return out;
  }

  /** End of a poll: with `end-of-poll`, the committed-listeners hear of the poll's changes now. */
  pollEnded(): void {
    if (this.notice === 'end-of-poll') this.tellCommitted();
  }

  /** Calls the change listeners inside the change's transaction. */
  async emit(trx: Trx, cause: ChainChangeCause, addressIds: Set<bigint>, tipHeight: number, now: number): Promise<void> {
    const change: ChainChange = { chain: this.store.chain, cause, addressIds, tipHeight, now };
    for (const listener of this.listeners) await listener(trx, change);
    if (addressIds.size > 0) this.touched = true;
  }

  /**
   * Records, in one change, the transactions that touch a watched script or output, then runs `then` in the same
   * transaction (the caller emits there). Outputs it started watching are forgotten again if the change fails.
   */
  async record(
    txs: readonly RawTx[],
    where: TxPlace,
    then: (trx: Trx, now: number, touched: Set<bigint>, matched: boolean) => Promise<void>,
  ): Promise<void> {
    const added: Array<[string, bigint]> = [];
    try {
      await this.change(async (trx, now) => {
        const touched = new Set<bigint>();
        let matched = false;
        for (const tx of txs) matched = (await recordMatchedTx(this.store, this.watched, trx, tx, where, now, touched, added)) || matched;
        await then(trx, now, touched, matched);
      });
    } catch (err) {
      for (const [key] of added) this.watched.outpoints.delete(key);
      throw err;
    }
  }

  /** Marks waiting transactions as gone from the mempool unmined, in one change. */
  async withdraw(gone: bigint[], tipHeight: () => number): Promise<void> {
    await this.change(async (trx, now) => {
      const touched = await this.store.withdraw(trx, gone, WITHDRAWN_REASON, now);
      await this.emit(trx, 'withdrawn', touched, tipHeight(), now);
    });
  }

  /**
   * Rolls the records back to `forkHeight` in one change; `alongside` writes what else moves with them (the light
   * watcher's stored headers) and its result is returned. The fork block becomes the tip when given.
   */
  async rollback<T>(forkHeight: number, fork: TipBlock | undefined, alongside?: (trx: Trx) => Promise<T>): Promise<T | undefined> {
    return this.change(async (trx, now) => {
      const touched = await this.store.rollbackAbove(trx, forkHeight);
      const out = alongside ? await alongside(trx) : undefined;
      if (fork) await this.store.setTip(trx, fork, now);
      await this.emit(trx, 'reorg', touched, forkHeight, now);
      return out;
    });
  }

  /** Makes `block` the tip with nothing recorded in it (a `tip` change). */
  async moveTip(block: TipBlock): Promise<void> {
    await this.change(async (trx, now) => {
      await this.store.setTip(trx, block, now);
      await this.emit(trx, 'tip', new Set(), block.height, now);
    });
  }

  private tellCommitted(): void {
    if (!this.touched) return;
    this.touched = false;
    for (const listener of this.committedListeners) listener();
  }
}

/** The tip a watcher has processed and when its height last changed, for /health. */
export class TipMark {
  height: number | null = null;
  hash: string | null = null;
  changedAt: number | null = null;

  constructor(private readonly clock: Clock) {}

  /** A tip reached: a new height restarts the stall clock. */
  note(height: number, hash: string | null = null): void {
    if (this.height !== height) this.changedAt = this.clock();
    this.height = height;
    this.hash = hash;
  }
}
