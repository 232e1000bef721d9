import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import { DomainError } from '../core/domain-errors.ts';
import type { MasterKey } from '../security/master-key.ts';
import type { RateLimiter, Limit } from '../security/rate-limiter.ts';
import { enqueueNotifications } from '../notify/outbox.ts';
import { sealedMailPayload } from '../notify/sealed-mail.ts';
import { recordAudit } from '../security/audit.ts';
import { lockoutMail, otpMail, OTP_MINUTES } from './otp-mail.ts';
import {
  clearWrongCodes,
  countWrongCode,
  isLockedOut,
  lockWrongCodes,
  LOCKOUT_HOURS,
  LOCKOUT_WRONG_CODES,
  readWrongCodes,
  waitNotice,
  wrongCodesRefusal,
} from './login-failures.ts';
import {
  applyProfileChanges,
  ensureProfile,
  findProfileByEmail,
  loginEmail,
  profileChanges,
  type ProfileChanges,
  type ProfileField,
  type ProfileRow,
} from './profiles.ts';
import { DEFAULT_SESSION_SECONDS, MAX_SESSION_SECONDS, type Sessions } from './sessions.ts';

/** Wrong tries a code survives: the 5th wrong one kills it (306). */
export const MAX_OTP_FAILURES = 5;
const MINUTE = 60_000;

/** What login needs. */
export interface LoginDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  masterKey: MasterKey;
  sessions: Sessions;
  limiter: RateLimiter;
  /** The service's public base URL, named in the mail. */
  publicUrl: string;
}

/** send_otp's fields, already schema-checked for type. */
export type SendOtpInput = { email: string } & Partial<Record<ProfileField, string>>;

/** check_otp's fields, already schema-checked for type. */
export interface CheckOtpInput {
  email: string;
  otp: string;
  expiration?: number;
}

/**
 * E-mail one-time-password login (DESIGN.md 9 "dashboard login"): 6-digit codes from the CSPRNG, stored only
 * as an HMAC under a key derived from the master key (a database dump alone cannot test the million codes),
 * 10 minutes, single use, the 5th wrong try kills the code; limits per e-mail and per IP held in the database.
 * Wrong codes are also counted per e-mail across codes until a sign-in (login-failures.ts): a growing wait from
 * the 10th in a row, a 24-hour lockout from the 100th, announced to the owner by mail.
 */
export class Login {
  private readonly hmacKey: Buffer;

  constructor(private readonly deps: LoginDeps) {
    this.hmacKey = deps.masterKey.deriveKey('dashboard-otp');
  }

  /** Operation 18: creates the profile on first use and mails a new code (replacing any previous one). */
  async sendOtp(input: SendOtpInput, ip: string | null): Promise<void> {
    const email = loginEmail(input.email);
    const changes = profileChanges(input);
    const now = this.deps.clock();
    await this.deps.limiter.consume(sendLimits(email, ip), now);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const nonce = randomBytes(16).toString('hex');
    const refusal = await this.deps.db.kysely.transaction().execute(async (trx) => {
      const { profile, created } = await ensureProfile(trx, email, now);
      // A locked-out e-mail gets no code: it could not be used, and the owner was already told by mail. Like every
      // rate-limited request, the refusal is not recorded in the audit trail (a flood would flood the trail too).
      const wrong = await readWrongCodes(trx, profile.id);
      if (isLockedOut(wrong, now)) return wrongCodesRefusal(wrong, now);
      const previous = await trx.selectFrom('dashboard_otps').select(['state', 'failures']).where('profile_id', '=', profile.id).executeTakeFirst();
      // A resent code keeps the failures of the one it replaces; only a used or killed code starts afresh.
      const failures = previous?.state === 'open' ? previous.failures : 0n;
      const row = {
        nonce,
        code_hash: this.hash(profile.id, nonce, code),
        state: 'open' as const,
        failures,
        issued_at: BigInt(now),
        expires_at: BigInt(now + OTP_MINUTES * MINUTE),
        // Fields posted here are applied when this code is used: the code proves the e-mail, the request does not.
        pending_fields_json: Object.keys(changes).length > 0 ? JSON.stringify(changes) : null,
        requested_ip: ip,
      };
      await trx
        .insertInto('dashboard_otps')
        .values({ profile_id: profile.id, ...row })
        .onConflict((oc) => oc.column('profile_id').doUpdateSet(row))
        .execute();
      const message = otpMail(code, ip, this.deps.publicUrl);
      await enqueueNotifications(
        trx,
        [{ kind: 'email', target: email, payload: sealedMailPayload(this.deps.masterKey, 'dashboard_otp', message), walletId: null, paymentId: null }],
        now,
      );
      await recordAudit(trx, { action: 'otp_sent', profileId: profile.id, email, ip, detail: { new_profile: created } }, now);
      return null;
    });
    if (refusal) throw refusal;
  }

