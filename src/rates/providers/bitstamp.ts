// Bitstamp public API v2: /api/v2/ticker/btc<fiat>/, one request per pair, price "last".
import { isJsonObject } from '../../money/exact-json.ts';
import { getJson, joinUrl } from './http.ts';
import {
  DEFAULT_TIMEOUT_MS, type ProviderOptions, ProviderError, type RateMap, type RateProvider,
  preview, putPrice, requireSome,
} from './types.ts';

/** Fiat currencies Bitstamp trades against BTC. */
export const BITSTAMP_CURRENCIES: readonly string[] = ['USD', 'EUR', 'GBP'];

/** Bitstamp adapter (default base https://www.bitstamp.net); answers with the pairs that responded. */
export class BitstampProvider implements RateProvider {
  readonly name = 'bitstamp';
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly currencies: readonly string[];

  constructor(options: ProviderOptions = {}) {
    this.baseUrl = options.baseUrl ?? 'https://www.bitstamp.net';
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.currencies = options.currencies ?? BITSTAMP_CURRENCIES;
  }

  /** GET /api/v2/ticker/btcusd/ → {"last":"50000",…} for each currency; fails only when no pair answers. */
  async fetchRates(signal?: AbortSignal): Promise<RateMap> {
    const settled = await Promise.allSettled(this.currencies.map((c) => this.fetchPair(c.toUpperCase(), signal)));
    const out: RateMap = new Map();
    let firstError: unknown;
    for (const s of settled) {
      if (s.status === 'fulfilled') {
        if (s.value[1] !== undefined) out.set(s.value[0], s.value[1]);
      } else {
        firstError ??= s.reason;
      }
    }
    if (out.size === 0 && firstError !== undefined) throw firstError;
    return requireSome(this.name, out);
  }

  private async fetchPair(code: string, signal?: AbortSignal): Promise<[string, string | undefined]> {
    const pair = `btc${code.toLowerCase()}`;
    const body = await getJson(this.name, joinUrl(this.baseUrl, `/api/v2/ticker/${pair}/`), this.timeoutMs, signal);
    if (!isJsonObject(body) || body['last'] === undefined) {
      throw new ProviderError(this.name, 'malformed', `ticker ${pair} has no "last" field (got ${preview(body)})`);
    }
    const one: RateMap = new Map();
    putPrice(one, this.name, code, body['last']);
    return [code, one.get(code)];
  }
}
