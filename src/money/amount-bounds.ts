// The one bound on every amount that enters satgate, whatever the face (wallet API, payment API, Greenfield, forms,
// console, partner calls): no amount is worth more than the 21,000,000 BTC there will ever be. A fiat amount is
// bounded twice: by its text (at most 15 digits before the point), so it is refused before any rate is known, and by
// its value in satoshis at the rate it is priced at. Within the bound every satoshi amount is below 2^53 and far
// below a BIGINT column's 2^63 − 1, so no amount reaches the database driver or a JavaScript number out of range.
// Below, an amount asked for in bitcoin must be at least the dust limit: a smaller output is one the network does not
// relay, so an order or payout below it could never be paid.
import { trimDecimal, unitsToString } from './decimal.ts';

/** The most bitcoin any amount may be: the supply cap. */
export const MAX_BTC = '21000000';
/** {@link MAX_BTC} in satoshis (2.1 × 10^15). */
export const MAX_SATS = 2_100_000_000_000_000n;
/**
 * The smallest amount asked for, in satoshis: the largest dust threshold of a standard output (P2PKH, 546 sat), the
 * same number as spending/tx-size.ts's MAX_DUST_THRESHOLD (money/ sits below spending/; a test keeps the two equal).
 */
export const MIN_SATS = 546n;
/** Most digits before the point of a fiat amount (999,999,999,999,999.99 USD is the largest USD amount written). */
export const MAX_FIAT_INTEGER_DIGITS = 15;

const PLAIN = /^0*([0-9]*)(?:\.([0-9]*))?$/;

/** The largest whole number of each bitcoin unit an amount may be written in. */
const MAX_IN_UNIT: Readonly<Record<string, string>> = { BTC: MAX_BTC, SATS: MAX_SATS.toString() };

/**
 * Why a plain non-negative decimal `amount` in `currency` (BTC, SATS as Greenfield names satoshis, or a fiat code)
 * is beyond the textual bound, or null when it is within it. Text that is not a plain non-negative decimal is left
 * to the face's own shape check (null here), so a face reports its usual message for it.
 */
export function amountRangeProblem(amount: string, currency: string): string | null {
  const m = PLAIN.exec(amount);
  if (!m) return null;
  const intDigits = m[1] ?? '';
  const unit = currency.toUpperCase();
  const max = Object.hasOwn(MAX_IN_UNIT, unit) ? MAX_IN_UNIT[unit] : undefined;
  if (max !== undefined) {
    const over = intDigits.length > max.length || (intDigits.length === max.length && (intDigits > max || (intDigits === max && /[1-9]/.test(m[2] ?? ''))));
    if (!over) return null;
    return unit === 'BTC' ? `must be at most ${MAX_BTC} BTC (all the bitcoin there will ever be)` : `must be at most ${max} ${unit} (${MAX_BTC} BTC, all the bitcoin there will ever be)`;
  }
  return intDigits.length > MAX_FIAT_INTEGER_DIGITS ? `must have at most ${MAX_FIAT_INTEGER_DIGITS} digits before the decimal point` : null;
}

/**
 * Why an amount of `sats` asked for (an order priced at a rate, a payout) is out of bounds, or null: below the dust
 * limit ({@link MIN_SATS}) or beyond 21,000,000 BTC.
 */
export function satsRangeProblem(sats: bigint): string | null {
  const cap = satsCapProblem(sats);
  if (cap !== null) return cap;
  if (sats >= MIN_SATS) return null;
  return `is worth ${btc(sats)} BTC, less than ${btc(MIN_SATS)} BTC (${MIN_SATS} sat), the smallest payment the Bitcoin network relays (dust limit)`;
}

/** Why `sats` is beyond 21,000,000 BTC (or negative), or null; no lower bound (a conversion may be of any size). */
export function satsCapProblem(sats: bigint): string | null {
  if (sats < 0n) return 'must not be negative';
  return sats > MAX_SATS ? `is worth more than ${MAX_BTC} BTC (all the bitcoin there will ever be)` : null;
}

const btc = (sats: bigint) => trimDecimal(unitsToString(sats, 8));
