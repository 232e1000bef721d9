// Payment API v1 status, derived from scratch from a payment and its detected outputs
// (DESIGN.md section 6, INTERFACE.md 3.1). Pure: no clock, no database.
//
// The comparison rule, exactly:
//  1. Each counted output is valued in the order currency: at the locked rate when it was
//     first seen strictly before `expiryMs`, otherwise at the spot rate when first seen.
//  2. V = exact sum of those values over ALL counted outputs, confirmed or not.
//     A = the order amount. W = one satoshi's worth at the highest rate used in step 1.
//  3. "equal" iff |V - A| < W; "less" iff V <= A - W; "more" iff V >= A + W.
//     All of it is exact rational arithmetic on bigints (scaled to a common denominator).
//  Consequences: a payer who sends the quoted crypto amount (A / locked rate, rounded up to
//  the satoshi) always lands on "equal", as does one who pays the remainder after expiry at
//  the indicative spot amount rounded up; one satoshi more than ceil is "more"; paying
//  floor(A / rate) is "equal" only when A / rate is not a whole number of satoshis.
//
// Confirmed vs unconfirmed: when any counted output has >= requiredConfirmations, the status
// is a confirmed-* one (INTERFACE 3.1 rule 1), and less/equal/more still compares the total of
// all detected funds, as DESIGN 6 says. Callers that must not deliver against unconfirmed
// money check `allConfirmed` (or the unconfirmed amounts, which are reported separately).
//
// Invalid: a request with no counted funds once `now >= createdMs + monitoringWindowMs`.
// Outputs first seen at or after that moment cannot revive an invalid request: when no output
// was first seen before it, those late outputs are not counted and are reported as `lateSats`.

import { decimalToString, divideRounded, parseDecimal, rescale, unitsToString, type DecimalLimits } from '../money/decimal.ts';
import { fiatToSats, SATS_PER_BTC } from '../money/money.ts';

// Order amounts and rates as this module has always read them: plain decimals, zero padding allowed.
const PAYMENT_DECIMAL: DecimalLimits = { allowLeadingZeros: true };

import type { PaymentStatus } from '../core/payment-statuses.ts';

export { PAYMENT_STATUSES, type PaymentStatus } from '../core/payment-statuses.ts';

/** One transaction output paying the payment's address, as currently known. */
export interface DetectedOutput {
  sats: bigint;
  /** Epoch ms when the output was first seen (mempool or block). */
  firstSeenAt: number;
  /** Order-currency spot rate per BTC when first seen; required when first seen at or after expiry. */
  spotRate?: string;
  confirmations: number;
}

export interface PaymentStatusInput {
  /** Order amount, decimal string in the order currency. */
  orderAmount: string;
  orderCurrency: string;
  /** Decimal places of the order currency, used for the reported order-currency amounts. */
  minorUnits: number;
  /** Rate locked at creation, order currency per BTC, decimal string. */
  lockedRate: string;
  /** End of the rate guarantee (epoch ms). */
  expiryMs: number;
  createdMs: number;
  monitoringWindowMs: number;
  outputs: readonly DetectedOutput[];
  now: number;
  /** Confirmations that make an output confirmed; default 1; 0 counts funds as confirmed on first sight. */
  requiredConfirmations?: number;
}

export interface PaymentStatusResult {
  status: PaymentStatus;
  /** The crypto amount asked for at the locked rate (rounded up). */
  requiredSats: bigint;
  confirmedSats: bigint;
  unconfirmedSats: bigint;
  /** Order-currency values, exact sums rounded half-up to `minorUnits`. */
  confirmedOrderAmount: string;
  unconfirmedOrderAmount: string;
  paidOrderAmount: string;
  /** True when funds were detected and every counted output is confirmed. */
  allConfirmed: boolean;
  /** Satoshis first seen after the request had already become invalid (not counted). */
  lateSats: bigint;
}

