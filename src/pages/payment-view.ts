// What the hosted payment page shows for a payment at a moment: phase, amount to send and
// which blocks are visible. Pure and exact (decimal strings, bigint arithmetic). The browser
// script (assets/page.js) applies the same rules to each status it polls.

import { PAYMENT_STATUS_GROUPS, type PaymentStatus } from '../core/payment-statuses.ts';
import { parseDecimal, unitsToString, type Decimal } from '../money/decimal.ts';
import { PAGE_COPY, fillCopy, type PageCopy, type PagePhase } from './page-copy.ts';
import { fiatForDisplay } from '../money/fiat-display.ts';

/** Payment statuses of INTERFACE.md 3.1 that the page knows. */
export type PageStatus = PaymentStatus;

/** Detected funds of a payment (INTERFACE.md 2.11), decimal strings. */
export interface PaidAmounts {
  unconfirmed_crypto_amount: string;
  confirmed_crypto_amount: string;
  unconfirmed_order_amount: string;
  confirmed_order_amount: string;
}

/** The part of a payment the view depends on. */
export interface ViewInput {
  status: string;
  order_amount: string;
  order_currency: string;
  crypto_amount: string;
  crypto_currency: string;
  /** "" once the request is invalid. */
  crypto_address: string;
  /** ISO 8601. */
  expiry_date: string;
  amounts: PaidAmounts;
}

/** The page's state for one payment at one moment. */
export interface PaymentView {
  phase: PagePhase;
  expired: boolean;
  headline: string;
  detail: string;
  /** Label of the amount to send, and the amount (8 decimals; "" when only an indicative amount, not yet known, applies). */
  amountLabel: string;
  amountToSend: string;
  /** Address, amount and copy buttons. */
  showPay: boolean;
  /** The QR code carries the guaranteed amount, so it is shown only while that amount holds and is still due in full. */
  showQr: boolean;
  showCountdown: boolean;
  /** The full amount has been seen (confirmed or not). */
  showSuccess: boolean;
  showCancel: boolean;
  /** The crypto received so far, confirmed or not, as a plain decimal ("" while nothing has been seen). */
  paidCrypto: string;
}

const PAID_IN_FULL = new Set<string>(PAYMENT_STATUS_GROUPS.paidInFull);
const LESS = new Set<string>(PAYMENT_STATUS_GROUPS.paidLess);
const CRYPTO_SCALE = 8;

/** Computes the view of `input` at `now` (epoch ms) in `copy`'s words. Unknown statuses are shown as unpaid. */
export function paymentView(input: ViewInput, now: number, copy: PageCopy = PAGE_COPY, fiat: (amount: string, currency: string) => string = fiatForDisplay): PaymentView {
  const expiry = Date.parse(input.expiry_date);
  const expired = Number.isFinite(expiry) && now >= expiry;
  const status = input.status;
  const less = LESS.has(status);
  const unpaid = !less && !PAID_IN_FULL.has(status) && status !== 'invalid';
  const phase: PagePhase =
    status === 'invalid'
      ? 'invalid'
      : unpaid
        ? expired
          ? 'unpaid-expired'
          : 'unpaid'
        : less
          ? ((expired ? `${status}-expired` : status) as PagePhase)
          : (status as PagePhase);

  const paidOrder = add(dec(input.amounts.confirmed_order_amount), dec(input.amounts.unconfirmed_order_amount));
  const order = dec(input.order_amount);
  const values = {
    order_currency: input.order_currency,
    crypto_currency: input.crypto_currency,
    missing_order: fiat(show(sub(order, paidOrder)), input.order_currency),
    extra_order: fiat(show(sub(paidOrder, order)), input.order_currency),
  };
  const labels = copy.amountLabels;
  let amountLabel = labels.due;
  let amountToSend = show(atScale(dec(input.crypto_amount), CRYPTO_SCALE));
  if (less) {
    const paidCrypto = add(dec(input.amounts.confirmed_crypto_amount), dec(input.amounts.unconfirmed_crypto_amount));
    amountLabel = expired ? labels.indicativeRemaining : labels.remaining;
    amountToSend = expired ? '' : show(atScale(sub(dec(input.crypto_amount), paidCrypto), CRYPTO_SCALE));
  } else if (expired && unpaid) {
    amountLabel = labels.indicative;
    amountToSend = '';
  }
  const showPay = (unpaid || less) && input.crypto_address !== '';
  const received = add(dec(input.amounts.confirmed_crypto_amount), dec(input.amounts.unconfirmed_crypto_amount));
  return {
    phase,
    expired,
    headline: copy.headlines[phase],
    detail: fillCopy(copy.details[phase], values),
    amountLabel,
    amountToSend,
    showPay,
    showQr: showPay && unpaid && !expired,
    showCountdown: unpaid || less,
    showSuccess: PAID_IN_FULL.has(status),
    showCancel: unpaid || status === 'invalid',
    paidCrypto: received.units === 0n ? '' : show(trimmed(received)),
  };
}

function dec(text: string): Decimal {
  try {
    return parseDecimal(text);
  } catch {
    return { units: 0n, scale: 0 };
  }
}

function common(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * 10n ** BigInt(scale - a.scale), b.units * 10n ** BigInt(scale - b.scale), scale];
}

function add(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = common(a, b);
  return { units: x + y, scale };
}

/** a - b, floored at zero (a shortfall or an excess is never negative). */
function sub(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = common(a, b);
  return { units: x > y ? x - y : 0n, scale };
}

/** Re-expresses at `scale`, rounding up when digits are dropped (the payer must not send too little). */
function atScale(d: Decimal, scale: number): Decimal {
  if (scale >= d.scale) return { units: d.units * 10n ** BigInt(scale - d.scale), scale };
  const f = 10n ** BigInt(d.scale - scale);
  return { units: (d.units + f - 1n) / f, scale };
}

/** Without trailing fraction zeros: "Paid 0.0005 BTC", as the payment record writes amounts. */
function trimmed(d: Decimal): Decimal {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

function show(d: Decimal): string {
  return unitsToString(d.units, d.scale);
}
