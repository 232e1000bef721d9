// Conversions between satoshis, bitcoin and fiat. A rate is always the price of
// 1 BTC in the fiat currency, as a decimal string. Rounding never favours the payer
// when pricing an order (fiat to sats rounds up); displayed fiat rounds half-up.
import { BTC_DECIMALS, isIso4217, minorUnits } from './currencies.ts';
import {
  DecimalError, type Decimal, decimalToString, divideRounded, parseDecimal, trimDecimal, unitsToString,
} from './decimal.ts';
import { amountRangeProblem, satsCapProblem } from './amount-bounds.ts';

/** Satoshis in one bitcoin. */
export const SATS_PER_BTC = 100_000_000n;

const RATE_LIMITS = { maxIntegerDigits: 24, maxFractionDigits: 18 };
const AMOUNT_LIMITS = { maxIntegerDigits: 24, maxFractionDigits: 18 };

/** Why a conversion could not be made: unknown code, no rate for it, or a bad amount. */
export class ConversionError extends Error {
  constructor(readonly kind: 'unknown-currency' | 'no-rate' | 'bad-amount', message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

/** Parses a bitcoin amount ("0.002") into satoshis; rejects more than 8 decimals. */
export function satsFromBtc(btc: string): bigint {
  const d = parseDecimal(btc, { maxIntegerDigits: 16, maxFractionDigits: BTC_DECIMALS });
  return d.units * 10n ** BigInt(BTC_DECIMALS - d.scale);
}

/** Writes satoshis as bitcoin: trimmed ("0.002") by default, or with all 8 decimals ("0.00200000"). */
export function btcFromSats(sats: bigint, fixed = false): string {
  const text = unitsToString(sats, BTC_DECIMALS);
  return fixed ? text : trimDecimal(text);
}

/** Parses a fiat amount strictly: at most the currency's minor-unit decimals; returns it at exactly that many ("12.3" USD gives "12.30"). */
export function parseFiatAmount(amount: string, currency: string): string {
  const units = minorUnits(currency);
  const d = parseDecimal(amount, { maxIntegerDigits: AMOUNT_LIMITS.maxIntegerDigits, maxFractionDigits: units });
  return unitsToString(d.units * 10n ** BigInt(units - d.scale), units);
}

/** Satoshis needed to pay `amount` of fiat at `rate` (price of 1 BTC), rounded UP so the merchant never receives less. */
export function fiatToSats(amount: string, rate: string): bigint {
  const a = parseDecimal(amount, AMOUNT_LIMITS);
  const r = parsePositiveRate(rate);
  // sats = amount * 1e8 / rate = (au / 10^as) * 1e8 / (ru / 10^rs)
  return divideRounded(a.units * SATS_PER_BTC * 10n ** BigInt(r.scale), r.units * 10n ** BigInt(a.scale), 'up');
}

/** Fiat value of `sats` at `rate`, rounded half-up to the currency's minor unit, written with exactly that many decimals. */
export function satsToFiat(sats: bigint, rate: string, currency: string): string {
  if (sats < 0n) throw new DecimalError('negative satoshi amount');
  const m = minorUnits(currency);
  const r = parsePositiveRate(rate);
  const units = divideRounded(sats * r.units * 10n ** BigInt(m), SATS_PER_BTC * 10n ** BigInt(r.scale), 'half-up');
  return unitsToString(units, m);
}

/** Converts fiat to fiat through BTC: amount × toRate ÷ fromRate, rounded half-up to the target's minor unit. */
export function fiatToFiat(amount: string, fromRate: string, toRate: string, toCurrency: string): string {
  const a = parseDecimal(amount, AMOUNT_LIMITS);
  const f = parsePositiveRate(fromRate);
  const t = parsePositiveRate(toRate);
  const m = minorUnits(toCurrency);
  const num = a.units * t.units * 10n ** BigInt(m + f.scale);
  const den = f.units * 10n ** BigInt(a.scale + t.scale);
  return unitsToString(divideRounded(num, den, 'half-up'), m);
}

/**
 * Converts `amount` between two codes, any case, each BTC or an ISO 4217 code, using `priceOf`
 * (price of 1 BTC in a fiat code, or undefined). BTC to fiat rounds half-up to the minor unit;
 * fiat to BTC rounds up to the satoshi and is written trimmed; fiat to fiat goes through BTC.
 */
export function convertAmount(
  amount: string,
  from: string,
  to: string,
  priceOf: (code: string) => string | undefined,
): string {
  const src = checkCode(from);
  const dst = checkCode(to);
  const rate = (code: string): string => {
    const price = priceOf(code);
    if (price === undefined) throw new ConversionError('no-rate', `no exchange rate for ${code}`);
    return price;
  };
  let value: Decimal;
  try {
    value = parseDecimal(amount, src === 'BTC' ? { maxIntegerDigits: 16, maxFractionDigits: BTC_DECIMALS } : AMOUNT_LIMITS);
  } catch (err) {
    throw new ConversionError('bad-amount', err instanceof Error ? err.message : String(err));
  }
  const text = decimalToString(value);
  // The one amount bound (amount-bounds.ts): by its text, then, for fiat, by its value in bitcoin at the rate. No
  // dust bound: converting a small amount asks nobody to pay it.
  const outOfRange = (problem: string | null) => {
    if (problem !== null) throw new ConversionError('bad-amount', `amount ${trimDecimal(text)} ${src} ${problem}`);
  };
  outOfRange(amountRangeProblem(text, src));
  const srcPrice = src === 'BTC' ? undefined : priceOf(src);
  if (srcPrice !== undefined) outOfRange(satsCapProblem(fiatToSats(text, srcPrice)));
  if (src === 'BTC' && dst === 'BTC') return trimDecimal(text);
  if (src === 'BTC') return satsToFiat(satsFromBtc(text), rate(dst), dst);
  if (dst === 'BTC') return btcFromSats(fiatToSats(text, rate(src)));
  if (src === dst) return fiatToFiat(text, '1', '1', dst);
  return fiatToFiat(text, rate(src), rate(dst), dst);
}

/** Parses a rate (price of 1 BTC) and requires it to be positive. */
export function parsePositiveRate(rate: string): Decimal {
  const r = parseDecimal(rate, RATE_LIMITS);
  if (r.units === 0n) throw new DecimalError('an exchange rate must be positive');
  return r;
}

function checkCode(code: string): string {
  const upper = code.toUpperCase();
  if (upper !== 'BTC' && !isIso4217(upper)) {
    throw new ConversionError('unknown-currency', `unknown currency code ${JSON.stringify(code)}`);
  }
  return upper;
}
