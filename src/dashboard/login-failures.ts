// Wrong sign-in codes counted per e-mail across codes (NIST SP 800-63B 5.2.2). A code allows 5 wrong tries and a
// new code starts its own count, so on its own that rule lets an e-mail be tried without end (10 codes an hour).
// This count spans codes and lasts until a sign-in: the first 10 wrong codes in a row cost nothing, each further
// one doubles a wait (30 s up to 1 hour) before another code of that e-mail is compared, and the 100th locks code
// sign-in for 24 hours (each later wrong code locks it again, so past 100 one guess a day at most). Every sign-in
// path (check_otp, the console, the key-authorization page) goes through Login.checkOtp, so they share this count.
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { DomainError } from '../core/domain-errors.ts';
import { RateLimitedError } from '../security/rate-limiter.ts';
import { recordAudit } from '../security/audit.ts';
import { findProfileByEmail, loginEmail } from './profiles.ts';

/** Wrong codes in a row (per e-mail, across codes) answered without a wait. */
export const FREE_WRONG_CODES = 10;
/** Wrong codes in a row that lock code sign-in (SP 800-63B 5.2.2 allows at most 100). */
export const LOCKOUT_WRONG_CODES = 100;
/** How long a lockout lasts, unless an operator lifts it (`satgate login unlock <email>`). */
export const LOCKOUT_HOURS = 24;
const FIRST_WAIT_MS = 30_000;
const LONGEST_WAIT_MS = 3_600_000;

/** The wait before the next code is compared after `failures` wrong codes in a row, in milliseconds. */
export function waitAfterWrongCodes(failures: number): number {
  if (failures >= LOCKOUT_WRONG_CODES) return LOCKOUT_HOURS * 3_600_000;
  if (failures < FREE_WRONG_CODES) return 0;
  return Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** (failures - FREE_WRONG_CODES));
}

/** An e-mail's count as a check sees it. */
export interface WrongCodes {
  failures: number;
  waitUntil: number;
}

/**
 * Starts a code check of the profile inside its transaction: upserts the profile's row first, which locks it
 * (PostgreSQL row lock, SQLite write lock), so concurrent checks of one e-mail run one after another and each
 * sees the count the previous one left. Returns that count.
 */
export async function lockWrongCodes(trx: Transaction<Database>, profileId: bigint, now: number): Promise<WrongCodes> {
  const row = await trx
    .insertInto('login_failures')
    .values({ profile_id: profileId, failures: 0n, wait_until: 0n, updated_at: BigInt(now) })
    .onConflict((oc) => oc.column('profile_id').doUpdateSet((eb) => ({ failures: eb.ref('login_failures.failures') })))
    .returning(['failures', 'wait_until'])
    .executeTakeFirstOrThrow();
  return { failures: Number(row.failures), waitUntil: Number(row.wait_until) };
}

/** Counts one wrong code (the row is locked by {@link lockWrongCodes}); returns the new count and its wait. */
export async function countWrongCode(trx: Transaction<Database>, profileId: bigint, now: number): Promise<WrongCodes> {
  const row = await trx
    .updateTable('login_failures')
    .set((eb) => ({ failures: eb('failures', '+', 1n), updated_at: BigInt(now) }))
    .where('profile_id', '=', profileId)
    .returning('failures')
    .executeTakeFirstOrThrow();
  const failures = Number(row.failures);
  const waitUntil = now + waitAfterWrongCodes(failures);
  await trx.updateTable('login_failures').set({ wait_until: BigInt(waitUntil) }).where('profile_id', '=', profileId).execute();
  return { failures, waitUntil };
}

/** Forgets the profile's wrong codes: after a sign-in, or when an operator lifts a lockout. Returns the count it had. */
export async function clearWrongCodes(db: Kysely<Database> | Transaction<Database>, profileId: bigint): Promise<WrongCodes | null> {
  const row = await db.deleteFrom('login_failures').where('profile_id', '=', profileId).returning(['failures', 'wait_until']).executeTakeFirst();
  return row ? { failures: Number(row.failures), waitUntil: Number(row.wait_until) } : null;
}

/** The profile's count without locking it (send_otp asks whether the e-mail is locked out). */
export async function readWrongCodes(db: Kysely<Database> | Transaction<Database>, profileId: bigint): Promise<WrongCodes> {
  const row = await db.selectFrom('login_failures').select(['failures', 'wait_until']).where('profile_id', '=', profileId).executeTakeFirst();
  return row ? { failures: Number(row.failures), waitUntil: Number(row.wait_until) } : { failures: 0, waitUntil: 0 };
}

/** Whether the count locks code sign-in at `now`. */
export function isLockedOut(count: WrongCodes, now: number): boolean {
  return count.failures >= LOCKOUT_WRONG_CODES && count.waitUntil > now;
}

/** The refusal while a wait or the lockout lasts: the rate-limit answer (HTTP 429, 201, Retry-After). */
export function wrongCodesRefusal(count: WrongCodes, now: number): RateLimitedError {
  const seconds = Math.max(1, Math.ceil((count.waitUntil - now) / 1000));
  return new RateLimitedError(
    seconds,
    count.failures >= LOCKOUT_WRONG_CODES
      ? `${LOCKOUT_WRONG_CODES} wrong codes in a row for this e-mail address, so sign-in with a code is locked (the owner was told by mail)`
      : `${FREE_WRONG_CODES} wrong codes in a row for this e-mail address without a wait, which doubles with each further wrong code`,
  );
}

/** What a wrong code's answer adds about the wait it started (empty when none). */
export function waitNotice(count: WrongCodes, now: number): string {
  if (count.failures >= LOCKOUT_WRONG_CODES) {
    return `; ${count.failures} wrong codes in a row for this e-mail address: sign-in with a code is locked for ${LOCKOUT_HOURS} hours`;
  }
  if (count.waitUntil <= now) return '';
  return `; ${count.failures} wrong codes in a row for this e-mail address: the next code check is accepted in ${Math.ceil((count.waitUntil - now) / 1000)} s`;
}

/**
 * The operator's `satgate login unlock <email>`: forgets the e-mail's wrong codes, which lifts any wait or lockout,
 * and records it in the audit trail. Answers the count it had (null: none); 308 for a malformed e-mail, 301 when
 * no profile has it.
 */
export async function unlockLogin(db: Db, emailInput: string, now: number): Promise<{ email: string; had: WrongCodes | null }> {
  const email = loginEmail(emailInput);
  const profile = await findProfileByEmail(db, email);
  if (!profile) throw new DomainError('profile-not-found', `no dashboard profile has the e-mail ${email}`);
  return db.kysely.transaction().execute(async (trx) => {
    const had = await clearWrongCodes(trx, profile.id);
    if (had && had.failures > 0) {
      await recordAudit(trx, { action: 'login_unlocked', profileId: profile.id, email, detail: { in_a_row: had.failures, was_locked: isLockedOut(had, now) } }, now);
    }
    return { email, had };
  });
}
