// A payment (with its Greenfield invoice row) as Greenfield's invoice JSON and payment-method JSON, written
// from BTCPay's OpenAPI document and what the PHP client reads. Decimals are JSON strings, times Unix seconds.
// Pure: the caller gathers the rows and facts.
import type { Selectable } from 'kysely';
import type { GreenfieldInvoicesTable } from '../db/schema.ts';
import type { PaymentRow } from '../payments/payment-record.ts';
import { btcFromSats } from '../money/money.ts';
import { addDecimals } from '../money/decimal.ts';
import { toPlain } from '../money/canonical-json.ts';
import { parseExactJson } from '../money/exact-json.ts';
import { markableStatuses, type GreenfieldStatusPair } from './status-map.ts';
import { ONCHAIN } from './invoice-request.ts';

/** A stored invoice row. */
export type InvoiceRow = Selectable<GreenfieldInvoicesTable>;

/** The effective checkout settings stored with an invoice (defaults filled in). */
export interface StoredCheckout {
  speedPolicy: string;
  expirationMinutes: number;
  monitoringMinutes: number;
  paymentTolerance: string;
  redirectURL: string | null;
  redirectAutomatically: boolean;
  defaultLanguage: string | null;
  requiresRefundEmail: boolean;
}

/** One output paying the invoice's address, as the payment-methods answer lists it. */
export interface InvoiceOutput {
  txid: string;
  vout: number;
  sats: bigint;
  /** Epoch ms first seen. */
  firstSeenAt: number;
  confirmations: number;
  /** Withdrawn from the chain (double spent, reorganised away). */
  withdrawn: boolean;
}

/** Seconds since the epoch, from milliseconds. */
export const unixSeconds = (ms: number | bigint): number => Math.floor(Number(ms) / 1000);

/** The hosted checkout link of an invoice: `/i/{invoiceId}`, which redirects to the payment page. */
export function checkoutLink(publicUrl: string, invoiceId: string): string {
  return `${publicUrl}/i/${encodeURIComponent(invoiceId)}`;
}

/** The Greenfield invoice (InvoiceData). */
export function invoiceJson(invoice: InvoiceRow, payment: PaymentRow, status: GreenfieldStatusPair, publicUrl: string): Record<string, unknown> {
  const checkout = JSON.parse(invoice.checkout_json) as StoredCheckout;
  return {
    id: invoice.invoice_id,
    storeId: invoice.store_id,
    amount: invoice.amount,
    paidAmount: paidAmount(invoice, payment),
    currency: invoice.currency,
    type: 'Standard',
    checkoutLink: checkoutLink(publicUrl, invoice.invoice_id),
    createdTime: unixSeconds(invoice.created_at),
    expirationTime: unixSeconds(payment.expiry_at),
    monitoringExpiration: unixSeconds(payment.monitor_until),
    status: status.status,
    additionalStatus: status.additionalStatus,
    availableStatusesForManualMarking: markableStatuses(status.status),
    archived: invoice.archived_at !== null,
    metadata: toPlain(parseExactJson(invoice.metadata_json)),
    checkout: {
      speedPolicy: checkout.speedPolicy,
      paymentMethods: [ONCHAIN],
      defaultPaymentMethod: ONCHAIN,
      lazyPaymentMethods: false,
      expirationMinutes: checkout.expirationMinutes,
      monitoringMinutes: checkout.monitoringMinutes,
      // BTCPay's document types the tolerance as a JSON number (a percent), unlike amounts.
      paymentTolerance: Number(checkout.paymentTolerance),
      redirectURL: checkout.redirectURL,
      redirectAutomatically: checkout.redirectAutomatically,
      requiresRefundEmail: checkout.requiresRefundEmail,
      defaultLanguage: checkout.defaultLanguage,
      checkoutType: null,
    },
    receipt: { enabled: null, showQR: null, showPayments: null },
    // satgate's own: the payment API v1 reference of the same payment (GET /api/v1/payment/{reference}).
    paymentReference: payment.reference,
  };
}

/** What was paid, in the invoice's currency: BTC or SATS exactly, a fiat currency at the rates the payment used. */
function paidAmount(invoice: InvoiceRow, payment: PaymentRow): string {
  const sats = payment.confirmed_sats + payment.unconfirmed_sats;
  if (invoice.currency === 'SATS') return sats.toString();
  if (invoice.currency === 'BTC') return btcFromSats(sats);
  return addDecimals(payment.confirmed_order_amount, payment.unconfirmed_order_amount);
}

/** BIP21 link of a payment: `bitcoin:<address>?amount=<btc>`. */
export function bip21(address: string, sats: bigint): string {
  return `bitcoin:${address}?amount=${btcFromSats(sats)}`;
}

/**
 * The invoice's one payment method (on-chain bitcoin) with its amounts in BTC and its payments, each `txid-vout`.
 * `required` is the confirmations that settle a payment.
 */
export function paymentMethodJson(payment: PaymentRow, address: string, outputs: readonly InvoiceOutput[], required: number): Record<string, unknown> {
  const paidSats = payment.confirmed_sats + payment.unconfirmed_sats;
  // BTCPay's document: due is negative when overpaid.
  const dueSats = payment.crypto_sats - paidSats;
  const btc = (sats: bigint) => (sats < 0n ? `-${btcFromSats(-sats, true)}` : btcFromSats(sats, true));
  return {
    paymentMethodId: ONCHAIN,
    paymentMethod: ONCHAIN,
    currency: 'BTC',
    cryptoCode: 'BTC',
    destination: address,
    paymentLink: bip21(address, dueSats > 0n ? dueSats : payment.crypto_sats),
    rate: payment.exchange_rate,
    paymentMethodPaid: btc(paidSats),
    totalPaid: btc(paidSats),
    due: btc(dueSats),
    amount: btc(payment.crypto_sats),
    // satgate adds no fee to what the payer owes.
    networkFee: '0',
    paymentMethodFee: '0',
    activated: true,
    additionalData: {},
    payments: outputs.map((o) => ({
      id: `${o.txid}-${o.vout}`,
      receivedDate: unixSeconds(o.firstSeenAt),
      value: btc(o.sats),
      fee: '0',
      status: o.withdrawn ? 'Invalid' : o.confirmations >= required ? 'Settled' : 'Processing',
      destination: address,
    })),
  };
}
