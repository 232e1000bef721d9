import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayServer, startReplayServer } from '../../test/support/replay-server.ts';
import {
  aggregateRates, collectHistoricalRates, collectRates, crossRates, medianDecimal, type ProviderOutcome,
} from './aggregate.ts';
import { createRateSources } from './providers/registry.ts';
import { ProviderError, type RateMap } from './providers/types.ts';

const ok = (provider: string, rates: Record<string, string>): ProviderOutcome => ({ provider, ok: true, rates: new Map(Object.entries(rates)) });
const bad = (provider: string): ProviderOutcome => ({ provider, ok: false, error: new ProviderError(provider, 'timeout', 'no complete answer within 10 ms') });

describe('medianDecimal', () => {
  it('of 1, 2, 3 and 4 values', () => {
    expect(medianDecimal(['50000.5'])).toBe('50000.5');
    expect(medianDecimal(['50000', '50001'])).toBe('50000.5');
    expect(medianDecimal(['50002', '49000', '50001'])).toBe('50001');
    expect(medianDecimal(['4', '1', '3', '2'])).toBe('2.5');
  });

  it('averages the two middle values exactly, rounding half-up only beyond 8 decimals', () => {
    expect(medianDecimal(['0.1', '0.2'])).toBe('0.15');
    expect(medianDecimal(['100.00000001', '100.00000002'])).toBe('100.00000002'); // 100.000000015
    expect(medianDecimal(['100.00000001', '100.00000004'])).toBe('100.00000003'); // 100.000000025
    expect(medianDecimal(['1', '2'], 0)).toBe('2');
    expect(medianDecimal(['7.10', '7.1'])).toBe('7.1');
  });

  it('is not moved by one wild value among three', () => {
    expect(medianDecimal(['97000', '97100', '970000000'])).toBe('97100');
  });
});

describe('aggregateRates', () => {
  it('takes the median per currency over the providers that answered and lists who failed', () => {
    const result = aggregateRates([
      ok('a', { USD: '100', EUR: '90' }),
      bad('b'),
      ok('c', { USD: '102', EUR: '92', JPY: '15000' }),
      ok('d', { USD: '101' }),
      ok('e', { USD: '104' }),
    ]);
    expect(Object.fromEntries(result.rates)).toEqual({ EUR: '91', JPY: '15000', USD: '101.5' });
    expect(Object.fromEntries(result.quotes)).toEqual({ EUR: 2, JPY: 1, USD: 4 });
    expect(result.answered).toEqual(['a', 'c', 'd', 'e']);
    expect(result.failed.map((f) => [f.provider, f.error.reason])).toEqual([['b', 'timeout']]);
    expect(result.derived).toEqual([]);
  });

  it('gives empty rates when nobody answered', () => {
    const result = aggregateRates([bad('a'), bad('b')]);
    expect(result.rates.size).toBe(0);
    expect(result.answered).toEqual([]);
  });

  it('derives missing currencies from USD through the fiat cross rates, exactly', () => {
    const fiat = { base: 'USD', date: '2026-11-20', rates: new Map([['EUR', '0.96376'], ['ISK', '137.23'], ['HUF', '392.11'], ['USD', '1']]) };
    const result = aggregateRates([ok('a', { USD: '97231.12', EUR: '93880.55' })], fiat);
    expect(result.rates.get('EUR')).toBe('93880.55'); // quoted directly: kept
    expect(result.rates.get('ISK')).toBe('13343026.5976'); // 97231.12 × 137.23
    expect(result.rates.get('HUF')).toBe('38125294.4632'); // 97231.12 × 392.11
    expect(result.derived).toEqual(['HUF', 'ISK']);
    expect(result.quotes.has('ISK')).toBe(false);
  });

  it('rounds derived prices half-up to 8 decimals', () => {
    const derived = crossRates(new Map([['USD', '1.23456789']]), { base: 'USD', date: 'x', rates: new Map([['EUR', '0.5']]) });
    expect(derived.get('EUR')).toBe('0.61728395'); // 0.617283945
  });

  it('derives nothing without a price for the base currency', () => {
    const derived = crossRates(new Map([['EUR', '90000']]) as RateMap, { base: 'USD', date: 'x', rates: new Map([['ISK', '137']]) });
    expect(derived.size).toBe(0);
  });
});

