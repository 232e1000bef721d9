// The Greenfield webhook events satgate sends and the exact bodies they carry (BTCPay's
// swagger.template.webhooks.json, as the PHP client and the shop plugins read them). Pure: no database, no clock.

/** Invoice events satgate produces, in BTCPay's names. */
export const GREENFIELD_INVOICE_EVENTS = [
  'InvoiceCreated',
  'InvoiceReceivedPayment',
  'InvoiceProcessing',
  'InvoicePaymentSettled',
  'InvoiceExpired',
  'InvoiceSettled',
  'InvoiceInvalid',
] as const;

/** One Greenfield invoice event type. */
export type GreenfieldEventType = (typeof GREENFIELD_INVOICE_EVENTS)[number];

/** Greenfield's payment method id for on-chain bitcoin, the only one satgate offers. */
export const ONCHAIN_PAYMENT_METHOD_ID = 'BTC-CHAIN';

/** One payment of an invoice as Greenfield shows it (`payments[]` of payment-methods, `payment` of events). */
export interface GreenfieldPayment {
  id: string;
  receivedDate: number;
  value: string;
  fee: string;
  status: 'Invalid' | 'Processing' | 'Settled';
  destination: string;
}

/** An event before it is addressed to a webhook: its type and the fields of that type. */
export interface InvoiceEvent {
  type: GreenfieldEventType;
  /** The per-type fields, each always present (false rather than left out). */
  fields: Record<string, unknown>;
}

/** Which events a webhook wants: all, or the listed ones. */
export interface AuthorizedEvents {
  everything: boolean;
  specificEvents: string[];
}

/** True when a webhook with these authorized events receives `type`. */
export function wants(authorized: AuthorizedEvents, type: string): boolean {
  return authorized.everything || authorized.specificEvents.includes(type);
}

/** The addressing of one delivery. */
export interface Delivery {
  deliveryId: string;
  webhookId: string;
  /** The first delivery of this event; equal to `deliveryId` unless this is a redelivery. */
  originalDeliveryId: string;
  isRedelivery: boolean;
  /** Unix seconds when this delivery was created. */
  timestamp: number;
}

/** The invoice an event is about. */
export interface InvoiceRef {
  storeId: string;
  invoiceId: string;
  metadata: Record<string, unknown>;
}

/**
 * The body of one delivery, fields in BTCPay's order: the delivery's addressing, the event type and time, the
 * store, invoice and metadata, then the event's own fields.
 */
export function eventBody(delivery: Delivery, invoice: InvoiceRef, event: InvoiceEvent): Record<string, unknown> {
  return {
    deliveryId: delivery.deliveryId,
    webhookId: delivery.webhookId,
    originalDeliveryId: delivery.originalDeliveryId,
    isRedelivery: delivery.isRedelivery,
    type: event.type,
    timestamp: delivery.timestamp,
    storeId: invoice.storeId,
    invoiceId: invoice.invoiceId,
    metadata: invoice.metadata,
    ...event.fields,
  };
}

/** A redelivery's body: the stored body with a new delivery id, pointing at the first delivery. */
export function redeliveryBody(stored: Record<string, unknown>, deliveryId: string, timestamp: number): Record<string, unknown> {
  const original = typeof stored.originalDeliveryId === 'string' && stored.originalDeliveryId !== '' ? stored.originalDeliveryId : stored.deliveryId;
  return { ...stored, deliveryId, originalDeliveryId: original, isRedelivery: true, timestamp };
}

/** Greenfield invoice statuses. */
export type GreenfieldStatus = 'New' | 'Processing' | 'Settled' | 'Expired' | 'Invalid';

/** What an invoice looks like now, as far as its events are concerned. */
export interface InvoiceFacts {
  status: GreenfieldStatus;
  additionalStatus: string;
  /** Every live payment, in the order received. */
  payments: { payment: GreenfieldPayment; settled: boolean }[];
}

/** What was already announced about the invoice. */
export interface Announced {
  /** null before InvoiceCreated. */
  status: GreenfieldStatus | null;
  /** Payment ids announced as received, and as settled. */
  received: ReadonlySet<string>;
  settled: ReadonlySet<string>;
}

/**
 * The events that take an invoice from what was announced to what it is now, in the order BTCPay sends them:
 * creation; each new payment; Processing when it became paid in full; each payment that settled; then the
 * final status. An invoice settled without having been announced Processing (a payment confirmed on first
 * sight) gets InvoiceProcessing first, as BTCPay's paid-in-full step comes before its confirmation; a manual
 * marking does not, nor an invoice settling after it was Invalid or Expired.
 */
export function eventsBetween(before: Announced, now: InvoiceFacts): InvoiceEvent[] {
  const events: InvoiceEvent[] = [];
  const marked = now.additionalStatus === 'Marked';
  const overPaid = now.additionalStatus === 'PaidOver';
  const afterExpiration = now.status === 'Expired' || now.status === 'Invalid' || before.status === 'Expired' || before.status === 'Invalid';
  if (before.status === null) events.push({ type: 'InvoiceCreated', fields: {} });
  const paymentFields = (p: GreenfieldPayment) => ({ afterExpiration, paymentMethodId: ONCHAIN_PAYMENT_METHOD_ID, payment: p });
  for (const { payment } of now.payments) {
    if (!before.received.has(payment.id)) events.push({ type: 'InvoiceReceivedPayment', fields: paymentFields(payment) });
  }
  const changed = now.status !== (before.status ?? 'New');
  const reachesProcessing =
    changed && (now.status === 'Processing' || (now.status === 'Settled' && !marked && (before.status === null || before.status === 'New')));
  if (reachesProcessing) events.push({ type: 'InvoiceProcessing', fields: { overPaid } });
  for (const { payment, settled } of now.payments) {
    if (settled && !before.settled.has(payment.id)) events.push({ type: 'InvoicePaymentSettled', fields: paymentFields(payment) });
  }
  if (changed) {
    if (now.status === 'Settled') events.push({ type: 'InvoiceSettled', fields: { manuallyMarked: marked, overPaid } });
    if (now.status === 'Expired') events.push({ type: 'InvoiceExpired', fields: { partiallyPaid: now.payments.length > 0 } });
    if (now.status === 'Invalid') events.push({ type: 'InvoiceInvalid', fields: { manuallyMarked: marked } });
  }
  return events;
}
