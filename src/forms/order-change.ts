// Stores a re-derived order state (payment form or set_addr order). A change of order status goes through the
// one transition path (notify/status-transition.ts) with its notifications; notifications without a status
// change (a confirmation, a new transaction) are queued in the same transaction.
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { enqueueNotifications, type OutboxEntry } from '../notify/outbox.ts';
import { recordTransition } from '../notify/status-transition.ts';

/** Which table an order lives in. */
export type OrderKind = 'form' | 'address';

/** A state to store, with the transition when the order status moved. */
export interface OrderChange {
  kind: OrderKind;
  id: bigint;
  from: string | null;
  to: string;
  paymentStatus: string;
  cause: string;
  at: number;
  snapshot: Record<string, boolean>;
  openTxs: number;
  notifications: OutboxEntry[];
}

/** Stores the derived state columns, records a transition when `from` differs from `to`, and queues the notifications. */
export async function applyOrderChange(trx: Transaction<Database>, c: OrderChange): Promise<void> {
  const set = {
    order_status: c.to,
    payment_status: c.paymentStatus,
    tx_snapshot_json: JSON.stringify(c.snapshot),
    open_txs: BigInt(c.openTxs),
    ...(c.from !== c.to ? { status_at: BigInt(c.at) } : {}),
  };
  if (c.kind === 'form') await trx.updateTable('payment_forms').set(set).where('id', '=', c.id).execute();
  else await trx.updateTable('address_orders').set(set).where('id', '=', c.id).execute();
  if (c.from !== c.to) {
    const table = c.kind === 'form' ? 'form_transitions' : 'address_order_transitions';
    await recordTransition(trx, { table, recordId: c.id, from: c.from, to: c.to, cause: c.cause, at: c.at }, c.notifications);
  } else if (c.notifications.length > 0) {
    await enqueueNotifications(trx, c.notifications, c.at);
  }
}
