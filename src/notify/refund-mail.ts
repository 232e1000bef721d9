/** Renders a refund event (the webhook body) as a plain-text e-mail, for the payer or the merchant. */
export function renderRefundMail(event: Record<string, unknown>): { subject: string; text: string } {
  const s = (k: string) => (typeof event[k] === 'string' ? (event[k] as string) : '');
  const amount = `${s('refund_amount')} BTC`;
  if (event.audience === 'payer') {
    if (s('refund_form_url')) {
      return {
        subject: '[satgate] Your refund: tell us where to send it',
        text: `A refund of ${amount} is waiting for you.\n\nOpen this link and enter the bitcoin address to send it to:\n${s('refund_form_url')}\n\nThe address cannot be changed once set.\n`,
      };
    }
    return {
      subject: '[satgate] Your refund was sent',
      text: `Your refund of ${amount} was sent to ${s('refund_addr')}.\n\nTransaction id: ${s('tx_id')}\n`,
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
