// The pool of pre-derived receiving addresses (issue 16). Issuing an address claims the wallet's lowest
// pooled row (src/db/address-claims.ts); this keeps each wallet's pool topped up in the background, so the
// derivation (the costliest part of issuing) leaves the request path and the wallet lock is taken only
// briefly, by the refill, instead of by every issuer.
//
// Crash safety: a refill commits its rows in one transaction (a crash loses none or all of them, and an
// uncommitted refill's indexes are simply derived again by the next one); a pooled row leaves the pool only
// in the transaction that issues it. Pooled indexes therefore survive restarts, are issued later in index
// order, and are never issued twice (the unique (wallet_id, derivation_index) of `addresses` backs this).
import type { Logger } from 'pino';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import { refreshPoolStatistics, storeRefillChunk } from '../db/address-pool-store.ts';
import type { IssuedOutput } from './wallet-keys.ts';
import type { WalletRow } from './wallet-repository.ts';
import type { DerivationWorker } from './derivation-worker.ts';

// Sizes (third pass of issue 16). With 100/50/10 a burst on PostgreSQL drained the pool faster than refills of
// 10 could come back through a connection pool busy with the burst itself: 40-60 % of creations at 10-50
// connections found it empty and derived under the wallet lock. Refills now start after a quarter of the pool
// is gone, in chunks derived off the main thread, so a chunk costs the request thread only its INSERT.
// Fifth pass: a pool of 200 still ran dry under a sustained burst of 1,500-2,000 creations a second, and each
// miss derived under the wallet lock, holding every other creation of the wallet back. A wallet whose pool
// falls below a quarter of its target now has its target doubled (up to POOL_MAX_TARGET), with chunks of a
// quarter of the target, so a busy wallet keeps a deep pool and a quiet one keeps 200 rows.
/** Pooled addresses a refill tops a wallet up to, at first. */
export const POOL_TARGET = 200;
/** The most a busy wallet's target grows to. */
export const POOL_MAX_TARGET = 3_200;
/** A wallet's pool is refilled once a claim leaves fewer than this many (as this process counts), at first. */
export const POOL_LOW_WATER = 150;
/** Addresses derived and committed together by a refill, at first. */
export const REFILL_CHUNK = 50;

/**
 * Addresses an issuer that found the pool empty stores in its own transaction, under the wallet lock, for the
 * issuers queued behind it. Derived on the request thread, so kept small: the background refill does the rest.
 */
export const INLINE_CHUNK = 10;

/** A pool's starting sizes; the defaults above suit one process serving bursts of hundreds of creations a second. */
export interface PoolSizes {
  target: number;
  lowWater: number;
  chunk: number;
  /** Largest target a busy wallet's pool grows to. */
  maxTarget: number;
}

/** A refill chunk's most rows, whatever the target: one chunk is one transaction (on SQLite, on the writer thread). */
export const MAX_CHUNK = 200;

/** Derives receiving address `index` of a wallet (the issuer's derivation, with its cached keys). */
export type DeriveFor = (wallet: WalletRow, index: number) => IssuedOutput;

