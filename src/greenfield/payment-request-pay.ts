// BTCPay's POST …/stores/{storeId}/payment-requests/{paymentRequestId}/pay ("create an invoice for the payment
// request", swagger.template.payment-requests.json, PaymentRequests_Pay): a Greenfield invoice for the part asked
// (`amount`, or what is due), linked to the request as one of its parts in the invoice's own transaction, answered
// as InvoiceData. `allowPendingInvoiceReuse` answers the newest invoice of the request still New (nothing paid,
// not expired) instead, when its amount is the one asked. Refusals: 400 `archived`, `expired`, `already-paid`;
// a bad amount 422.
import { isJsonObject, JsonNumber, type JsonValue } from '../money/exact-json.ts';
import { compareDecimals } from '../money/decimal.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';
import { partToPay, unpayable, type PaymentRequests } from '../payment-requests/payment-requests.ts';
import { GreenfieldError, GreenfieldValidationError, type GreenfieldFieldError } from './errors.ts';
import type { GreenfieldInvoices } from './invoices.ts';

/** The body, read strictly: amount a decimal string (or a JSON number, as BTCPay reads it) or null, the flag a boolean or null. */
function readPayBody(body: JsonValue | undefined): { amount: string | null; reuse: boolean } {
  if (body === undefined || body === null) return { amount: null, reuse: false };
  if (!isJsonObject(body)) throw new GreenfieldValidationError([{ path: '', message: 'The body must be a JSON object' }]);
  const errors: GreenfieldFieldError[] = [];
  for (const key of Object.keys(body)) if (key !== 'amount' && key !== 'allowPendingInvoiceReuse') errors.push({ path: key, message: 'is not a field of this request' });
  let amount: string | null = null;
  const a = body.amount;
  if (typeof a === 'string') amount = a;
  else if (a instanceof JsonNumber && /^\d+(\.\d+)?$/.test(a.text)) amount = a.text;
  else if (a !== undefined && a !== null) errors.push({ path: 'amount', message: 'must be a positive decimal string, like "12.50"' });
  const r = body.allowPendingInvoiceReuse;
  if (r !== undefined && r !== null && typeof r !== 'boolean') errors.push({ path: 'allowPendingInvoiceReuse', message: 'must be true or false' });
  if (errors.length > 0) throw new GreenfieldValidationError(errors);
  return { amount, reuse: r === true };
}

/** Creates (or reuses) the invoice paying a part of the store's payment request. */
export async function payPaymentRequest(
  deps: { requests: PaymentRequests; invoices: GreenfieldInvoices },
  wallet: WalletRow,
  requestId: string,
  body: JsonValue | undefined,
  keyId: string | null,
): Promise<Record<string, unknown>> {
  const { amount, reuse } = readPayBody(body);
  const view = await deps.requests.get(wallet, requestId);
  const refused = unpayable(view);
  if (refused) throw new GreenfieldError(400, refused.code, refused.message);
  if (reuse) {
    const pending = await pendingInvoice(deps, view.row.id, amount);
    if (pending) return pending;
  }
  const part = partToPay(view, amount);
  const invoiceBody: JsonValue = {
    amount: part,
    currency: view.row.currency,
    metadata: {
      orderId: `PAY_REQUEST_${view.row.request_id}`,
      paymentRequestId: view.row.request_id,
      ...(view.row.payer_email !== null ? { buyerEmail: view.row.payer_email } : {}),
      itemDesc: view.row.title,
    },
  };
  return deps.invoices.create(wallet, invoiceBody, keyId, async (trx, payment) => {
    await trx.insertInto('payment_request_parts').values({ payment_id: payment.id, request_row_id: view.row.id, amount: part, created_at: payment.created_at }).execute();
  });
}

/** The newest invoice of the request still New with nothing received, of the amount asked (any, when none is). */
async function pendingInvoice(deps: { requests: PaymentRequests; invoices: GreenfieldInvoices }, requestRowId: bigint, amount: string | null): Promise<Record<string, unknown> | undefined> {
  const rows = await deps.invoices.partInvoices(requestRowId);
  for (const row of rows) {
    const view = await deps.invoices.view(row);
    if (view.status.status !== 'New' || view.outputs.length > 0) continue;
    if (amount !== null && compareDecimals(amount, row.amount) !== 0) continue;
    return deps.invoices.json(view);
  }
  return undefined;
}
