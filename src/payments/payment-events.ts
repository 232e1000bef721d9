// What a payment's status change is called in its notifications, and where those go.
import type { Selectable } from 'kysely';
import type { WalletsTable } from '../db/schema.ts';
import type { OutboxEntry } from '../notify/outbox.ts';
import { storedRequest, webhookBody, type PaymentRow } from './payment-record.ts';
import type { PaymentStatus } from './payment-status.ts';

/** The webhook `event_type` of a payment event, beside the interface's `event: "payment"`. */
export type PaymentEventType = 'payment.created' | 'payment.unpaid' | 'payment.detected' | 'payment.confirmed' | 'payment.invalid';

/** The event a transition to `to` is (from null: the creation). */
export function paymentEventType(from: string | null, to: PaymentStatus): PaymentEventType {
  if (from === null) return 'payment.created';
  if (to === 'invalid') return 'payment.invalid';
  if (to === 'unpaid') return 'payment.unpaid';
  return to.startsWith('confirmed') ? 'payment.confirmed' : 'payment.detected';
}

/**
 * The webhook (to the request's notify_url, else the wallet's return_url) and e-mail (notify_email, else the
 * wallet's notification_email) of a payment's status change, carrying the payment record as it now stands.
 */
export function paymentNotifications(
  row: PaymentRow,
  wallet: Selectable<WalletsTable>,
  address: string,
  publicUrl: string,
  eventType: PaymentEventType,
): OutboxEntry[] {
  const body = { ...webhookBody(row, { wallet, address, publicUrl }), event_type: eventType };
  const req = storedRequest(row);
  const entries: OutboxEntry[] = [];
  const url = req.notify_url ?? wallet.return_url;
  if (url) entries.push({ kind: 'webhook', target: url, payload: body, walletId: wallet.id, paymentId: row.id });
  const email = req.notify_email ?? wallet.notification_email;
  if (email) entries.push({ kind: 'email', target: email, payload: body, walletId: wallet.id, paymentId: row.id });
  return entries;
}
