import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Engine } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { lockRow, lockRowMayWait } from '../db/row-locks.ts';
import {
  claimPooledAddress,
  lastFundedIndex,
  lowestFreeOrderAddress,
  nextDerivationIndex,
  nextOrderAddressFreeAt,
  reserveFreeOrderAddress,
  type IssueAs,
} from '../db/address-claims.ts';
import type { RateLimiter } from '../security/rate-limiter.ts';
import type { AddressPool } from './address-pool.ts';
import type { AddressRow, WalletRow } from './wallet-repository.ts';
import { WalletKeys, type IssuedOutput } from './wallet-keys.ts';
import { DEFAULT_ISSUING_RULES, GapLimitError, issueLimits, type IssuingRules } from './issuing-rules.ts';

type Trx = Transaction<Database>;

/**
 * Asks a wallet's chain source, now, whether a script has any transaction: true or false from a light server,
 * null from a node (whose records are complete already, see ChainSource.freshHistory).
 */
export type FreshHistoryCheck = (mode: string, script: Uint8Array) => Promise<boolean | null>;

/**
 * Which expired order address an order may take, decided before its transaction (the question to a light
 * server is not asked inside one): any free one (a node's records answer), only the one just checked, or
 * none (a new address is issued).
 */
export type OrderReuse = { kind: 'any' } | { kind: 'only'; addressId: bigint } | { kind: 'none' };

/** Expired addresses checked per order before giving up and issuing a new one. */
const REUSE_CHECKS = 5;

/** One order's reservation: when, until when, vetOrderReuse's answer, and the caller's IP address (for its rate limit). */
export interface OrderReservation {
  now: number;
  until: number;
  reuse?: OrderReuse;
  ip?: string | null;
}

/**
 * Hands out receiving addresses: the lowest free one for orders, always a new one for payment requests.
 * A new address is claimed from the wallet's pool of pre-derived ones (see address-pool.ts) when it has
 * one, else derived here under the wallet's lock.
 */
export class AddressIssuer {
  private readonly keys = new WalletKeys();
  private pool: AddressPool | undefined;
  private freshCheck: { check: FreshHistoryCheck; log: Logger } | undefined;
  private limiter: RateLimiter | undefined;
  private readonly rules: IssuingRules;
  /** The database those transactions run on, as src/db/'s statements take it. */
  private readonly on: { engine: Engine };

  constructor(
    /** The engine the issuer's transactions run on (src/db/ picks each statement's form by it). */
    engine: Engine,
    private readonly onGapExceeded: (wallet: WalletRow, index: number) => void = () => {},
    /** The rule of order addresses (issuing-rules.ts); the rate limits apply once useRateLimiter is called. */
    rules: Partial<IssuingRules> = {},
  ) {
    this.rules = { ...DEFAULT_ISSUING_RULES, ...rules };
    this.on = { engine };
  }

  /** Counts every order address against the per-wallet and per-IP limits of the rules, in this limiter. */
  useRateLimiter(limiter: RateLimiter): void {
    this.limiter = limiter;
  }

  /** Issues new addresses from this pool (which `derive` fills); without one every address is derived on demand. */
  usePool(pool: AddressPool): void {
    this.pool = pool;
  }

  /** Checks an expired order address with the chain source before it is reused (light sources). */
  useFreshHistoryCheck(check: FreshHistoryCheck, log: Logger): void {
    this.freshCheck = { check, log };
  }

