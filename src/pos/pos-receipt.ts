// What the counter's checkout and receipt show of a charge (the JSON pos.js polls), and the payer's receipt mail:
// the cart as the server priced it, the payment's amounts and rate, the transactions that paid it. The mail goes
// through the outbox (sealed, like every payer mail) in the language the page was shown in.
import { DomainError } from '../core/domain-errors.ts';
import { PAYMENT_STATUS_GROUPS } from '../core/payment-statuses.ts';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import type { PaymentService } from '../payments/payment-service.ts';
import { paymentUri } from '../payments/qr-code.ts';
import { enqueueNotifications } from '../notify/outbox.ts';
import { sealedMailPayload } from '../notify/sealed-mail.ts';
import { mailLanguage, mailMessagesFor } from '../i18n/mail-messages.ts';
import { isEmail } from '../wallets/field-rules.ts';
import type { PosApps } from './pos-apps.ts';
import type { PricedCart } from './pos-cart.ts';

/** The outbox event name of the payer's receipt. */
export const POS_RECEIPT_MAIL = 'pos_receipt';

/** The checkout's state as the counter shows it. */
export type ChargeState = 'waiting' | 'short' | 'paid' | 'expired';

export interface ChargeStatus {
  reference: string;
  state: ChargeState;
  paymentStatus: string;
  cart: PricedCart;
  btc: string;
  address: string;
  uri: string | null;
  qr: string;
  rate: string;
  expiresAt: string;
  txids: string[];
}

export interface ReceiptDeps {
  db: Db;
  clock: Clock;
  masterKey: MasterKey;
  payments: PaymentService;
  apps: PosApps;
}

export class PosReceipts {
  constructor(private readonly deps: ReceiptDeps) {}

  /** The charge's live status (the counter polls it); another app's payment is not found. */
  async status(publicId: string, reference: string): Promise<ChargeStatus> {
    const charge = await this.deps.apps.chargeOf(publicId, reference);
    const record = await this.deps.payments.publicRecord(reference);
    if (record === null) throw new DomainError('not-found', 'No charge of this point of sale with this reference.');
    const rate = await this.rateOf(charge.paymentId);
    const paid = (PAYMENT_STATUS_GROUPS.paidInFull as readonly string[]).includes(record.status);
    const short = (PAYMENT_STATUS_GROUPS.paidLess as readonly string[]).includes(record.status);
    const expired = record.status === 'invalid' || (record.status === 'unpaid' && this.deps.clock() >= Date.parse(record.expiry_date));
    return {
      reference,
      state: paid ? 'paid' : expired ? 'expired' : short ? 'short' : 'waiting',
      paymentStatus: record.status,
      cart: charge.cart,
      btc: record.crypto_amount,
      address: record.crypto_address,
      uri: record.crypto_address === '' ? null : paymentUri(record.crypto_address, record.crypto_amount),
      qr: `/api/v1/payment/${encodeURIComponent(reference)}/qrcode?width=640`,
      rate,
      expiresAt: record.expiry_date,
      txids: [...(record.txids ?? [])],
    };
  }

  /** The payer typed an address on the receipt screen: their receipt, once per charge, only once it is paid. */
  async mail(publicId: string, reference: string, email: unknown): Promise<void> {
    if (typeof email !== 'string' || !isEmail(email.trim())) throw new DomainError('invalid-fields', 'The receipt has invalid fields.', [{ field: 'email', message: 'must be an e-mail address' }]);
    const to = email.trim();
    const status = await this.status(publicId, reference);
    if (status.state !== 'paid') throw new DomainError('invalid-fields', 'The receipt has invalid fields.', [{ field: 'reference', message: 'the payment is not paid yet' }]);
    const charge = await this.deps.apps.chargeOf(publicId, reference);
    if (charge.receiptMailAt !== null) return;
    const message = renderReceiptMail(charge.view.app.title, status, mailLanguage(charge.language, charge.view.app.default_language, charge.wallet.default_language));
    const now = this.deps.clock();
    await this.deps.db.kysely.transaction().execute(async (trx) => {
      // Durable before visible: the mail is in the outbox when the page says it is on its way; once per charge.
      const marked = await trx.updateTable('pos_charges').set({ receipt_mail_at: BigInt(now) }).where('payment_id', '=', charge.paymentId).where('receipt_mail_at', 'is', null).executeTakeFirst();
      if (Number(marked.numUpdatedRows) === 0) return;
      await enqueueNotifications(trx, [{ kind: 'email', target: to, payload: sealedMailPayload(this.deps.masterKey, POS_RECEIPT_MAIL, message), walletId: charge.wallet.id, paymentId: charge.paymentId }], now);
    });
  }

  private async rateOf(paymentId: bigint): Promise<string> {
    const row = await this.deps.db.kysely.selectFrom('payments').select('exchange_rate').where('id', '=', paymentId).executeTakeFirstOrThrow();
    return row.exchange_rate;
  }
}

/** The receipt mail, plain text in `language`. */
export function renderReceiptMail(shop: string, status: ChargeStatus, language: string): { subject: string; text: string } {
  const m = mailMessagesFor(language);
  const line = (text: string) => text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const { cart } = status;
  const fiat = (amount: string) => `${cart.currency === 'BTC' ? m.crypto(amount) : m.fiat(amount, cart.currency)} ${cart.currency}`;
  const lines = [
    m.t('pos.thanks', { shop: line(shop) }),
    '',
    ...cart.lines.map((l) => m.t('pos.line', { quantity: l.quantity, name: line(l.name), amount: fiat(l.total) })),
    ...(cart.customAmount !== null ? [m.t('receipt.amount', { amount: fiat(cart.customAmount) })] : []),
    m.t('pos.subtotal', { amount: fiat(cart.subtotal) }),
    m.t('pos.tip', { amount: fiat(cart.tip) }),
    m.t('pos.total', { amount: fiat(cart.total) }),
    m.t('receipt.paid', { amount: `${m.crypto(status.btc)} BTC` }),
    m.t('pos.rate', { rate: `${status.rate} ${cart.currency}/BTC` }),
    ...status.txids.map((txid) => m.t('receipt.txid', { txid })),
    '',
    m.t('pos.why'),
  ];
  return { subject: line(m.t('receipt.subjectShop', { shop: line(shop) })), text: `${lines.join('\n')}\n` };
}
