// Exact decimal arithmetic on strings: a value is a bigint of units and a scale
// (value = units / 10^scale). No JavaScript number ever holds a money value here.

/** A non-negative decimal as scaled integer: value = units / 10^scale. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

/** How a result that falls between two representable values is resolved. */
export type RoundingMode = 'up' | 'down' | 'half-up';

/** Raised for text that is not an acceptable decimal, with the reason in the message. */
export class DecimalError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'DecimalError';
  }
}

/** Limits on the digits a parsed decimal may have, and whether zero padding is accepted. */
export interface DecimalLimits {
  /** Most digits before the point, redundant leading zeros not counted (default 24). */
  maxIntegerDigits?: number;
  /** Most digits after the point (default 18). */
  maxFractionDigits?: number;
  /** Accept redundant leading zeros ("007.50" reads as 7.50); refused by default. */
  allowLeadingZeros?: boolean;
}

const DECIMAL_RE = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;
const NUMBER_LITERAL_RE = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;
/** Largest exponent magnitude a number literal may have (1e400); beyond it no amount, count or id is meant. */
export const MAX_EXPONENT = 400;

/** Parses a non-negative plain decimal ("0", "12.30"); rejects signs, exponents, "NaN", ".5", "5.", leading zeros (unless allowed) and over-long input. */
export function parseDecimal(text: string, limits: DecimalLimits = {}): Decimal {
  const maxInt = limits.maxIntegerDigits ?? 24;
  const maxFrac = limits.maxFractionDigits ?? 18;
  if (typeof text !== 'string') throw new DecimalError('a decimal must be given as a string');
  if (text.length === 0) throw new DecimalError('empty decimal');
  // Padding is dropped before any check, so it neither counts as digits nor fails the shape test.
  const body = limits.allowLeadingZeros === true ? text.replace(/^0+(?=[0-9])/, '') : text;
  if (body.length > maxInt + maxFrac + 1) throw new DecimalError(`decimal ${show(text)} has too many digits`);
  const m = DECIMAL_RE.exec(body);
  if (!m) throw new DecimalError(`${show(text)} is not a plain non-negative decimal (digits, optionally "." and digits)`);
  const intPart = m[1] ?? '0';
  const fracPart = m[2] ?? '';
  if (intPart.length > maxInt) throw new DecimalError(`decimal ${show(text)} has more than ${maxInt} digits before the point`);
  if (fracPart.length > maxFrac) throw new DecimalError(`decimal ${show(text)} has more than ${maxFrac} digits after the point`);
  return { units: BigInt(intPart + fracPart), scale: fracPart.length };
}

/** True when `text` parses with {@link parseDecimal} under the same limits. */
export function isDecimal(text: string, limits?: DecimalLimits): boolean {
  try {
    parseDecimal(text, limits);
    return true;
  } catch {
    return false;
  }
}

/** Writes a decimal at its own scale (units 1230n, scale 2 gives "12.30"); a negative value gets a leading "-". */
export function decimalToString(d: Decimal): string {
  return unitsToString(d.units, d.scale);
}

/** Writes `units / 10^scale` as plain text with exactly `scale` fraction digits. */
export function unitsToString(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString();
  if (scale === 0) return (negative ? '-' : '') + digits;
  const padded = digits.padStart(scale + 1, '0');
  const cut = padded.length - scale;
  return `${negative ? '-' : ''}${padded.slice(0, cut)}.${padded.slice(cut)}`;
}

/** Removes trailing fraction zeros and a bare point ("12.300" gives "12.3", "5.00" gives "5"). */
export function trimDecimal(text: string): string {
  if (!text.includes('.')) return text;
  return text.replace(/0+$/, '').replace(/\.$/, '');
}

/** Parses strictly and writes back in shortest form ("12.300" gives "12.3"). */
export function normalizeDecimal(text: string, limits?: DecimalLimits): string {
  return trimDecimal(decimalToString(parseDecimal(text, limits)));
}

