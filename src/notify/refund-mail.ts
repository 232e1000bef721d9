import { mailMessagesFor } from '../i18n/mail-messages.ts';

/**
 * Renders a refund event (the webhook body) as a plain-text e-mail, for the payer or the merchant. The payer's is in
 * `event.language` (the language recorded when they acted, else the wallet's default; English when none); the
 * merchant's stays English, as the console is.
 */
export function renderRefundMail(event: Record<string, unknown>): { subject: string; text: string } {
  const s = (k: string) => (typeof event[k] === 'string' ? (event[k] as string) : '');
  const amount = `${s('refund_amount')} BTC`;
  if (event.audience === 'payer') {
    const m = mailMessagesFor(s('language'));
    const payerAmount = `${m.crypto(s('refund_amount'))} BTC`;
    if (s('refund_form_url')) {
      return {
        subject: `[satgate] ${m.t('refundLink.subject')}`,
        text: `${m.t('refundLink.waiting', { amount: payerAmount })}\n\n${m.t('refundLink.open')}\n${s('refund_form_url')}\n\n${m.t('refundLink.final')}\n`,
      };
    }
    return {
      subject: `[satgate] ${m.t('refundSent.subject')}`,
      text: `${m.t('refundSent.sent', { amount: payerAmount, address: s('refund_addr') })}\n\n${m.t('refundSent.txid', { txid: s('tx_id') })}\n`,
    };
  }
  const what: Record<string, string> = {
    address_set: `The payer set the refund address ${s('refund_addr')}; the refund is scheduled.`,
    broadcast: `The refund transaction ${s('tx_id')} was broadcast.`,
    confirmed: `The refund transaction ${s('tx_id')} is confirmed.`,
  };
  return {
    subject: `[satgate] Refund of ${amount} (${s('api_id')}): ${s('refund_event').replace('_', ' ')}`,
    text: `${what[s('refund_event')] ?? `Refund ${s('refund_event')}.`}\n\nRefunded transaction: ${s('refunded_tx_id')}\nAmount: ${amount}\nStatus: ${s('status')}\nEvent: ${s('event_id')}\n`,
  };
}
