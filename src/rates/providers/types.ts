// The contract every exchange-rate source meets, its error type, and the shared
// checks on the prices it reports.
import { isIso4217 } from '../../money/currencies.ts';
import { compareDecimals, roundDecimal, trimDecimal } from '../../money/decimal.ts';
import { JsonNumber, type JsonValue, numericText } from '../../money/exact-json.ts';

/** Prices of 1 BTC keyed by uppercase ISO 4217 code, each a plain decimal string. */
export type RateMap = Map<string, string>;

/** A source of BTC prices in fiat currencies. */
export interface RateProvider {
  /** Lowercase name, as used in SATGATE_RATE_PROVIDERS and in reports. */
  readonly name: string;
  /** Current prices; rejects with a {@link ProviderError}. */
  fetchRates(signal?: AbortSignal): Promise<RateMap>;
  /** Prices on a past UTC day (`YYYY-MM-DD`), where the source offers them. */
  fetchHistorical?(dateUtc: string, signal?: AbortSignal): Promise<RateMap>;
}

/** Fiat cross rates: 1 unit of `base` buys `rates.get(code)` units of code. */
export interface FiatRates {
  base: string;
  /** The day the rates apply to, `YYYY-MM-DD`, as the source reports it. */
  date: string;
  rates: Map<string, string>;
}

/** A source of fiat-to-fiat rates used to derive BTC prices in currencies no exchange quotes. */
export interface FiatRateSource {
  readonly name: string;
  fetchFiatRates(signal?: AbortSignal): Promise<FiatRates>;
  fetchHistoricalFiatRates?(dateUtc: string, signal?: AbortSignal): Promise<FiatRates>;
}

/** Options every network adapter takes. */
export interface ProviderOptions {
  /** Base URL without trailing slash; defaults to the real public API. */
  baseUrl?: string;
  /** Whole-request timeout in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** Uppercase codes to ask for, where the API takes a list; defaults per provider. */
  currencies?: readonly string[];
}

/** Default whole-request timeout of a provider call. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Why a provider call failed. */
export type ProviderFailure = 'http' | 'timeout' | 'network' | 'aborted' | 'malformed' | 'invalid' | 'config';

/** A provider's own failure: which provider, what kind, and a readable reason. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly reason: ProviderFailure,
    readonly detail: string,
    readonly status?: number,
  ) {
    super(`${provider}: ${detail}`);
    this.name = 'ProviderError';
  }
}

/** Smallest believable price of 1 BTC in any fiat unit. */
export const MIN_BTC_PRICE = '0.01';
/** Largest believable price of 1 BTC in any fiat unit (10^15). */
export const MAX_BTC_PRICE = '1000000000000000';
/** Fraction digits kept from a provider's price (more are rounded half-up). */
export const PRICE_SCALE = 8;

/** True when a positive decimal string lies within [MIN_BTC_PRICE, MAX_BTC_PRICE]. */
export function isPlausiblePrice(price: string): boolean {
  return compareDecimals(price, MIN_BTC_PRICE) >= 0 && compareDecimals(price, MAX_BTC_PRICE) <= 0;
}

/**
 * Reads one reported price exactly. Returns the decimal string, or undefined when the value is
 * null, non-positive or implausible (that currency is dropped); throws `malformed` when it is not
 * a number at all.
 */
export function readPrice(provider: string, code: string, value: JsonValue | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const text = numericText(value);
  if (text === undefined) {
    throw new ProviderError(provider, 'malformed', `price for ${code} is not a number: ${preview(value)}`);
  }
  const price = boundedDecimal(text, PRICE_SCALE);
  return price !== undefined && isPlausiblePrice(price) ? price : undefined;
}

/**
 * A positive plain decimal rounded half-up to at most `scale` decimals and trimmed; undefined for
 * zero, negatives and values with more than 16 integer digits. Safe on absurdly long input.
 */
export function boundedDecimal(text: string, scale: number): string | undefined {
  if (text.startsWith('-')) return undefined;
  const [int = '', frac = ''] = text.split('.');
  if (int.length > 16) return undefined;
  // Half-up at `scale` depends only on the next digit, so longer fractions can be cut first.
  const cut = frac.length > scale ? `${int}.${frac.slice(0, scale + 1)}` : text;
  const value = trimDecimal(frac.length > scale ? roundDecimal(cut, scale) : cut);
  return value === '0' ? undefined : value;
}

/** Adds `price` under `code` when the code is a known ISO 4217 code (and wanted); ignores others. */
export function putPrice(
  out: RateMap, provider: string, code: string, value: JsonValue | undefined, wanted?: ReadonlySet<string>,
): void {
  const upper = code.toUpperCase();
  if (!isIso4217(upper) || (wanted && !wanted.has(upper))) return;
  const price = readPrice(provider, upper, value);
  if (price !== undefined) out.set(upper, price);
}

/** Throws `invalid` when a provider yielded no usable price. */
export function requireSome(provider: string, rates: RateMap): RateMap {
  if (rates.size === 0) throw new ProviderError(provider, 'invalid', 'answer held no usable BTC price');
  return rates;
}

/** Short printable form of a JSON value for error messages. */
export function preview(value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing';
  if (value instanceof JsonNumber) return value.text;
  const s = typeof value === 'string' ? JSON.stringify(value) : Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value === 'object' ? 'an object' : String(value);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

/** Checks a `YYYY-MM-DD` UTC date and returns its parts. */
export function splitDate(provider: string, dateUtc: string): { y: string; m: string; d: string } {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dateUtc);
  const t = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== dateUtc) {
    throw new ProviderError(provider, 'config', `date ${JSON.stringify(dateUtc)} is not a valid YYYY-MM-DD day`);
  }
  return { y: m[1]!, m: m[2]!, d: m[3]! };
}
