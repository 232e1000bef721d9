// CoinGecko public API v3: /simple/price for current prices, /coins/bitcoin/history for a past day.
import { isJsonObject } from '../../money/exact-json.ts';
import { getJson, joinUrl } from './http.ts';
import {
  DEFAULT_TIMEOUT_MS, type ProviderOptions, ProviderError, type RateMap, type RateProvider,
  preview, putPrice, requireSome, splitDate,
} from './types.ts';

/** Fiat codes CoinGecko lists among its vs_currencies. */
export const COINGECKO_CURRENCIES: readonly string[] = [
  'USD', 'AED', 'ARS', 'AUD', 'BDT', 'BHD', 'BMD', 'BRL', 'CAD', 'CHF', 'CLP', 'CNY', 'CZK', 'DKK', 'EUR',
  'GBP', 'GEL', 'HKD', 'HUF', 'IDR', 'ILS', 'INR', 'JPY', 'KRW', 'KWD', 'LKR', 'MMK', 'MXN', 'MYR', 'NGN',
  'NOK', 'NZD', 'PHP', 'PKR', 'PLN', 'RUB', 'SAR', 'SEK', 'SGD', 'THB', 'TRY', 'TWD', 'UAH', 'VND', 'ZAR',
];

/** Options of the CoinGecko adapter; `apiKey` is sent as x-cg-demo-api-key when set. */
export interface CoinGeckoOptions extends ProviderOptions {
  apiKey?: string;
}

/** CoinGecko adapter (default base https://api.coingecko.com). */
export class CoinGeckoProvider implements RateProvider {
  readonly name = 'coingecko';
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly currencies: readonly string[];
  private readonly headers: Record<string, string>;

  constructor(options: CoinGeckoOptions = {}) {
    this.baseUrl = options.baseUrl ?? 'https://api.coingecko.com';
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.currencies = options.currencies ?? COINGECKO_CURRENCIES;
    this.headers = options.apiKey ? { 'x-cg-demo-api-key': options.apiKey } : {};
  }

  /** GET /api/v3/simple/price?ids=bitcoin&vs_currencies=usd,eur,… → {"bitcoin":{"usd":50000.12,…}}. */
  async fetchRates(signal?: AbortSignal): Promise<RateMap> {
    const vs = this.currencies.map((c) => c.toLowerCase()).join(',');
    const url = joinUrl(this.baseUrl, `/api/v3/simple/price?ids=bitcoin&vs_currencies=${encodeURIComponent(vs)}&precision=full`);
    const body = await getJson(this.name, url, this.timeoutMs, signal, this.headers);
    const prices = isJsonObject(body) ? body['bitcoin'] : undefined;
    if (!isJsonObject(prices)) throw new ProviderError(this.name, 'malformed', `expected {"bitcoin":{…}}, got ${preview(body)}`);
    return this.collect(prices);
  }

  /** GET /api/v3/coins/bitcoin/history?date=dd-mm-yyyy → market_data.current_price. */
  async fetchHistorical(dateUtc: string, signal?: AbortSignal): Promise<RateMap> {
    const { y, m, d } = splitDate(this.name, dateUtc);
    const url = joinUrl(this.baseUrl, `/api/v3/coins/bitcoin/history?date=${d}-${m}-${y}&localization=false`);
    const body = await getJson(this.name, url, this.timeoutMs, signal, this.headers);
    if (!isJsonObject(body)) throw new ProviderError(this.name, 'malformed', `expected an object, got ${preview(body)}`);
    const market = body['market_data'];
    if (market === undefined) throw new ProviderError(this.name, 'invalid', `no market data for ${dateUtc}`);
    const prices = isJsonObject(market) ? market['current_price'] : undefined;
    if (!isJsonObject(prices)) throw new ProviderError(this.name, 'malformed', 'market_data.current_price missing or not an object');
    return this.collect(prices);
  }

  private collect(prices: Record<string, import('../../money/exact-json.ts').JsonValue>): RateMap {
    const wanted = new Set(this.currencies.map((c) => c.toUpperCase()));
    const out: RateMap = new Map();
    for (const [key, value] of Object.entries(prices)) putPrice(out, this.name, key, value, wanted);
    return requireSome(this.name, out);
  }
}
