// Frankfurter (European Central Bank reference rates): fiat cross rates from USD, used to
// price BTC in currencies no exchange quotes directly.
import { compareDecimals } from '../../money/decimal.ts';
import { isIso4217 } from '../../money/currencies.ts';
import { isJsonObject, numericText } from '../../money/exact-json.ts';
import { getJson, joinUrl } from './http.ts';
import {
  DEFAULT_TIMEOUT_MS, type FiatRateSource, type FiatRates, type ProviderOptions, ProviderError,
  boundedDecimal, preview, splitDate,
} from './types.ts';

/** Options of the Frankfurter source; `base` is the currency the rates start from (default USD). */
export interface FrankfurterOptions extends Omit<ProviderOptions, 'currencies'> {
  base?: string;
}

/** Largest believable number of units of one currency per unit of another. */
const MAX_FX_RATE = '100000000';

/** Frankfurter adapter (default base https://api.frankfurter.dev/v1). */
export class FrankfurterSource implements FiatRateSource {
  readonly name = 'frankfurter';
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly base: string;

  constructor(options: FrankfurterOptions = {}) {
    this.baseUrl = options.baseUrl ?? 'https://api.frankfurter.dev/v1';
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.base = (options.base ?? 'USD').toUpperCase();
  }

  /** GET /latest?base=USD → {"amount":1.0,"base":"USD","date":"…","rates":{"EUR":0.92,…}}. */
  async fetchFiatRates(signal?: AbortSignal): Promise<FiatRates> {
    return this.read(`/latest?base=${this.base}`, signal);
  }

  /** GET /YYYY-MM-DD?base=USD: the last published rates on or before that day. */
  async fetchHistoricalFiatRates(dateUtc: string, signal?: AbortSignal): Promise<FiatRates> {
    splitDate(this.name, dateUtc);
    return this.read(`/${dateUtc}?base=${this.base}`, signal);
  }

  private async read(path: string, signal?: AbortSignal): Promise<FiatRates> {
    const body = await getJson(this.name, joinUrl(this.baseUrl, path), this.timeoutMs, signal);
    if (!isJsonObject(body)) throw new ProviderError(this.name, 'malformed', `expected an object, got ${preview(body)}`);
    if (body['base'] !== this.base) throw new ProviderError(this.name, 'invalid', `answer is based on ${preview(body['base'])}, not ${this.base}`);
    const amount = numericText(body['amount']);
    if (amount !== undefined && compareDecimals(amount, '1') !== 0) {
      throw new ProviderError(this.name, 'invalid', `answer is for an amount of ${amount}, not 1`);
    }
    const date = body['date'];
    if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new ProviderError(this.name, 'malformed', 'missing or bad "date"');
    const raw = body['rates'];
    if (!isJsonObject(raw)) throw new ProviderError(this.name, 'malformed', '"rates" missing or not an object');
    const rates = new Map<string, string>();
    for (const [code, value] of Object.entries(raw)) {
      if (!isIso4217(code)) continue;
      const text = numericText(value);
      if (text === undefined) throw new ProviderError(this.name, 'malformed', `rate for ${code} is not a number: ${preview(value)}`);
      const rate = boundedDecimal(text, 10);
      if (rate === undefined || compareDecimals(rate, MAX_FX_RATE) > 0) continue;
      rates.set(code, rate);
    }
    if (rates.size === 0) throw new ProviderError(this.name, 'invalid', 'answer held no usable rate');
    return { base: this.base, date, rates };
  }
}
