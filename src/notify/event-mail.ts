/** Renders a payment event (the webhook body) as a plain-text e-mail. */
export function renderEventMail(event: Record<string, unknown>): { subject: string; text: string } {
  if (event.event === 'payment_update') return renderPaymentUpdateMail(event);
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

/** A payment update (6.2: payment forms and set_addr orders) as a plain-text e-mail. */
function renderPaymentUpdateMail(event: Record<string, unknown>): { subject: string; text: string } {
  const payment = (event.payment ?? {}) as Record<string, unknown>;
  const order = stringify(event.order_id ?? '') || String(payment.address ?? 'order');
  const orderStatus = stringify(event.order_status ?? '');
  const paymentStatus = stringify(event.payment_status ?? '');
  const txs = Array.isArray(payment.transactions) ? (payment.transactions as Array<Record<string, unknown>>) : [];
  const lines = [
    `Order ${order}: ${orderStatus} (payment ${paymentStatus}).`,
    '',
    event.order_amount === null || event.order_amount === undefined ? null : `Order amount: ${stringify(event.order_amount)} ${stringify(event.order_currency ?? '')}`,
    `Address: ${stringify(payment.address ?? '')}`,
    `Amount asked: ${stringify(payment.crypto_amount ?? '')} ${stringify(payment.crypto_currency ?? '')}`,
    `Received, confirmed: ${stringify(payment.crypto_amount_paid_conf ?? '0')}`,
    `Received, unconfirmed: ${stringify(payment.crypto_amount_paid_unconf ?? '0')}`,
    ...txs.map((t) => `Transaction ${stringify(t.txid ?? '')}: ${stringify(t.value ?? '')} (${stringify(t.confirmations ?? 0)} confirmations)`),
    `Wallet API ID: ${stringify(event.api_id ?? '')}`,
    `Event: ${stringify(event.event_id ?? '')}`,
    '',
    'Unconfirmed payments may still fail: deliver goods once the payment status is confirmed.',
  ].filter((l): l is string => l !== null);
  return { subject: `[satgate] Order ${order}: ${orderStatus}, ${paymentStatus}`, text: `${lines.join('\n')}\n` };
}
