import { renderRefundMail } from './refund-mail.ts';

/** Renders a payment event (the webhook body) as a plain-text e-mail; refund events have their own text. */
export function renderEventMail(event: Record<string, unknown>): { subject: string; text: string } {
  if (event.event === 'refund') return renderRefundMail(event);
  const reference = String(event.payment_reference ?? event.order_id ?? 'payment');
  const status = String(event.status ?? event.payment_status ?? 'updated');
  const line = (label: string, key: string) => (event[key] === undefined || event[key] === null ? null : `${label}: ${stringify(event[key])}`);
  const lines = [
    `Payment ${reference} is now ${status}.`,
    '',
    line('Status', 'status'),
    line('Status date', 'status_date'),
    line('Order amount', 'order_amount') && `${line('Order amount', 'order_amount')} ${stringify(event.order_currency ?? '')}`.trim(),
    line('Amount to pay', 'crypto_amount') && `${line('Amount to pay', 'crypto_amount')} ${stringify(event.crypto_currency ?? '')}`.trim(),
    line('Address', 'crypto_address'),
    line('Exchange rate', 'exchange_rate'),
    line('Rate guaranteed until', 'expiry_date'),
    line('Confirmed', 'confirmed_crypto_amount'),
    line('Unconfirmed', 'unconfirmed_crypto_amount'),
    line('Wallet API ID', 'api_id'),
    line('Event', 'event_id'),
    '',
    'Unconfirmed payments may still fail: deliver goods once the status is confirmed.',
  ].filter((l): l is string => l !== null);
  return { subject: `[satgate] Payment ${reference}: ${status}`, text: `${lines.join('\n')}\n` };
}

function stringify(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}
