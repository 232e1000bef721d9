// Coinbase public data API: /v2/exchange-rates?currency=BTC lists 1 BTC in every currency it knows.
import { isJsonObject } from '../../money/exact-json.ts';
import { getJson, joinUrl } from './http.ts';
import {
  DEFAULT_TIMEOUT_MS, type ProviderOptions, ProviderError, type RateMap, type RateProvider,
  preview, putPrice, requireSome,
} from './types.ts';

/** Coinbase adapter (default base https://api.coinbase.com); keeps ISO 4217 codes, or `currencies` when given. */
export class CoinbaseProvider implements RateProvider {
  readonly name = 'coinbase';
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly wanted: ReadonlySet<string> | undefined;

  constructor(options: ProviderOptions = {}) {
    this.baseUrl = options.baseUrl ?? 'https://api.coinbase.com';
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.wanted = options.currencies ? new Set(options.currencies.map((c) => c.toUpperCase())) : undefined;
  }

  /** GET /v2/exchange-rates?currency=BTC → {"data":{"currency":"BTC","rates":{"USD":"50000.12",…}}}. */
  async fetchRates(signal?: AbortSignal): Promise<RateMap> {
    const body = await getJson(this.name, joinUrl(this.baseUrl, '/v2/exchange-rates?currency=BTC'), this.timeoutMs, signal);
    const data = isJsonObject(body) ? body['data'] : undefined;
    if (!isJsonObject(data)) throw new ProviderError(this.name, 'malformed', `expected {"data":{…}}, got ${preview(body)}`);
    if (data['currency'] !== 'BTC') {
      throw new ProviderError(this.name, 'invalid', `rates are based on ${preview(data['currency'])}, not BTC`);
    }
    const rates = data['rates'];
    if (!isJsonObject(rates)) throw new ProviderError(this.name, 'malformed', 'data.rates missing or not an object');
    const out: RateMap = new Map();
    for (const [code, value] of Object.entries(rates)) putPrice(out, this.name, code, value, this.wanted);
    return requireSome(this.name, out);
  }
}
