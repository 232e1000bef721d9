import type { Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { RateLimitedError } from '../core/domain-errors.ts';

/** One limit: at most `max` events of `key` in any `windowMs`. */
export interface Limit {
  key: string;
  max: number;
  windowMs: number;
  /** What the caller is told is limited, e.g. "codes for this e-mail address per minute". */
  describe: string;
}

// Too many requests is a refusal of the catalogue (core/domain-errors.ts); each face answers it (the wallet API:
// code 201 with a clear status on HTTP 429 and Retry-After).
export { RateLimitedError };

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
    await this.db.kysely.transaction().execute((trx) => this.consumeIn(trx, limits, now));
  }

  /**
   * As `consume`, inside the caller's transaction: the events are recorded only if that transaction commits, so a
   * call that fails after the check (or is refused by it) counts nothing. The buckets stay locked until it ends.
   */
  async consumeIn(trx: Transaction<Database>, limits: Limit[], now: number): Promise<void> {
    // A fixed order of keys: two checks locking the same buckets can never wait on each other in a cycle.
    const ordered = [...limits].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
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
    if (worst) throw new RateLimitedError(Math.max(1, Math.ceil(worst.waitMs / 1000)), worst.limit.describe);
    for (const limit of ordered) {
      await trx.insertInto('rate_limit_events').values({ key: limit.key, at: BigInt(now) }).execute();
    }
  }
}
