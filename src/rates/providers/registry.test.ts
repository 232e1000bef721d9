import { describe, expect, it } from 'vitest';
import { createRateSources } from './registry.ts';

describe('createRateSources', () => {
  it('uses the four exchanges and Frankfurter by default', () => {
    const { providers, fiat } = createRateSources();
    expect(providers.map((p) => p.name)).toEqual(['coingecko', 'kraken', 'bitstamp', 'coinbase']);
    expect(fiat?.name).toBe('frankfurter');
  });

  it('uses only the rates file when one is set and no names are given', () => {
    const { providers, fiat } = createRateSources({ ratesFile: '/tmp/rates.json' });
    expect(providers.map((p) => p.name)).toEqual(['file']);
    expect(fiat).toBeNull();
  });

  it('builds the named providers once each', () => {
    const { providers, fiat } = createRateSources({ names: ['kraken', 'coinbase', 'kraken'] });
    expect(providers.map((p) => p.name)).toEqual(['kraken', 'coinbase']);
    expect(fiat).toBeNull();
  });

  it('refuses unknown names and a file provider without a file', () => {
    expect(() => createRateSources({ names: ['kraken', 'binance'] })).toThrow(/unknown rate provider\(s\) binance; known: coingecko, kraken/);
    expect(() => createRateSources({ names: ['file'] })).toThrow(/needs SATGATE_RATES_FILE/);
  });
});
