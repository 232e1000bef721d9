// The one place an order's status changes (forms and set_addr orders): the new state is stored, the
// transition recorded with its cause and time, and its notifications queued, all in the caller's transaction.
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { enqueueNotifications, type OutboxEntry } from './outbox.ts';

/** Which table an order lives in. */
export type OrderKind = 'form' | 'address';

/** A change to apply: status columns, with the transition when the order status moved. */
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

/** Stores the derived state, records a transition when `from` differs from `to`, and queues the notifications. */
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
    await trx.insertInto('order_transitions').values({ order_kind: c.kind, order_id: c.id, from_status: c.from, to_status: c.to, cause: c.cause, at: BigInt(c.at) }).execute();
  }
  await enqueueNotifications(trx, c.notifications, c.at);
}
