// Every sentence the hosted payment page shows about the payment's state, in one place.
// The server renders them and hands them to the browser script (as data), so both speak alike.
// Placeholders in braces are filled with numbers and currency codes only, never with merchant text.

/** What the payer is looking at: the status, refined by whether the guaranteed amount has expired. */
export type PagePhase =
  | 'unpaid'
  | 'unpaid-expired'
  | 'unconfirmed-less'
  | 'unconfirmed-less-expired'
  | 'confirmed-less'
  | 'confirmed-less-expired'
  | 'unconfirmed'
  | 'unconfirmed-more'
  | 'confirmed'
  | 'confirmed-more'
  | 'invalid';

/** The sentences of the page, keyed by phase (headline and detail) or by purpose. */
export interface PageCopy {
  headlines: Record<PagePhase, string>;
  details: Record<PagePhase, string>;
  amountLabels: { due: string; remaining: string; indicative: string; indicativeRemaining: string };
  indicative: string;
  fetchingIndicative: string;
  indicativeUnavailable: string;
  expired: string;
  copied: string;
  copyFallback: string;
  offline: string;
}

/** The English copy of the hosted payment page. */
export const PAGE_COPY: PageCopy = {
  headlines: {
    unpaid: 'Waiting for your payment',
    'unpaid-expired': 'The guaranteed amount has expired',
    'unconfirmed-less': 'Payment seen, but it is not enough',
    'unconfirmed-less-expired': 'Payment seen, but it is not enough',
    'confirmed-less': 'Payment confirmed, but it is not enough',
    'confirmed-less-expired': 'Payment confirmed, but it is not enough',
    unconfirmed: 'Paid: waiting for confirmation',
    'unconfirmed-more': 'Paid too much: waiting for confirmation',
    confirmed: 'Paid: payment confirmed',
    'confirmed-more': 'Paid too much: payment confirmed',
    invalid: 'This payment request is no longer valid',
  },
  details: {
    unpaid: 'Send the amount below to the address below. The amount is guaranteed until the countdown ends.',
    'unpaid-expired':
      'Nothing was received while the amount was guaranteed. You can still pay: send the fresh indicative amount below to the same address.',
    'unconfirmed-less':
      'Still missing: {missing_order} {order_currency}. Send the remaining amount below to the same address.',
    'unconfirmed-less-expired':
      'Still missing: {missing_order} {order_currency}. Send the indicative remaining amount below to the same address.',
    'confirmed-less':
      'Still missing: {missing_order} {order_currency}. Send the remaining amount below to the same address.',
    'confirmed-less-expired':
      'Still missing: {missing_order} {order_currency}. Send the indicative remaining amount below to the same address.',
    unconfirmed:
      'Your payment has been seen on the network. It is final once confirmed, usually within 10 minutes; the shop is told automatically.',
    'unconfirmed-more':
      'You sent {extra_order} {order_currency} more than the amount due; contact the shop about the difference. The payment is final once confirmed, usually within 10 minutes.',
    confirmed: 'Thank you. Your payment is confirmed and the shop has been told.',
    'confirmed-more':
      'Thank you. Your payment is confirmed. You sent {extra_order} {order_currency} more than the amount due; contact the shop about the difference.',
    invalid: 'Do not send any funds for this request. Return to the shop to start a new payment.',
  },
  amountLabels: {
    due: 'Amount to send',
    remaining: 'Remaining amount to send',
    indicative: 'Indicative amount to send',
    indicativeRemaining: 'Indicative remaining amount to send',
  },
  indicative:
    'At the current rate of {rate} {order_currency} per {crypto_currency}. This amount is indicative, not guaranteed: funds are valued at the rate of the moment they are first seen.',
  fetchingIndicative: 'Fetching a fresh indicative amount…',
  indicativeUnavailable: 'No current rate is available right now; trying again shortly.',
  expired: 'expired',
  copied: 'Copied.',
  copyFallback: 'Selected: press Ctrl+C (or long-press and choose Copy) to copy.',
  offline: 'Cannot reach the server right now; retrying…',
};

/** Fills `{name}` placeholders from `values`; unknown names are left as they are. */
export function fillCopy(template: string, values: Record<string, string>): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}
