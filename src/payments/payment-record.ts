// The payment record of INTERFACE.md 2.11 (operations 26 and 27) and the webhook body of 6.1, built
// from a stored payment. Amounts appear under both spellings, `*_amount` and `*_amt`; numbers are exact
// JSON numbers, or decimal strings in the rare case a value has more digits than a double can hold.
import type { Selectable } from 'kysely';
import { isoUtc } from '../core/clock.ts';
import type { PaymentsTable, WalletsTable } from '../db/schema.ts';
import { parseExactJson } from '../money/exact-json.ts';
import { btcFromSats } from '../money/money.ts';
import { exactNumber, toPlain } from '../money/canonical-json.ts';
import type { PaymentPageData } from '../pages/payment-page.ts';

/** A stored payment row. */
export type PaymentRow = Selectable<PaymentsTable>;

/** What a record needs from the payment's wallet and address. */
export interface RecordContext {
  wallet: Pick<Selectable<WalletsTable>, 'api_id' | 'account_name'>;
  address: string;
  publicUrl: string;
}

/** The request fields kept in `payments.request_json` (canonical JSON of the checked request). */
export interface StoredRequest {
  notify_email: string | null;
  notify_url: string | null;
  webhook_data_json: string | null;
  cart_json: string | null;
  success_url: string | null;
  cancel_url: string | null;
  payer_id: string;
  payer_name: string | null;
  payer_email: string | null;
  payer_phone: string | null;
  payer_ip: string | null;
}

/**
 * The stored request of a payment made from one of satgate's own pages (a pay button, a payment request): no shop
 * behind it to notify or return to, only who asked for it and what the page knows of the payer.
 */
export function pagePaymentRequest(payerId: string, payer: Pick<Partial<StoredRequest>, 'payer_email' | 'payer_ip'> = {}): StoredRequest {
  return {
    notify_email: null,
    notify_url: null,
    webhook_data_json: null,
    cart_json: null,
    success_url: null,
    cancel_url: null,
    payer_id: payerId,
    payer_name: null,
    payer_email: payer.payer_email ?? null,
    payer_phone: null,
    payer_ip: payer.payer_ip ?? null,
  };
}

/** The stored request of a payment. */
export function storedRequest(row: PaymentRow): StoredRequest {
  return JSON.parse(row.request_json) as StoredRequest;
}

/** Decimal amounts of a payment as strings (BTC amounts without trailing zeros). */
export function paymentAmounts(row: PaymentRow) {
  return {
    crypto_amount: btcFromSats(row.crypto_sats),
    order_amount: row.order_amount,
    exchange_rate: row.exchange_rate,
    unconfirmed_crypto_amount: btcFromSats(row.unconfirmed_sats),
    confirmed_crypto_amount: btcFromSats(row.confirmed_sats),
    unconfirmed_order_amount: row.unconfirmed_order_amount,
    confirmed_order_amount: row.confirmed_order_amount,
  };
}

/** The hosted page address of a payment. */
export function hostedUrl(publicUrl: string, reference: string): string {
  return `${publicUrl}/pay/${encodeURIComponent(reference)}`;
}

/** The payment record (2.11) with every field, both amount spellings. */
export function paymentRecord(row: PaymentRow, ctx: RecordContext): Record<string, unknown> {
  const req = storedRequest(row);
  const a = paymentAmounts(row);
  // Each amount is formatted once and written under both spellings.
  const crypto = exactNumber(a.crypto_amount);
  const order = exactNumber(a.order_amount);
  const unconfirmedCrypto = exactNumber(a.unconfirmed_crypto_amount);
  const confirmedCrypto = exactNumber(a.confirmed_crypto_amount);
  const unconfirmedOrder = exactNumber(a.unconfirmed_order_amount);
  const confirmedOrder = exactNumber(a.confirmed_order_amount);
  const record: Record<string, unknown> = {
    payment_reference: row.reference,
    type: row.type,
    crypto_currency: row.crypto_currency,
    crypto_address: row.status === 'invalid' ? '' : ctx.address,
    crypto_amount: crypto,
    crypto_amt: crypto,
    order_currency: row.order_currency,
    order_amount: order,
    order_amt: order,
    exchange_rate: exactNumber(a.exchange_rate),
    expiry_date: isoUtc(Number(row.expiry_at)),
    unconfirmed_crypto_amount: unconfirmedCrypto,
    unconfirmed_crypto_amt: unconfirmedCrypto,
    confirmed_crypto_amount: confirmedCrypto,
    confirmed_crypto_amt: confirmedCrypto,
    unconfirmed_order_amount: unconfirmedOrder,
    unconfirmed_order_amt: unconfirmedOrder,
    confirmed_order_amount: confirmedOrder,
    confirmed_order_amt: confirmedOrder,
    status: row.status,
    status_date: isoUtc(Number(row.status_at)),
    webhook_data: req.webhook_data_json === null ? null : toPlain(parseExactJson(req.webhook_data_json)),
    site_name: ctx.wallet.account_name ?? '',
    cart: req.cart_json === null ? null : toPlain(parseExactJson(req.cart_json)),
  };
  if (row.type === 'hosted') record.hosted_url = hostedUrl(ctx.publicUrl, row.reference);
  return record;
}

/** The webhook body of 6.1: `event: "payment"`, the API ID, and the record's fields. */
export function webhookBody(row: PaymentRow, ctx: RecordContext): Record<string, unknown> {
  return { event: 'payment', api_id: ctx.wallet.api_id, ...paymentRecord(row, ctx) };
}

/** What the hosted page (src/pages) shows of a payment. */
export function pageData(row: PaymentRow, ctx: RecordContext): PaymentPageData {
  const req = storedRequest(row);
  const a = paymentAmounts(row);
  return {
    reference: row.reference,
    site_name: ctx.wallet.account_name ?? '',
    order_amount: a.order_amount,
    order_currency: row.order_currency,
    crypto_amount: a.crypto_amount,
    crypto_address: row.status === 'invalid' ? '' : ctx.address,
    crypto_currency: row.crypto_currency,
    expiry_date: isoUtc(Number(row.expiry_at)),
    status: row.status,
    success_url: req.success_url,
    cancel_url: req.cancel_url,
    amounts: {
      unconfirmed_crypto_amount: a.unconfirmed_crypto_amount,
      confirmed_crypto_amount: a.confirmed_crypto_amount,
      unconfirmed_order_amount: a.unconfirmed_order_amount,
      confirmed_order_amount: a.confirmed_order_amount,
    },
  };
}