  /**
   * Before an order reuses an expired address, its history is asked fresh of a light server: a light watcher
   * asks about cold addresses only in its slow sweep, so a late payment may not be recorded yet. An address
   * with any transaction is marked funded (never reused; warm, so the watcher verifies and records it soon)
   * and the next one is checked. A node's watcher has scanned every block for every issued address, so its
   * records answer (`any`). When the server cannot be asked, no address is reused (`none`).
   */
  async vetOrderReuse(db: Kysely<Database>, wallet: WalletRow, now: number): Promise<OrderReuse> {
    if (!this.freshCheck) return { kind: 'any' };
    const { check, log } = this.freshCheck;
    for (let i = 0; i < REUSE_CHECKS; i++) {
      const candidate = await lowestFreeOrderAddress(db, wallet.id, now - this.rules.reuseGraceMs);
      if (!candidate) return { kind: 'none' };
      let used: boolean | null;
      try {
        used = await check(wallet.mode, Buffer.from(candidate.script_hex, 'hex'));
      } catch (err) {
        log.warn({ api_id: wallet.api_id, err: err instanceof Error ? err.message : String(err) }, 'cannot check an expired address with the chain source; issuing a new one instead of reusing it');
        return { kind: 'none' };
      }
      if (used === null) return { kind: 'any' };
      if (!used) return { kind: 'only', addressId: candidate.id };
      log.info({ api_id: wallet.api_id, address: candidate.address }, 'an expired order address has transactions on the chain; it is not reused');
      await db.updateTable('addresses').set({ first_funded_at: BigInt(now) }).where('id', '=', candidate.id).where('first_funded_at', 'is', null).execute();
    }
    return { kind: 'none' };
  }

  /** True when new addresses come from a pool (so a caller may claim from it in its own statement). */
  get pooled(): boolean {
    return this.pool !== undefined;
  }

  /**
   * Bookkeeping for a pool claim made by another statement (PostgreSQL's one-statement payment creation):
   * refills the pool when low, and warns past the gap limit as issuing here would.
   */
  noteClaimed(wallet: WalletRow, claimed: { index: number; lastFunded: number } | undefined): void {
    this.pool?.noteClaim(wallet, claimed !== undefined);
    if (claimed && claimed.index - claimed.lastFunded > this.rules.gapLimit) this.onGapExceeded(wallet, claimed.index);
  }

  /** Receiving address `index` of the wallet, of any kind, as issued (its wallet key kept, fast derivation). */
  derive(wallet: WalletRow, index: number): IssuedOutput {
    return this.keys.receive(wallet, index);
  }

  /**
   * Reserves an address for an order (set_addr, payment_form: calls without a login) until `until`, under the rule
   * of issuing-rules.ts, all inside the caller's transaction: the order counts against the per-wallet and per-IP
   * rate limits (RateLimitedError when one is full), and takes the lowest-index address of the wallet that is free
   * (never funded, reserved for orders only, its reservation ended more than the grace period ago), else a new one;
   * never one past the gap limit after the last used address (GapLimitError then). Every candidate is bounded in the
   * statement that claims it, so concurrent orders cannot overshoot together: each holds a different index.
   * `reuse` is vetOrderReuse's answer; without one, an issuer that checks with the chain source reuses nothing.
   */
  async reserveForOrder(trx: Trx, wallet: WalletRow, order: OrderReservation): Promise<AddressRow> {
    const { now, until } = order;
    if (this.limiter) await this.limiter.consumeIn(trx, issueLimits(this.rules, wallet.id, order.ip ?? null), now);
    const lastUsed = await lastFundedIndex(trx, wallet.id);
    const maxIndex = lastUsed + this.rules.gapLimit;
    const allowed: OrderReuse = order.reuse ?? (this.freshCheck ? { kind: 'none' } : { kind: 'any' });
    const only = allowed.kind === 'only' ? allowed.addressId : undefined;
    const lapsedBy = now - this.rules.reuseGraceMs;
    const free = allowed.kind === 'none' ? undefined : await reserveFreeOrderAddress(trx, this.on, wallet.id, lapsedBy, until, only, maxIndex);
    if (free) return free;
    const issued = await this.issueNew(trx, wallet, { purpose: 'order', createdAt: now, reservedUntil: BigInt(until) }, maxIndex);
    if (issued) return issued;
    const freesAt = await nextOrderAddressFreeAt(trx, wallet.id, lastUsed, maxIndex, this.rules.reuseGraceMs);
    throw new GapLimitError(this.rules, lastUsed, freesAt);
  }

  /** Issues a never-used address for a payment request; it is never handed out again (past the gap limit: a warning). */
  async issueForPayment(trx: Trx, wallet: WalletRow, now: number): Promise<AddressRow> {
    const issued = await this.issueNew(trx, wallet, { purpose: 'payment', createdAt: now, reservedUntil: null });
    if (!issued) throw new Error('an unbounded issue found no index');
    return issued;
  }

