import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

/** The price of one bitcoin in a currency, as of a stored rate record. */
export interface SpotRate {
  /** Uppercase ISO 4217 code. */
  currency: string;
  /** Price of 1 BTC, decimal string. */
  rate: string;
  /** Epoch ms of the rate record this comes from. */
  at: number;
}

/** Why a rate is fixed: addresses and payment forms (15 min), payment API v1 (900 s), withdrawal quotes (15 min). */
export type RateLockPurpose = 'address' | 'payment_form' | 'payment_request' | 'withdrawal_quote';

/** A rate fixed for a purpose until `expiresAt`. */
export interface RateLock {
  id: bigint;
  purpose: RateLockPurpose;
  currency: string;
  rate: string;
  rateAt: number;
  lockedAt: number;
  expiresAt: number;
}

/** What other capabilities need from exchange rates. */
export interface Rates {
  /**
   * The current rate for a currency. Throws an `unsupported-currency` DomainError (wallet API 103) for a currency without a rate and
   * ServiceUnavailableError when rates are missing or stale (never prices on old data).
   */
  spot(currency: string): Promise<SpotRate>;
  /** Fixes the current rate for a purpose; stored in `trx` when given, so it commits with the caller's work. */
  lock(purpose: RateLockPurpose, currency: string, trx?: Transaction<Database>): Promise<RateLock>;
  /**
   * The lock `lock` would store, without storing it: for a caller that writes the `rate_locks` row in its own
   * statement (PostgreSQL's one-statement payment creation). Same errors as `spot`.
   */
  planLock(purpose: RateLockPurpose, currency: string): Promise<Omit<RateLock, 'id'>>;
  /** A stored lock, with whether it still holds at `now`. */
  getLock(id: bigint, now?: number): Promise<(RateLock & { holds: boolean }) | undefined>;
}