/** Divides non-negative `num` by positive `den` and rounds the quotient by `mode`. */
export function divideRounded(num: bigint, den: bigint, mode: RoundingMode): bigint {
  if (den <= 0n) throw new DecimalError('division by zero or a negative divisor');
  if (num < 0n) throw new DecimalError('negative dividend');
  const q = num / den;
  const r = num % den;
  if (r === 0n || mode === 'down') return q;
  if (mode === 'up') return q + 1n;
  return 2n * r >= den ? q + 1n : q;
}

/** Changes a decimal's scale, rounding by `mode` when digits are dropped. */
export function rescale(d: Decimal, scale: number, mode: RoundingMode): Decimal {
  if (scale >= d.scale) return { units: d.units * 10n ** BigInt(scale - d.scale), scale };
  return { units: divideRounded(d.units, 10n ** BigInt(d.scale - scale), mode), scale };
}

/** Rounds a decimal string to exactly `scale` fraction digits ("2.345", 2 gives "2.35" half-up). */
export function roundDecimal(text: string, scale: number, mode: RoundingMode = 'half-up'): string {
  return decimalToString(rescale(parseWide(text), scale, mode));
}

/** Compares two decimal strings exactly: -1, 0 or 1. */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const x = parseWide(a);
  const y = parseWide(b);
  const scale = Math.max(x.scale, y.scale);
  const xu = x.units * 10n ** BigInt(scale - x.scale);
  const yu = y.units * 10n ** BigInt(scale - y.scale);
  return xu < yu ? -1 : xu > yu ? 1 : 0;
}

/** Exact sum of two decimal strings, trimmed ("0.1" + "0.2" gives "0.3"). */
export function addDecimals(a: string, b: string): string {
  const x = parseWide(a);
  const y = parseWide(b);
  const scale = Math.max(x.scale, y.scale);
  const units = x.units * 10n ** BigInt(scale - x.scale) + y.units * 10n ** BigInt(scale - y.scale);
  return trimDecimal(unitsToString(units, scale));
}

/** Exact product of two decimal strings, trimmed. */
export function multiplyDecimals(a: string, b: string): string {
  const x = parseWide(a);
  const y = parseWide(b);
  return trimDecimal(unitsToString(x.units * y.units, x.scale + y.scale));
}

/** Quotient a ÷ b rounded by `mode` to exactly `scale` fraction digits. */
export function divideDecimals(a: string, b: string, scale: number, mode: RoundingMode = 'half-up'): string {
  const x = parseWide(a);
  const y = parseWide(b);
  if (y.units === 0n) throw new DecimalError('division by zero');
  // a/b = (xu/10^xs)/(yu/10^ys); scaled by 10^scale.
  const num = x.units * 10n ** BigInt(y.scale + scale);
  const den = y.units * 10n ** BigInt(x.scale);
  return unitsToString(divideRounded(num, den, mode), scale);
}

/**
 * Turns a JSON number literal ("50000.1", "5e4", "-1.5E-3") into an exact plain decimal
 * string ("50000.1", "50000", "-0.0015"); throws on anything that is not a JSON number.
 */
export function decimalFromNumberLiteral(literal: string): string {
  const m = NUMBER_LITERAL_RE.exec(literal);
  if (!m) throw new DecimalError(`${show(literal)} is not a JSON number literal`);
  const sign = m[1] ?? '';
  const intPart = m[2] ?? '0';
  const fracPart = m[3] ?? '';
  const exp = m[4] === undefined ? 0 : Number.parseInt(m[4], 10);
  if (Math.abs(exp) > MAX_EXPONENT) throw new DecimalError(`number ${show(literal)} is out of range`);
  let scale = fracPart.length - exp;
  let units = BigInt(intPart + fracPart);
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  const body = trimDecimal(unitsToString(units, scale));
  return units === 0n ? '0' : sign + body;
}

function parseWide(text: string): Decimal {
  return parseDecimal(text, { maxIntegerDigits: 60, maxFractionDigits: 60 });
}

function show(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}