  /**
   * Until when the e-mail's last code can still be used (epoch ms), or null when there is none (never asked, used,
   * ended by wrong tries, expired) or code sign-in is locked. For the console after a refused send: a code the
   * merchant already has still works, so they are offered the code form instead of a dead end.
   */
  async openCodeUntil(emailText: string): Promise<number | null> {
    const email = loginEmail(emailText);
    const profile = await findProfileByEmail(this.deps.db, email);
    if (!profile) return null;
    const now = this.deps.clock();
    const wrong = await readWrongCodes(this.deps.db.kysely, profile.id);
    if (isLockedOut(wrong, now)) return null;
    const otp = await this.deps.db.kysely.selectFrom('dashboard_otps').select(['state', 'expires_at']).where('profile_id', '=', profile.id).executeTakeFirst();
    return otp && otp.state === 'open' && Number(otp.expires_at) > now ? Number(otp.expires_at) : null;
  }

  /** Operation 19: checks the code and opens a session; answers 301, 305, 306 or 307 otherwise. */
  async checkOtp(input: CheckOtpInput, ip: string | null): Promise<{ token: string; expiresAt: number }> {
    const email = loginEmail(input.email);
    if (!/^[0-9]{6}$/.test(input.otp)) throw new DomainError('invalid', 'Wrong or missing argument: otp must be the 6 digits from the e-mail');
    const seconds = input.expiration ?? DEFAULT_SESSION_SECONDS;
    if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_SESSION_SECONDS) {
      throw new DomainError('invalid', `Wrong or missing argument: expiration must be whole seconds from 1 to ${MAX_SESSION_SECONDS}`);
    }
    const now = this.deps.clock();
    await this.deps.limiter.consume(checkLimits(ip), now);
    const { db } = this.deps;
    const profile = await findProfileByEmail(db, email);
    if (!profile) {
      await recordAudit(db.kysely, { action: 'login_refused', email, ip, detail: { reason: 'unknown_profile' } }, now);
      throw new DomainError('profile-not-found', 'Profile not found: ask for a code with /send_otp first');
    }
    // One transaction per check, begun by locking the e-mail's wrong-code count: concurrent checks of one e-mail
    // are counted one after another, so none is compared during a wait another one started.
    const outcome = await db.kysely.transaction().execute((trx) => this.checkCode(trx, profile, email, input.otp, seconds, ip, now));
    if (outcome instanceof Error) throw outcome;
    return outcome;
  }

  /** check_otp's work under the lock of the e-mail's wrong-code count: answers the session or the refusal to throw. */
  private async checkCode(
    trx: Transaction<Database>,
    profile: ProfileRow,
    email: string,
    presented: string,
    seconds: number,
    ip: string | null,
    now: number,
  ): Promise<{ token: string; expiresAt: number } | DomainError> {
    // Refusals are recorded and committed, then thrown by the caller.
    const refuse = async (reason: string, error: DomainError): Promise<DomainError> => {
      await recordAudit(trx, { action: 'login_refused', profileId: profile.id, email, ip, detail: { reason } }, now);
      return error;
    };
    const wrong = await lockWrongCodes(trx, profile.id, now);
    // Within a wait no code is compared, not even the right one: otherwise the wait would not slow guessing. As a
    // rate-limited request the refusal is not recorded (the lockout's start is, as login_locked).
    if (wrong.waitUntil > now) return wrongCodesRefusal(wrong, now);
    const otp = await trx.selectFrom('dashboard_otps').selectAll().where('profile_id', '=', profile.id).executeTakeFirst();
    if (!otp || otp.state === 'used') return refuse('no_code', new DomainError('code-not-asked', 'No OTP was asked for this profile: ask for one with /send_otp'));
    if (otp.state === 'dead') return refuse('code_dead', new DomainError('code-spent', 'Wrong OTP, ask for an OTP again: this code had too many wrong tries'));
    if (Number(otp.expires_at) <= now) return refuse('code_expired', new DomainError('code-spent', 'Wrong OTP, ask for an OTP again: this code has expired'));

    if (!this.matches(profile.id, otp.nonce, presented, otp.code_hash)) {
      const inARow = await countWrongCode(trx, profile.id, now);
      const notice = waitNotice(inARow, now);
      if (inARow.failures === LOCKOUT_WRONG_CODES) {
        // The lockout starts: tell the owner once (later wrong codes lock again without a mail).
        const message = lockoutMail(inARow.failures, inARow.waitUntil, ip, this.deps.publicUrl, LOCKOUT_HOURS);
        await enqueueNotifications(
          trx,
          [{ kind: 'email', target: email, payload: sealedMailPayload(this.deps.masterKey, 'dashboard_lockout', message), walletId: null, paymentId: null }],
          now,
        );
        await recordAudit(trx, { action: 'login_locked', profileId: profile.id, email, ip, detail: { in_a_row: inARow.failures, until: inARow.waitUntil } }, now);
      }
      const counted = await trx
        .updateTable('dashboard_otps')
        .set({
          failures: sql`failures + 1`,
          state: sql`case when failures + 1 >= ${MAX_OTP_FAILURES} then 'dead' else 'open' end`,
        })
        .where('profile_id', '=', profile.id)
        .where('nonce', '=', otp.nonce)
        .where('state', '=', 'open')
        .returning(['failures', 'state'])
        .executeTakeFirst();
      if (!counted) return refuse('code_replaced', new DomainError('code-spent', `Wrong OTP, ask for an OTP again${notice}`));
      const failures = Number(counted.failures);
      if (counted.state === 'dead') {
        await recordAudit(trx, { action: 'otp_locked', profileId: profile.id, email, ip, detail: { failures, in_a_row: inARow.failures } }, now);
        return new DomainError('code-spent', `Wrong OTP, ask for an OTP again: ${MAX_OTP_FAILURES} wrong tries ended this code${notice}`);
      }
      await recordAudit(trx, { action: 'otp_failed', profileId: profile.id, email, ip, detail: { failures, in_a_row: inARow.failures } }, now);
      const left = MAX_OTP_FAILURES - failures;
      return new DomainError('code-wrong', `Wrong OTP: ${left} ${left === 1 ? 'try' : 'tries'} left for this code${notice}`);
    }

    const used = await trx
      .updateTable('dashboard_otps')
      .set({ state: 'used', failures: 0n, pending_fields_json: null })
      .where('profile_id', '=', profile.id)
      .where('nonce', '=', otp.nonce)
      .where('state', '=', 'open')
      .returning('profile_id')
      .executeTakeFirst();
    if (!used) return refuse('no_code', new DomainError('code-not-asked', 'No OTP was asked for this profile: this code was already used'));
    await clearWrongCodes(trx, profile.id);
    const pending = otp.pending_fields_json ? (JSON.parse(otp.pending_fields_json) as ProfileChanges) : {};
    const changed = await applyProfileChanges(trx, profile.id, pending, now);
    const session = await this.deps.sessions.open(trx, profile.id, seconds, ip);
    await recordAudit(trx, { action: 'login', profileId: profile.id, email, ip, detail: { session_seconds: seconds, ...(changed.length ? { profile_fields: changed } : {}) } }, now);
    return session;
  }

  private hash(profileId: bigint, nonce: string, code: string): string {
    return createHmac('sha256', this.hmacKey).update(`${profileId}:${nonce}:${code}`, 'utf8').digest('hex');
  }

  /** Constant-time comparison of the presented code's HMAC with the stored one. */
  private matches(profileId: bigint, nonce: string, code: string, stored: string): boolean {
    const a = Buffer.from(this.hash(profileId, nonce, code), 'hex');
    const b = Buffer.from(stored, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

/** send_otp: per e-mail 1 a minute and 10 an hour; per IP 30 an hour (mail bombing many addresses). */
export function sendLimits(email: string, ip: string | null): Limit[] {
  const limits: Limit[] = [
    { key: `send_otp:email:minute:${email}`, max: 1, windowMs: MINUTE, describe: '1 code a minute for this e-mail address' },
    { key: `send_otp:email:hour:${email}`, max: 10, windowMs: 60 * MINUTE, describe: '10 codes an hour for this e-mail address' },
  ];
  if (ip) limits.push({ key: `send_otp:ip:${ip}`, max: 30, windowMs: 60 * MINUTE, describe: '30 codes an hour from one IP address' });
  return limits;
}

/** check_otp: per IP 30 tries in 5 minutes. */
export function checkLimits(ip: string | null): Limit[] {
  return ip ? [{ key: `check_otp:ip:${ip}`, max: 30, windowMs: 5 * MINUTE, describe: '30 code checks in 5 minutes from one IP address' }] : [];
}
