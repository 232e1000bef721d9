// Kraken public REST API: /0/public/Ticker, last trade price c[0] of each XBT/fiat pair.
import { isJsonObject } from '../../money/exact-json.ts';
import { getJson, joinUrl } from './http.ts';
import {
  DEFAULT_TIMEOUT_MS, type ProviderOptions, ProviderError, type RateMap, type RateProvider,
  preview, putPrice, requireSome,
} from './types.ts';

/** Fiat currencies Kraken trades against XBT. */
export const KRAKEN_CURRENCIES: readonly string[] = ['USD', 'EUR', 'GBP', 'CAD', 'JPY', 'CHF', 'AUD'];

// Kraken answers under its own pair names: XXBTZUSD, XXBTZEUR, … but XBTCHF, XBTAUD.
const PAIR_RE = /^X?XBTZ?([A-Z]{3})$/;

/** Kraken adapter (default base https://api.kraken.com). */
export class KrakenProvider implements RateProvider {
  readonly name = 'kraken';
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly currencies: readonly string[];

  constructor(options: ProviderOptions = {}) {
    this.baseUrl = options.baseUrl ?? 'https://api.kraken.com';
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.currencies = options.currencies ?? KRAKEN_CURRENCIES;
  }

  /** GET /0/public/Ticker?pair=XBTUSD,XBTEUR,… → {"error":[],"result":{"XXBTZUSD":{"c":["50000.1","0.001"],…}}}. */
  async fetchRates(signal?: AbortSignal): Promise<RateMap> {
    const pairs = this.currencies.map((c) => `XBT${c.toUpperCase()}`).join(',');
    const body = await getJson(this.name, joinUrl(this.baseUrl, `/0/public/Ticker?pair=${pairs}`), this.timeoutMs, signal);
    if (!isJsonObject(body)) throw new ProviderError(this.name, 'malformed', `expected an object, got ${preview(body)}`);
    const errors = body['error'];
    const result = body['result'];
    const errorText = Array.isArray(errors) ? errors.filter((e) => typeof e === 'string').join('; ') : '';
    if (!isJsonObject(result)) {
      if (errorText) throw new ProviderError(this.name, 'invalid', `API error: ${errorText}`);
      throw new ProviderError(this.name, 'malformed', 'no "result" object in the answer');
    }
    const wanted = new Set(this.currencies.map((c) => c.toUpperCase()));
    const out: RateMap = new Map();
    for (const [pair, ticker] of Object.entries(result)) {
      const code = PAIR_RE.exec(pair)?.[1];
      if (code === undefined || !wanted.has(code)) continue;
      const last = isJsonObject(ticker) ? ticker['c'] : undefined;
      if (!Array.isArray(last) || last.length < 1) {
        throw new ProviderError(this.name, 'malformed', `pair ${pair} has no last-trade array "c"`);
      }
      putPrice(out, this.name, code, last[0]);
    }
    if (out.size === 0 && errorText) throw new ProviderError(this.name, 'invalid', `API error: ${errorText}`);
    return requireSome(this.name, out);
  }
}
