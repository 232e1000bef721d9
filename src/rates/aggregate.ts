// Combines provider answers: median per currency, then BTC prices derived through a fiat
// cross-rate source for currencies no provider quoted.
import { multiplyDecimals, parseDecimal, roundDecimal, trimDecimal, unitsToString } from '../money/decimal.ts';
import {
  type FiatRateSource, type FiatRates, ProviderError, type RateMap, type RateProvider, PRICE_SCALE,
} from './providers/types.ts';

/** What one provider gave: its rates, or its error. */
export type ProviderOutcome =
  | { provider: string; ok: true; rates: RateMap }
  | { provider: string; ok: false; error: ProviderError };

/** The combined rates and how they were made. */
export interface AggregateResult {
  /** Price of 1 BTC per uppercase code, decimal strings with at most {@link PRICE_SCALE} decimals. */
  rates: RateMap;
  /** How many providers quoted each code directly (absent for derived codes). */
  quotes: Map<string, number>;
  /** Codes priced through the fiat cross rates, sorted. */
  derived: string[];
  /** Names of providers that answered, in the order given. */
  answered: string[];
  /** Providers that failed, with their error. */
  failed: { provider: string; error: ProviderError }[];
  /** The fiat cross rates used, when a fiat source answered. */
  fiat: FiatRates | null;
  /** The fiat source's error, when it failed. */
  fiatError: ProviderError | null;
}

/** Exact median of positive decimal strings; an even count averages the two middle values; rounded half-up to `maxScale` only when longer. */
export function medianDecimal(values: readonly string[], maxScale = PRICE_SCALE): string {
  if (values.length === 0) throw new RangeError('median of no values');
  const parsed = values.map((v) => parseDecimal(v, { maxIntegerDigits: 40, maxFractionDigits: 40 }));
  const scale = Math.max(...parsed.map((d) => d.scale));
  const units = parsed.map((d) => d.units * 10n ** BigInt(scale - d.scale)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const mid = units.length >> 1;
  let text: string;
  if (units.length % 2 === 1) {
    text = unitsToString(units[mid]!, scale);
  } else {
    // (a + b) / 2 = 5(a + b) / 10: exact with one more decimal.
    text = unitsToString(5n * (units[mid - 1]! + units[mid]!), scale + 1);
  }
  const trimmed = trimDecimal(text);
  const fraction = trimmed.split('.')[1] ?? '';
  return fraction.length > maxScale ? trimDecimal(roundDecimal(trimmed, maxScale, 'half-up')) : trimmed;
}

/** Median per currency over the rate maps of the providers that answered. */
export function medianRates(maps: readonly RateMap[]): { rates: RateMap; quotes: Map<string, number> } {
  const byCode = new Map<string, string[]>();
  for (const map of maps) {
    for (const [code, price] of map) {
      const list = byCode.get(code);
      if (list) list.push(price);
      else byCode.set(code, [price]);
    }
  }
  const rates: RateMap = new Map();
  const quotes = new Map<string, number>();
  for (const code of [...byCode.keys()].sort()) {
    const list = byCode.get(code)!;
    rates.set(code, medianDecimal(list));
    quotes.set(code, list.length);
  }
  return { rates, quotes };
}

/**
 * BTC prices for the codes in `fiat` that `btc` lacks: price(code) = price(base) × rate(base→code),
 * exact, then rounded half-up to {@link PRICE_SCALE} decimals. Empty when `btc` has no price for the base.
 */
export function crossRates(btc: RateMap, fiat: FiatRates): RateMap {
  const out: RateMap = new Map();
  const basePrice = btc.get(fiat.base);
  if (basePrice === undefined) return out;
  for (const code of [...fiat.rates.keys()].sort()) {
    if (btc.has(code) || code === fiat.base) continue;
    const product = multiplyDecimals(basePrice, fiat.rates.get(code)!);
    out.set(code, trimDecimal(roundDecimal(product, PRICE_SCALE, 'half-up')));
  }
  return out;
}

/** Median of the answered providers, plus cross-derived codes when `fiat` is given. */
export function aggregateRates(
  outcomes: readonly ProviderOutcome[],
  fiat: FiatRates | null = null,
  fiatError: ProviderError | null = null,
): AggregateResult {
  const answered: string[] = [];
  const failed: AggregateResult['failed'] = [];
  const maps: RateMap[] = [];
  for (const o of outcomes) {
    if (o.ok) {
      answered.push(o.provider);
      maps.push(o.rates);
    } else {
      failed.push({ provider: o.provider, error: o.error });
    }
  }
  const { rates, quotes } = medianRates(maps);
  const derived: string[] = [];
  if (fiat) {
    for (const [code, price] of crossRates(rates, fiat)) {
      rates.set(code, price);
      derived.push(code);
    }
  }
  return { rates: new Map([...rates].sort(([a], [b]) => (a < b ? -1 : 1))), quotes, derived, answered, failed, fiat, fiatError };
}

/** Asks every provider (and the fiat source) at once and aggregates whatever answered. */
export async function collectRates(
  providers: readonly RateProvider[],
  fiatSource: FiatRateSource | null = null,
  signal?: AbortSignal,
): Promise<AggregateResult> {
  return gather(
    providers.map((p) => [p.name, () => p.fetchRates(signal)] as const),
    fiatSource ? [fiatSource.name, () => fiatSource.fetchFiatRates(signal)] : null,
  );
}

/** Like {@link collectRates} for a past UTC day (`YYYY-MM-DD`); providers without history are skipped. */
export async function collectHistoricalRates(
  providers: readonly RateProvider[],
  fiatSource: FiatRateSource | null,
  dateUtc: string,
  signal?: AbortSignal,
): Promise<AggregateResult> {
  const calls = providers.flatMap((p) => {
    const fetchHistorical = p.fetchHistorical?.bind(p);
    return fetchHistorical ? [[p.name, () => fetchHistorical(dateUtc, signal)] as const] : [];
  });
  const fetchFiat = fiatSource?.fetchHistoricalFiatRates?.bind(fiatSource);
  return gather(calls, fiatSource && fetchFiat ? [fiatSource.name, () => fetchFiat(dateUtc, signal)] : null);
}

async function gather(
  calls: readonly (readonly [string, () => Promise<RateMap>])[],
  fiatCall: readonly [string, () => Promise<FiatRates>] | null,
): Promise<AggregateResult> {
  const [settled, fiatSettled] = await Promise.all([
    Promise.allSettled(calls.map(([, call]) => call())),
    fiatCall ? Promise.allSettled([fiatCall[1]()]) : Promise.resolve([]),
  ]);
  const outcomes: ProviderOutcome[] = settled.map((s, i) => {
    const provider = calls[i]![0];
    return s.status === 'fulfilled'
      ? { provider, ok: true, rates: s.value }
      : { provider, ok: false, error: asProviderError(provider, s.reason) };
  });
  const f = fiatSettled[0];
  const fiat = f?.status === 'fulfilled' ? f.value : null;
  const fiatError = f?.status === 'rejected' && fiatCall ? asProviderError(fiatCall[0], f.reason) : null;
  return aggregateRates(outcomes, fiat, fiatError);
}

function asProviderError(provider: string, err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  return new ProviderError(provider, 'invalid', `unexpected failure: ${err instanceof Error ? err.message : String(err)}`);
}
