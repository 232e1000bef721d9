// The one way a record with a status changes it: the transition (from, to, cause, time) is stored and its
// notifications are queued in the caller's transaction, so both exist exactly when the change committed.
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { transitionInsertHead, type TransitionTable } from '../db/transitions.ts';
import { enqueueNotifications, type OutboxEntry } from './outbox.ts';

export { TRANSITION_TABLES, type TransitionTable } from '../db/transitions.ts';

/** One status change of one record; `from` is null when the record is created. */
export interface StatusTransition {
  table: TransitionTable;
  recordId: bigint;
  from: string | null;
  to: string;
  cause: string;
  at: number;
}

/** Stores the transition and queues its notifications (webhooks, e-mails) in the same transaction. */
export async function recordTransition(trx: Transaction<Database>, t: StatusTransition, notifications: readonly OutboxEntry[]): Promise<void> {
  await sql`${sql.raw(transitionInsertHead(t.table))} values (${t.recordId}, ${t.from}, ${t.to}, ${t.cause}, ${BigInt(t.at)})`.execute(trx);
  if (notifications.length > 0) await enqueueNotifications(trx, [...notifications], t.at);
}