describe('collectRates against replayed providers', () => {
  let server: ReplayServer;
  beforeAll(async () => {
    server = await startReplayServer({
      '/api/v3/simple/price': { file: 'rates/coingecko-simple-price.json' },
      '/0/public/Ticker': { file: 'rates/kraken-ticker.json' },
      '/api/v2/ticker/btcusd/': { file: 'rates/bitstamp-ticker-btcusd.json' },
      '/api/v2/ticker/btceur/': { file: 'rates/bitstamp-ticker-btceur.json' },
      '/api/v2/ticker/btcgbp/': { file: 'rates/bitstamp-ticker-btcgbp.json' },
      '/v2/exchange-rates': { file: 'rates/coinbase-exchange-rates-btc.json' },
      '/fx/latest': { file: 'rates/frankfurter-latest-usd.json' },
      '/fx/2024-01-02': { file: 'rates/frankfurter-2024-01-02-usd.json' },
      '/api/v3/coins/bitcoin/history': { file: 'rates/coingecko-history.json' },
    });
  });
  afterAll(() => server.close());

  const sources = () => createRateSources({
    timeoutMs: 2_000,
    baseUrls: { coingecko: server.url, kraken: server.url, bitstamp: server.url, coinbase: server.url, frankfurter: `${server.url}/fx` },
  });

  it('takes the median of all four exchanges and fills in ECB-only currencies', async () => {
    const { providers, fiat } = sources();
    const result = await collectRates(providers, fiat);
    expect(result.answered).toEqual(['coingecko', 'kraken', 'bitstamp', 'coinbase']);
    expect(result.failed).toEqual([]);
    // USD: 97228 (bitstamp), 97231.12345678 (coingecko), 97234.565 (coinbase), 97235 (kraken)
    expect(result.rates.get('USD')).toBe('97232.84422839'); // (97231.12345678 + 97234.565) / 2 = 97232.844228390
    expect(result.quotes.get('USD')).toBe(4);
    // EUR: 93875, 93880.55, 93885.255, 93890.1 → (93880.55 + 93885.255) / 2
    expect(result.rates.get('EUR')).toBe('93882.9025');
    // JPY: 15234500 (kraken), 15234877 (coingecko), 15235123.5 (coinbase) → middle
    expect(result.rates.get('JPY')).toBe('15234877');
    // KWD from two providers, VND from one
    expect(result.rates.get('KWD')).toBe('29988.7927');
    expect(result.rates.get('VND')).toBe('2461234567');
    // BGN and RON are quoted by no exchange: USD median × ECB rate
    expect(result.derived).toEqual(['BGN', 'RON']);
    expect(result.rates.get('BGN')).toBe('183264.46480167'); // 97232.84422839 × 1.8848 = 183264.464801669…
    expect(result.fiat?.date).toBe('2026-11-20');
    for (const price of result.rates.values()) expect(price).toMatch(/^\d+(\.\d{1,8})?$/);
  });

  it('still answers from the providers left when some fail', async () => {
    server.route('/0/public/Ticker', { status: 503, body: '{"error":["EService:Unavailable"]}' });
    server.route('/v2/exchange-rates', { file: 'rates/coinbase-exchange-rates-btc.json', delayMs: 3_000 });
    try {
      const { providers, fiat } = sources();
      const result = await collectRates(providers, fiat);
      expect(result.answered).toEqual(['coingecko', 'bitstamp']);
      expect(result.failed.map((f) => `${f.provider}:${f.error.reason}`)).toEqual(['kraken:http', 'coinbase:timeout']);
      expect(result.rates.get('USD')).toBe('97229.56172839'); // (97228 + 97231.12345678) / 2
    } finally {
      server.route('/0/public/Ticker', { file: 'rates/kraken-ticker.json' });
      server.route('/v2/exchange-rates', { file: 'rates/coinbase-exchange-rates-btc.json' });
    }
  });

  it('reports a failed fiat source without losing the exchange rates', async () => {
    server.route('/fx/latest', { status: 500, body: 'oops' });
    try {
      const { providers, fiat } = sources();
      const result = await collectRates(providers, fiat);
      expect(result.fiat).toBeNull();
      expect(result.fiatError?.message).toBe('frankfurter: HTTP 500: oops');
      expect(result.derived).toEqual([]);
      expect(result.rates.get('USD')).toBe('97232.84422839');
    } finally {
      server.route('/fx/latest', { file: 'rates/frankfurter-latest-usd.json' });
    }
  });

  it('collects a past day from the providers that keep history', async () => {
    const { providers, fiat } = sources();
    const result = await collectHistoricalRates(providers, fiat, '2024-01-02');
    expect(result.answered).toEqual(['coingecko']);
    expect(result.rates.get('USD')).toBe('42843.21098765');
    expect(result.rates.get('CHF')).toBe('36412.4450184'); // 42843.21098765 × 0.8499 = 36412.445018403735
    expect(result.fiat?.date).toBe('2024-01-02');
  });
});
