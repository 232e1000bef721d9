// The payer's receipt of a paid payment form: sent only when the payer ticked "E-mail me a receipt", once, when the
// order is paid and confirmed. Plain text in the language the payer's page was shown in when they asked (issue 35);
// the message holds the order page's address (and so the form token), so it is queued sealed (notify/sealed-mail.ts)
// and the outbox never holds the token in clear.
import { mailMessagesFor } from '../i18n/mail-messages.ts';

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
  /** The payer's language (a supported tag); absent or unknown: English. */
  language?: string | null;
}

/** Merchant text on one line: no control characters (a subject line must not carry a header break). */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

/** The receipt as a plain-text message. */
export function renderPayerReceipt(r: PayerReceipt): { subject: string; text: string } {
  const m = mailMessagesFor(r.language);
  const shop = oneLine(r.shopName);
  const subject = shop === '' ? m.t('receipt.subject') : m.t('receipt.subjectShop', { shop });
  const lines = [
    shop === '' ? m.t('receipt.thanks') : m.t('receipt.thanksShop', { shop }),
    '',
    m.t('receipt.order', { order: oneLine(r.orderId) }),
    m.t('receipt.amount', { amount: `${m.fiat(r.orderAmount, r.orderCurrency)} ${r.orderCurrency}` }),
    m.t('receipt.paid', { amount: `${m.crypto(r.paidCrypto)} ${r.cryptoCurrency}` }),
    ...r.txids.map((txid) => m.t('receipt.txid', { txid })),
    '',
    m.t('receipt.orderPage', { url: r.orderPageUrl }),
    '',
    m.t('receipt.why'),
  ];
  // A subject is one header line whatever a translation or a shop name holds.
  return { subject: oneLine(subject), text: `${lines.join('\n')}\n` };
}
