// Exact decimal arithmetic for payment amounts: decimal strings <-> scaled bigints.
// Self-contained on purpose (src/rates/decimal.ts is the general-purpose module);
// everything here works on non-negative values only, as payment amounts are.

/** Satoshis per bitcoin. */
export const SATS_PER_BTC = 100_000_000n;

/** A non-negative decimal as an integer number of 10^-scale units. */
export interface Scaled {
  units: bigint;
  scale: number;
}

/** Rounding applied when an exact quotient does not fit the target scale. */
export type Rounding = 'down' | 'up' | 'half-up';

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** Parses a non-negative plain decimal string ("12", "0.5", "19.990"); throws RangeError otherwise. */
export function parseDecimal(text: string): Scaled {
  const m = DECIMAL.exec(text);
  if (!m) throw new RangeError(`not a non-negative decimal: ${JSON.stringify(text)}`);
  const frac = m[2] ?? '';
  return { units: BigInt(m[1]! + frac), scale: frac.length };
}

/** 10^n as a bigint. */
export function pow10(n: number): bigint {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`bad exponent ${n}`);
  return 10n ** BigInt(n);
}

/** Re-expresses a scaled value at a larger (or equal) scale, exactly. */
export function rescaleUp(value: Scaled, scale: number): bigint {
  if (scale < value.scale) throw new RangeError(`cannot rescale ${value.scale} down to ${scale} exactly`);
  return value.units * pow10(scale - value.scale);
}

/** Divides non-negative bigints with the given rounding. */
export function divRound(numerator: bigint, denominator: bigint, rounding: Rounding): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  if (numerator < 0n) throw new RangeError('numerator must be non-negative');
  const q = numerator / denominator;
  const r = numerator % denominator;
  if (r === 0n) return q;
  switch (rounding) {
    case 'down':
      return q;
    case 'up':
      return q + 1n;
    case 'half-up':
      return 2n * r >= denominator ? q + 1n : q;
  }
}

/** Formats units of 10^-scale as a fixed-point string with exactly `scale` decimals. */
export function formatScaled(units: bigint, scale: number): string {
  if (units < 0n) throw new RangeError('negative amount');
  if (scale === 0) return units.toString();
  const digits = units.toString().padStart(scale + 1, '0');
  return `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** Satoshis as a BTC decimal string without trailing zeros or exponent ("0.0005", "1", "0"). */
export function satsToBtc(sats: bigint): string {
  const fixed = formatScaled(sats, 8);
  return fixed.replace(/\.?0+$/, '') || '0';
}

/** BTC decimal string (at most 8 decimals) to satoshis; throws RangeError on more precision. */
export function btcToSats(btc: string): bigint {
  const v = parseDecimal(btc);
  if (v.scale > 8) {
    const excess = v.units % pow10(v.scale - 8);
    if (excess !== 0n) throw new RangeError(`more precise than one satoshi: ${btc}`);
    return v.units / pow10(v.scale - 8);
  }
  return rescaleUp(v, 8);
}

/** Satoshis needed for `orderAmount` at `rate` (order currency per BTC), rounded up so the merchant never gets less. */
export function requiredSats(orderAmount: string, rate: string): bigint {
  const a = parseDecimal(orderAmount);
  const r = parseDecimal(rate);
  if (r.units === 0n) throw new RangeError('rate must be positive');
  // sats = a.units/10^a.scale * 1e8 / (r.units/10^r.scale)
  return divRound(a.units * SATS_PER_BTC * pow10(r.scale), r.units * pow10(a.scale), 'up');
}

/** Order-currency value of `sats` at `rate`, at `minorUnits` decimals, rounded half-up. */
export function satsValue(sats: bigint, rate: string, minorUnits: number): string {
  const r = parseDecimal(rate);
  const units = divRound(sats * r.units * pow10(minorUnits), SATS_PER_BTC * pow10(r.scale), 'half-up');
  return formatScaled(units, minorUnits);
}