  /**
   * As issueForPayment, for a payment a call without a login asks for (a pay button): only within the wallet's gap
   * limit past its last used address, the window of reserveForOrder, else GapLimitError and nothing issued. A payment's
   * address is never reused, so the window frees only when a payment arrives (or an order's reservation lapses).
   */
  async issueForPaymentWithinGap(trx: Trx, wallet: WalletRow, now: number): Promise<AddressRow> {
    const lastUsed = await lastFundedIndex(trx, wallet.id);
    const maxIndex = lastUsed + this.rules.gapLimit;
    const issued = await this.issueNew(trx, wallet, { purpose: 'payment', createdAt: now, reservedUntil: null }, maxIndex);
    if (issued) return issued;
    const freesAt = await nextOrderAddressFreeAt(trx, wallet.id, lastUsed, maxIndex, this.rules.reuseGraceMs);
    throw new GapLimitError(this.rules, lastUsed, freesAt);
  }

  /**
   * Issues a never-issued address, from the pool or derived. With `maxIndex` (an order's gap-limit window) only an
   * index up to it is issued, and undefined answered when there is none; without, the gap limit is only warned about.
   */
  private async issueNew(trx: Trx, wallet: WalletRow, as: IssueAs, maxIndex?: number): Promise<AddressRow | undefined> {
    if (this.pool) {
      const claimed = await claimPooledAddress(trx, this.on, wallet.id, wallet.script_type, as, maxIndex);
      // A bounded claim that found nothing may just have met the window's end: only a derivation below counts as a miss.
      if (claimed || maxIndex === undefined) this.pool.noteClaim(wallet, claimed !== undefined);
      if (claimed) {
        await this.checkGap(trx, wallet, Number(claimed.derivation_index), maxIndex);
        return claimed;
      }
    }
    await lockRow(trx, this.on, 'wallets', wallet.id);
    if (this.pool && lockRowMayWait(this.on)) {
      // A refill may have committed while this waited for the wallet lock: its rows come first, so issued
      // indexes stay in order (a derived index past a freshly pooled run would open a gap).
      const claimed = await claimPooledAddress(trx, this.on, wallet.id, wallet.script_type, as, maxIndex);
      if (claimed) {
        this.pool.noteClaim(wallet, true);
        await this.checkGap(trx, wallet, Number(claimed.derivation_index), maxIndex);
        return claimed;
      }
    }
    const index = await nextDerivationIndex(trx, wallet.id);
    if (maxIndex !== undefined) {
      if (index > maxIndex) return undefined;
      this.pool?.noteClaim(wallet, false);
    }
    await this.checkGap(trx, wallet, index, maxIndex);
    const derived = this.derive(wallet, index);
    // The pool was empty: fill the next indexes in this same transaction (past every issued and pooled index,
    // so nothing collides), so the issuers queued on the wallet lock claim them instead of deriving in turn.
    if (this.pool) await this.pool.topUpInline(trx, wallet, index + 1, as.createdAt);
    return trx
      .insertInto('addresses')
      .values({
        wallet_id: wallet.id,
        derivation_index: BigInt(index),
        address: derived.address,
        script_hex: Buffer.from(derived.script).toString('hex'),
        created_at: BigInt(as.createdAt),
        reserved_until: as.reservedUntil,
        purpose: as.purpose,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /**
   * Warns when the index lies more than the gap limit past the last funded issued address (pooled ones do not
   * count); an index bounded by its window (`maxIndex`) never does.
   */
  private async checkGap(trx: Trx, wallet: WalletRow, index: number, maxIndex?: number): Promise<void> {
    if (maxIndex !== undefined || index < this.rules.gapLimit) return;
    const funded = await trx
      .selectFrom('addresses')
      .select((eb) => eb.fn.max('derivation_index').as('max'))
      .where('wallet_id', '=', wallet.id)
      .where('first_funded_at', 'is not', null)
      .executeTakeFirst();
    const lastFunded = funded?.max === null || funded?.max === undefined ? -1 : Number(funded.max);
    if (index - lastFunded > this.rules.gapLimit) this.onGapExceeded(wallet, index);
  }
}