/** Keeps every wallet's pool of unissued addresses topped up, one refill per wallet at a time. */
export class AddressPool {
  /** Pooled rows per wallet as this process last counted them, less its own claims since. */
  private readonly estimate = new Map<bigint, number>();
  private readonly refills = new Map<bigint, Promise<void>>();
  private closed = false;
  /** Issues that found the pool empty and derived under the wallet lock (counted for benches). */
  misses = 0;
  /** Issues served from the pool. */
  claims = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly derive: DeriveFor,
    /** Derives refills off the main thread when given; without it (or once it fails) refills derive here. */
    private readonly thread?: DerivationWorker,
    sizes: Partial<PoolSizes> = {},
  ) {
    this.sizes = { target: POOL_TARGET, lowWater: POOL_LOW_WATER, chunk: REFILL_CHUNK, maxTarget: POOL_MAX_TARGET, ...sizes };
  }

  private readonly sizes: PoolSizes;
  /** Per wallet, the sizes its demand has grown them to (absent: the starting sizes). */
  private readonly grown = new Map<bigint, PoolSizes>();
  /** Wallets whose estimate comes from a refill's count (not just this process's claims since it started). */
  private readonly counted = new Set<bigint>();
  /** Wallets whose target grew during the refill under way. */
  private readonly grewDuringRefill = new Set<bigint>();
  /** Whether this process has refreshed the pool table's statistics (once: see refreshPoolStatistics). */
  private analyzed = false;

  /** The wallet's current sizes. */
  sizesOf(walletId: bigint): PoolSizes {
    return this.grown.get(walletId) ?? this.sizes;
  }

  /** Notes a claim (or a miss: `claimed` false) and starts a background refill when the pool runs low. */
  noteClaim(wallet: WalletRow, claimed: boolean): void {
    if (claimed) this.claims++;
    const left = claimed ? (this.estimate.get(wallet.id) ?? 0) - 1 : 0;
    this.estimate.set(wallet.id, left);
    const sizes = this.sizesOf(wallet.id);
    // A miss, or below a quarter of the target (as counted by a refill) while a refill is under way: demand
    // outruns this pool size. Grown at most once per refill, so a burst's first claims do not jump to the maximum.
    const low = !claimed || (this.counted.has(wallet.id) && left < sizes.target / 4);
    if (low && this.refills.has(wallet.id) && !this.grewDuringRefill.has(wallet.id) && sizes.target < sizes.maxTarget) {
      const target = Math.min(sizes.maxTarget, sizes.target * 2);
      this.grown.set(wallet.id, { ...sizes, target, lowWater: (target * 3) / 4, chunk: Math.min(MAX_CHUNK, Math.max(sizes.chunk, target / 4)) });
      this.grewDuringRefill.add(wallet.id);
    }
    if (left < this.sizesOf(wallet.id).lowWater) this.refillSoon(wallet);
  }

  /** Starts a refill of the wallet's pool unless one is under way; errors are logged, never thrown. */
  refillSoon(wallet: WalletRow): void {
    if (this.closed || this.refills.has(wallet.id)) return;
    const run = this.refill(wallet)
      .catch((err: unknown) => {
        if (!this.closed) this.log.warn({ api_id: wallet.api_id, err: err instanceof Error ? err.message : String(err) }, 'address pool refill failed; addresses are derived on demand meanwhile');
      })
      .finally(() => {
        this.refills.delete(wallet.id);
        this.grewDuringRefill.delete(wallet.id);
      });
    this.refills.set(wallet.id, run);
  }

  /**
   * Tops the wallet's pool up to its target size (POOL_TARGET by default) of its current script type, in committed chunks of
   * REFILL_CHUNK (derived on the worker thread when there is one): a small chunk is derived and stored quickly, so a burst that drains the pool (and derives
   * inline meanwhile) cannot keep overtaking a long refill whose indexes it would then have to discard.
   */
  async refill(wallet: WalletRow): Promise<void> {
    const { kysely } = this.db;
    // The next chunk is derived (on the worker thread) while this one is stored: derivation is most of a
    // refill's time, and under a burst the store waits for a connection behind the burst's own statements.
    let ahead: { from: number; batch: Promise<IssuedOutput[]> } | undefined;
    for (let misses = 0; misses < 5 && !this.closed; ) {
      // One round trip for the pool's state: under a burst the refill's statements queue for a connection
      // behind the burst's own, so each statement it saves lets it keep up with more creations.
      const { rows } = await sql<{ have: unknown; other: unknown; issued: unknown; pooled: unknown }>`
        select (select count(*) from address_pool where wallet_id = ${wallet.id} and script_type = ${wallet.script_type}) as have,
               (select count(*) from address_pool where wallet_id = ${wallet.id} and script_type <> ${wallet.script_type}) as other,
               (select max(derivation_index) from addresses where wallet_id = ${wallet.id}) as issued,
               (select max(derivation_index) from address_pool where wallet_id = ${wallet.id}) as pooled`.execute(kysely);
      const state = rows[0]!;
      const have = Number(state.have);
      const other = Number(state.other);
      this.estimate.set(wallet.id, have);
      this.counted.add(wallet.id);
      const sizes = this.sizesOf(wallet.id);
      const deficit = sizes.target - have;
      // Whole chunks only, unless the pool is low: topping up the few claimed while a chunk was stored would
      // commit a small chunk after every chunk (on SQLite a COMMIT with its fsync on the request thread).
      if (deficit <= 0 || (deficit < sizes.chunk && have >= sizes.lowWater)) return;
      const from = Math.max(state.issued === null ? -1 : Number(state.issued), state.pooled === null ? -1 : Number(state.pooled)) + 1;
      const count = Math.min(sizes.chunk, deficit);
      // A run derived ahead is used when it starts where this chunk does (and is long enough).
      const batch = ahead?.from === from ? (await ahead.batch).slice(0, count) : [];
      const run = batch.length === count ? batch : await this.deriveRun(wallet, from, count);
      // The next chunk is derived ahead only when this refill will store it: a run derived and then not used
      // is work the derivation thread took from the request thread's cores.
      ahead = deficit - count >= sizes.chunk ? { from: from + count, batch: this.deriveRun(wallet, from + count, sizes.chunk) } : undefined;
      // An unused run ahead must not end as an unhandled rejection; deriveRun already falls back on errors.
      ahead?.batch.catch(() => {});
      const now = BigInt(this.clock());
      const stored = await storeRefillChunk(this.db, {
        walletId: wallet.id,
        scriptType: wallet.script_type,
        dropOtherTypes: other > 0,
        now,
        run: run.map((a) => ({ index: a.index, address: a.address, scriptHex: Buffer.from(a.script).toString('hex') })),
      });
      if (stored === 0) misses++;
      else await this.refreshStatistics();
      // Let requests in between chunks.
      await new Promise<void>((r) => setImmediate(r));
    }
  }

  /** Once per process, after its first stored refill: see refreshPoolStatistics. */
  private async refreshStatistics(): Promise<void> {
    if (this.analyzed) return;
    this.analyzed = true;
    await refreshPoolStatistics(this.db);
  }

  /** A refill's run of addresses: on the derivation thread when there is one, else (or if it failed) here. */
  private async deriveRun(wallet: WalletRow, from: number, count: number): Promise<IssuedOutput[]> {
    if (this.thread && !this.closed) {
      try {
        return await this.thread.derive(wallet, from, count);
      } catch (err) {
        if (this.closed) return [];
        this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'address derivation thread failed; refilling on the main thread');
      }
    }
    const batch: IssuedOutput[] = [];
    for (let i = 0; i < count; i++) batch.push(this.derive(wallet, from + i));
    return batch;
  }

  /**
   * Stores the next INLINE_CHUNK addresses from `from` in the pool inside the caller's transaction, which
   * holds the wallet lock and has just derived `from - 1` itself because the pool was empty. Under a burst the
   * pool would otherwise stay empty: every issuer derives under the wallet lock and a background refill keeps
   * finding its indexes taken. Issuers queued on the lock then claim these rows instead of deriving.
   */
  async topUpInline(trx: Transaction<Database>, wallet: WalletRow, from: number, now: number): Promise<void> {
    this.misses++;
    const batch: IssuedOutput[] = [];
    for (let i = 0; i < INLINE_CHUNK; i++) batch.push(this.derive(wallet, from + i));
    await trx.insertInto('address_pool').values(batch.map((a) => this.row(wallet, a, BigInt(now)))).execute();
    this.estimate.set(wallet.id, (this.estimate.get(wallet.id) ?? 0) + batch.length);
  }

  private row(wallet: WalletRow, a: IssuedOutput, now: bigint) {
    return {
      wallet_id: wallet.id,
      derivation_index: BigInt(a.index),
      address: a.address,
      script_hex: Buffer.from(a.script).toString('hex'),
      script_type: wallet.script_type,
      created_at: now,
    };
  }

  /** Waits for refills under way (tests, shutdown). */
  async settle(): Promise<void> {
    while (this.refills.size > 0) await Promise.all([...this.refills.values()]);
  }

  /** Stops starting refills and waits for those under way. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.refills.values()]);
    await this.thread?.close();
  }
}
