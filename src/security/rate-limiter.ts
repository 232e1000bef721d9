import type { Db } from '../db/database.ts';
import { WalletApiError } from '../core/errors.ts';

/** One limit: at most `max` events of `key` in any `windowMs`. */
export interface Limit {
  key: string;
  max: number;
  windowMs: number;
  /** What the caller is told is limited, e.g. "codes for this e-mail address per minute". */
  describe: string;
}

/**
 * Too many requests: the wallet API's 201 ("Wrong or missing argument") with a clear status, answered with
 * HTTP 429 and `Retry-After` (the error handler writes the header from `retryAfterSeconds`).
 */
export class RateLimitedError extends WalletApiError {
  override readonly httpStatus = 429;
  constructor(
    readonly retryAfterSeconds: number,
    what: string,
  ) {
    super('201', `Too many requests: at most ${what}; try again in ${retryAfterSeconds} s`);
    this.name = 'RateLimitedError';
  }
}

/**
 * Sliding-window limits kept in the database, so they hold across restarts and across processes sharing one
 * PostgreSQL. A check first upserts each key's bucket row (a row lock on PostgreSQL, the write lock on SQLite),
 * so concurrent checks of one key are serialised and count the same events; then either every limit has room
 * and one event is recorded under each key, or nothing is recorded and the longest wait is reported.
 */
export class RateLimiter {
  constructor(private readonly db: Db) {}

  /** Records one event under every limit, or throws RateLimitedError when any of them is full. */
  async consume(limits: Limit[], now: number): Promise<void> {
    // A fixed order of keys: two checks locking the same buckets can never wait on each other in a cycle.
    const ordered = [...limits].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const refusal = await this.db.kysely.transaction().execute(async (trx) => {
      let worst: { waitMs: number; limit: Limit } | null = null;
      for (const limit of ordered) {
        await trx
          .insertInto('rate_limit_buckets')
          .values({ key: limit.key, touched_at: BigInt(now) })
          .onConflict((oc) => oc.column('key').doUpdateSet({ touched_at: BigInt(now) }))
          .execute();
        const since = BigInt(now - limit.windowMs);
        await trx.deleteFrom('rate_limit_events').where('key', '=', limit.key).where('at', '<=', since).execute();
        const recent = await trx
          .selectFrom('rate_limit_events')
          .select('at')
          .where('key', '=', limit.key)
          .where('at', '>', since)
          .orderBy('at', 'desc')
          .limit(limit.max)
          .execute();
        if (recent.length >= limit.max) {
          // Room comes back when the max-th most recent event leaves the window.
          const waitMs = Number(recent[limit.max - 1]!.at) + limit.windowMs - now;
          if (!worst || waitMs > worst.waitMs) worst = { waitMs, limit };
        }
      }
      if (worst) return worst;
      for (const limit of ordered) {
        await trx.insertInto('rate_limit_events').values({ key: limit.key, at: BigInt(now) }).execute();
      }
      return null;
    });
    if (refusal) throw new RateLimitedError(Math.max(1, Math.ceil(refusal.waitMs / 1000)), refusal.limit.describe);
  }
}
