// Where status transitions are stored: each record kind's own table, and the one statement head that writes a row
// of it. `recordTransition` (notify/status-transition.ts) writes through it; so do the one-statement payment
// creations in db/ (a CTE on PostgreSQL, the writer thread on SQLite), which cannot call it without losing their
// single statement, so a transition row has one shape wherever it is written.
import type { Database } from './schema.ts';

/**
 * Each record kind's transition table and the column naming the record. Every such table has the columns
 * from_status, to_status, cause and at; a capability with statuses adds its table here.
 */
export const TRANSITION_TABLES = {
  payment_transitions: 'payment_id',
  refund_transitions: 'refund_id',
  form_transitions: 'form_id',
  address_order_transitions: 'address_order_id',
  partner_wallet_transitions: 'partner_wallet_id',
  withdrawal_transitions: 'withdrawal_id',
} as const satisfies { [T in keyof Database]?: string };

/** A transition table. */
export type TransitionTable = keyof typeof TRANSITION_TABLES;

/** `insert into <table> (<record column>, from_status, to_status, cause, at)`: what follows gives the values. */
export function transitionInsertHead(table: TransitionTable): string {
  return `insert into ${table} (${TRANSITION_TABLES[table]}, from_status, to_status, cause, at)`;
}

/** A payment's creation as a transition (creation notifies no one). */
export const PAYMENT_CREATED = { from: null, to: 'unpaid', cause: 'created' } as const;
