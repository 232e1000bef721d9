import type { Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import { hashToken, newToken } from '../security/tokens.ts';
import type { DashboardSession, SessionCheck, SessionVerifier } from '../http/dashboard-auth.ts';

export type { DashboardSession, SessionCheck, SessionVerifier };

/** Default session lifetime (INTERFACE.md section 8) and the longest one a caller may ask for (DESIGN.md 9). */
export const DEFAULT_SESSION_SECONDS = 7200;
export const MAX_SESSION_SECONDS = 30 * 86_400;

/**
 * Dashboard sessions: opaque 32-byte tokens, stored only as their SHA-256 (a token has full entropy, so a
 * fast hash is enough and lookups stay an index probe), ending at `expires_at` or at logout.
 */
export class Sessions implements SessionVerifier {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Opens a session in the caller's transaction and returns its token (shown once). */
  async open(trx: Transaction<Database>, profileId: bigint, seconds: number, ip: string | null): Promise<{ token: string; expiresAt: number }> {
    const token = newToken(32);
    const now = this.clock();
    // The profile's sessions that ended or expired over a day ago are of no use to anyone: drop them here,
    // where the profile's rows are touched anyway, rather than in a sweeper of its own.
    const stale = BigInt(now - 86_400_000);
    await trx
      .deleteFrom('dashboard_sessions')
      .where('profile_id', '=', profileId)
      .where((eb) => eb.or([eb('expires_at', '<', stale), eb('ended_at', '<', stale)]))
      .execute();
    const expiresAt = now + seconds * 1000;
    await trx
      .insertInto('dashboard_sessions')
      .values({ token_hash: hashToken(token), profile_id: profileId, created_at: BigInt(now), expires_at: BigInt(expiresAt), ended_at: null, ip })
      .execute();
    return { token, expiresAt };
  }

  /** 303 for a token never issued or ended by logout, 304 for one past its expiration. */
  async verify(token: string): Promise<SessionCheck> {
    const row = await this.db.kysely
      .selectFrom('dashboard_sessions as s')
      .innerJoin('profiles as p', 'p.id', 's.profile_id')
      .select(['s.id', 's.profile_id', 's.expires_at', 's.ended_at', 'p.email'])
      .where('s.token_hash', '=', hashToken(token))
      .executeTakeFirst();
    if (!row || row.ended_at !== null) return { ok: false, code: '303' };
    if (Number(row.expires_at) <= this.clock()) return { ok: false, code: '304' };
    return { ok: true, session: { sessionId: row.id, profileId: row.profile_id, email: row.email, token, expiresAt: Number(row.expires_at) } };
  }

  /** Ends a session (logout); later use of its token answers 303. */
  async end(sessionId: bigint): Promise<void> {
    await this.db.kysely.updateTable('dashboard_sessions').set({ ended_at: BigInt(this.clock()) }).where('id', '=', sessionId).where('ended_at', 'is', null).execute();
  }
}