function checkInput(input: PaymentStatusInput, required: number): void {
  if (!Number.isInteger(input.minorUnits) || input.minorUnits < 0 || input.minorUnits > 18) {
    throw new RangeError(`bad minorUnits ${input.minorUnits}`);
  }
  // 0 is Greenfield's HighSpeed: funds count as confirmed on first sight (the merchant's risk, chosen per payment).
  if (!Number.isInteger(required) || required < 0) throw new RangeError(`bad requiredConfirmations ${required}`);
  if (parseDecimal(input.orderAmount, PAYMENT_DECIMAL).units === 0n) throw new RangeError('order amount must be positive');
  for (const o of input.outputs) {
    if (o.sats < 0n) throw new RangeError('negative output amount');
    if (!Number.isInteger(o.confirmations) || o.confirmations < 0) throw new RangeError(`bad confirmations ${o.confirmations}`);
    if (o.firstSeenAt >= input.expiryMs && o.spotRate === undefined) {
      throw new RangeError(`output first seen after expiry (${o.firstSeenAt}) has no spot rate`);
    }
  }
}

/** Derives the payment API v1 status and paid amounts of one payment at time `now`. */
export function derivePaymentStatus(input: PaymentStatusInput): PaymentStatusResult {
  const required = input.requiredConfirmations ?? 1;
  checkInput(input, required);
  // fiatToSats reads unpadded text only, so both values are written back without padding first.
  const order = parseDecimal(input.orderAmount, PAYMENT_DECIMAL);
  const needSats = fiatToSats(decimalToString(order), decimalToString(parseDecimal(input.lockedRate, PAYMENT_DECIMAL)));

  const funded = input.outputs.filter((o) => o.sats > 0n);
  const invalidAt = input.createdMs + input.monitoringWindowMs;
  const expired = input.now >= invalidAt;
  const counted = expired && !funded.some((o) => o.firstSeenAt < invalidAt) ? [] : funded;
  const lateSats = counted.length === 0 ? funded.reduce((s, o) => s + o.sats, 0n) : 0n;

  // Common scale: every rate and the order amount become integers of 10^-scale units, so
  // value(output) * 1e8 * 10^scale = sats * rateUnits exactly.
  const rateOf = (o: DetectedOutput): string => (o.firstSeenAt < input.expiryMs ? input.lockedRate : o.spotRate!);
  const rates = counted.map((o) => parseDecimal(rateOf(o), PAYMENT_DECIMAL));
  const scale = Math.max(order.scale, ...rates.map((r) => r.scale));

  let confirmedSats = 0n;
  let unconfirmedSats = 0n;
  let confirmedValue = 0n; // in units of 1 / (1e8 * 10^scale)
  let unconfirmedValue = 0n;
  let oneSatWorth = 0n; // same units
  counted.forEach((o, i) => {
    const rateUnits = rescale(rates[i]!, scale, 'down').units; // exact: scale is at least the rate's own
    if (rateUnits === 0n) throw new RangeError('rate must be positive');
    if (rateUnits > oneSatWorth) oneSatWorth = rateUnits;
    if (o.confirmations >= required) {
      confirmedSats += o.sats;
      confirmedValue += o.sats * rateUnits;
    } else {
      unconfirmedSats += o.sats;
      unconfirmedValue += o.sats * rateUnits;
    }
  });

  const denominator = SATS_PER_BTC * 10n ** BigInt(scale);
  const toOrderCurrency = (v: bigint): string =>
    unitsToString(divideRounded(v * 10n ** BigInt(input.minorUnits), denominator, 'half-up'), input.minorUnits);
  const base = {
    requiredSats: needSats,
    confirmedSats,
    unconfirmedSats,
    confirmedOrderAmount: toOrderCurrency(confirmedValue),
    unconfirmedOrderAmount: toOrderCurrency(unconfirmedValue),
    paidOrderAmount: toOrderCurrency(confirmedValue + unconfirmedValue),
    allConfirmed: counted.length > 0 && unconfirmedSats === 0n,
    lateSats,
  };

  if (counted.length === 0) return { status: expired ? 'invalid' : 'unpaid', ...base };

  const total = confirmedValue + unconfirmedValue;
  const target = rescale(order, scale, 'down').units * SATS_PER_BTC;
  const comparison = total <= target - oneSatWorth ? '-less' : total >= target + oneSatWorth ? '-more' : '';
  const prefix = confirmedSats > 0n ? 'confirmed' : 'unconfirmed';
  return { status: `${prefix}${comparison}` as PaymentStatus, ...base };
}
