import { sql } from 'kysely';
import type { Db } from './database.ts';
import type { OutboxTable } from './schema.ts';
import type { Selectable } from 'kysely';

/** An outbox row as claimed by a worker. */
export type OutboxRow = Selectable<OutboxTable>;

/**
 * Claims up to `limit` due outbox rows for `lockMs`, so no other worker takes them meanwhile. PostgreSQL
 * skips rows other workers hold (FOR UPDATE SKIP LOCKED); SQLite has one writer, so a plain update suffices.
 */
export async function claimDueOutbox(db: Db, now: number, limit: number, lockMs: number): Promise<OutboxRow[]> {
  const until = BigInt(now + lockMs);
  const at = BigInt(now);
  const skipLocked = db.engine === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql<OutboxRow>`
    update outbox set locked_until = ${until}
    where id in (
      select id from outbox
      where state = 'pending' and next_attempt_at <= ${at} and (locked_until is null or locked_until <= ${at})
      order by next_attempt_at, id
      limit ${limit}
      ${skipLocked}
    )
    returning *`.execute(db.kysely);
  return result.rows;
}
