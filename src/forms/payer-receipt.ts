// The payer's receipt of a paid payment form: sent only when the payer ticked "E-mail me a receipt", once, when the
// order is paid and confirmed. Plain text; the message holds the order page's address (and so the form token), so
// it is queued sealed (notify/sealed-mail.ts) and the outbox never holds the token in clear.
import { fiatForDisplay } from '../money/fiat-display.ts';

/** The outbox event name of a payer receipt. */
export const PAYER_RECEIPT_EVENT = 'payer_receipt';

/** What a receipt says. */
export interface PayerReceipt {
  /** The shop's name as the payer saw it; "" when there is none (neutral wording then). */
  shopName: string;
  orderId: string;
  /** Plain decimal in `orderCurrency`. */
  orderAmount: string;
  orderCurrency: string;
  /** What was received, plain decimal in `cryptoCurrency`. */
  paidCrypto: string;
  cryptoCurrency: string;
  txids: readonly string[];
  /** The order page (the payment form's page). */
  orderPageUrl: string;
}

/** Merchant text on one line: no control characters (a subject line must not carry a header break). */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

/** The receipt as a plain-text message. */
export function renderPayerReceipt(r: PayerReceipt): { subject: string; text: string } {
  const shop = oneLine(r.shopName);
  const subject = shop === '' ? 'Your payment receipt' : `Your payment receipt from ${shop}`;
  const lines = [
    shop === '' ? 'Thank you for your payment. It has been received and confirmed.' : `Thank you for your payment to ${shop}. It has been received and confirmed.`,
    '',
    `Order: ${oneLine(r.orderId)}`,
    `Amount: ${fiatForDisplay(r.orderAmount, r.orderCurrency)} ${r.orderCurrency}`,
    `Paid: ${r.paidCrypto} ${r.cryptoCurrency}`,
    ...r.txids.map((txid) => `Transaction ID: ${txid}`),
    '',
    `Your order page: ${r.orderPageUrl}`,
    '',
    'You receive this e-mail because you asked for a receipt when you paid. Questions about the order go to the shop.',
  ];
  return { subject, text: `${lines.join('\n')}\n` };
}
