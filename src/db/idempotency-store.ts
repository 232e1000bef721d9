// The one store behind `Idempotency-Key` on every creation route: a key used again within 24 h by the same caller
// (scope) with the same body replays the first answer; with another body, or while the first is still running, it is
// refused. The claim is made inside the creation's own transaction, so the answer and the record commit together.
import { ReasonError } from '../core/errors.ts';
import type { Kysely, Transaction } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './schema.ts';

/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/** The answer stored for a key and replayed as is. */
export interface StoredAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** `reused`: the key came with another body; `in-use`: the first request with it has not finished. */
export class IdempotencyError extends ReasonError<'reused' | 'in-use'> {}

/** Idempotency keys by scope (the authenticated caller, e.g. `oauth-client:7`). */
export class IdempotencyStore {
  constructor(private readonly db: Db) {}

  /** The stored answer for the key within the window, if complete; throws `reused` for a different body hash. */
  async replay(scope: string, key: string, bodyHash: string, now: number, trx: Kysely<Database> = this.db.kysely): Promise<StoredAnswer | undefined> {
    const row = await trx
      .selectFrom('idempotency_keys')
      .select(['body_hash', 'response_json'])
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('created_at', '>', BigInt(now - IDEMPOTENCY_WINDOW_MS))
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.body_hash !== bodyHash) throw new IdempotencyError('reused', 'This Idempotency-Key was already used with a different request body.');
    if (row.response_json === null) return undefined;
    return JSON.parse(row.response_json) as StoredAnswer;
  }

  /**
   * Claims the key inside the creating transaction. Returns a replay when a twin committed first; throws `in-use`
   * while it is still running. The primary key (scope, key) makes concurrent twins wait for the first to commit.
   */
  async claim(trx: Transaction<Database>, scope: string, key: string, bodyHash: string, now: number): Promise<StoredAnswer | undefined> {
    await trx
      .deleteFrom('idempotency_keys')
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('created_at', '<=', BigInt(now - IDEMPOTENCY_WINDOW_MS))
      .execute();
    const claimed = await trx
      .insertInto('idempotency_keys')
      .values({ scope, key, body_hash: bodyHash, response_json: null, created_at: BigInt(now) })
      .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (claimed) return undefined;
    const replay = await this.replay(scope, key, bodyHash, now, trx);
    if (replay) return replay;
    throw new IdempotencyError('in-use', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  }

  /** Stores the answer of a claimed key, in the same transaction as what it created. */
  async complete(trx: Transaction<Database>, scope: string, key: string, answer: StoredAnswer): Promise<void> {
    await trx
      .updateTable('idempotency_keys')
      .set({ response_json: JSON.stringify(answer) })
      .where('scope', '=', scope)
      .where('key', '=', key)
      .execute();
  }
}
