import { fiatForDisplay } from '../money/fiat-display.ts';
import { renderRefundMail } from './refund-mail.ts';
import { renderSettingsChangeMail, SETTINGS_CHANGED_EVENT } from './settings-change-mail.ts';
import { renderTeamMail, TEAM_NOTICE_EVENT } from './team-mail.ts';

/** Renders a payment event (the webhook body) as a plain-text e-mail; refund and settings-change events have their own text. */
export function renderEventMail(event: Record<string, unknown>): { subject: string; text: string } {
  if (event.event === 'refund') return renderRefundMail(event);
  if (event.event === SETTINGS_CHANGED_EVENT) return renderSettingsChangeMail(event);
  if (event.event === TEAM_NOTICE_EVENT) return renderTeamMail(event);
  if (event.event === 'payment_update') return renderPaymentUpdateMail(event);
  const reference = String(event.payment_reference ?? event.order_id ?? 'payment');
  const status = String(event.status ?? event.payment_status ?? 'updated');
  const line = (label: string, key: string) => (event[key] === undefined || event[key] === null ? null : `${label}: ${stringify(event[key])}`);
  const lines = [
    `Payment ${reference} is now ${status}.`,
    '',
    line('Status', 'status'),
    line('Status date', 'status_date'),
    orderAmountLine(event),
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

/** "Order amount: 49.90 EUR": with the currency's minor units, as the pages show it. */
function orderAmountLine(event: Record<string, unknown>): string | null {
  if (event.order_amount === null || event.order_amount === undefined) return null;
  const currency = stringify(event.order_currency ?? '');
  return `Order amount: ${fiatForDisplay(stringify(event.order_amount), currency)} ${currency}`.trim();
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
    orderAmountLine(event),
    `Address: ${stringify(payment.address ?? '')}`,
    `Amount asked: ${stringify(payment.crypto_amount ?? '')} ${stringify(payment.crypto_currency ?? '')}`,
    `Received, confirmed: ${stringify(payment.crypto_amount_paid_conf ?? '0')}`,
    `Received, unconfirmed: ${stringify(payment.crypto_amount_paid_unconf ?? '0')}`,
    ...txs.map((t) => `Transaction ${stringify(t.txid ?? '')}: ${stringify(t.value ?? '')} (${stringify(t.confirmations ?? 0)} confirmations)`),
    ...payerLines(event),
    `Wallet API ID: ${stringify(event.api_id ?? '')}`,
    `Event: ${stringify(event.event_id ?? '')}`,
    '',
    'Unconfirmed payments may still fail: deliver goods once the payment status is confirmed.',
  ].filter((l): l is string => l !== null);
  return { subject: `[satgate] Order ${order}: ${orderStatus}, ${paymentStatus}`, text: `${lines.join('\n')}\n` };
}

/**
 * What the payer typed into the form (6.2 `user_email`, `user_fields`), so a shop without a webhook receiver still
 * learns where to deliver. Payer text is kept plain: control characters go, and a value's further lines are indented
 * under its label so nothing the payer typed can pass for a line of ours.
 */
function payerLines(event: Record<string, unknown>): string[] {
  const fields = Array.isArray(event.user_fields) ? (event.user_fields as Array<Record<string, unknown>>) : [];
  const email = typeof event.user_email === 'string' && event.user_email !== '' ? event.user_email : null;
  if (email === null && fields.length === 0) return [];
  const lines = ['', "The payer's details:"];
  if (email !== null) lines.push(`  E-mail: ${payerText(email)}`);
  for (const f of fields) {
    const label = payerText(stringify(f.display_name ?? f.name ?? '')) || payerText(stringify(f.name ?? ''));
    const value = typeof f.value === 'string' ? f.value : '';
    const [first, ...rest] = value.replace(/\r\n?/g, '\n').split('\n').map(payerText);
    lines.push(`  ${label}: ${first === '' && rest.length === 0 ? '(not given)' : first}`);
    for (const more of rest) lines.push(`    ${more}`);
  }
  lines.push('');
  return lines;
}

/** One line of payer or merchant text without control characters. */
function payerText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}
