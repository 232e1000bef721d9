// The one way a record with a status changes it: the transition (from, to, cause, time) is stored and its
// notifications are queued in the caller's transaction, so both exist exactly when the change committed.
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { enqueueNotifications, type OutboxEntry } from './outbox.ts';

/**
 * Each record kind's transition table and the column naming the record. Every such table has the columns
 * from_status, to_status, cause and at; a capability with statuses adds its table here.
 */
export const TRANSITION_TABLES = {
  payment_transitions: 'payment_id',
  form_transitions: 'form_id',
  address_order_transitions: 'address_order_id',
} as const satisfies { [T in keyof Database]?: string };

/** A transition table. */
export type TransitionTable = keyof typeof TRANSITION_TABLES;

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
  await sql`insert into ${sql.table(t.table)} (${sql.ref(TRANSITION_TABLES[t.table])}, from_status, to_status, cause, at)
    values (${t.recordId}, ${t.from}, ${t.to}, ${t.cause}, ${BigInt(t.at)})`.execute(trx);
  if (notifications.length > 0) await enqueueNotifications(trx, [...notifications], t.at);
}
