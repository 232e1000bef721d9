import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayServer, startReplayServer } from '../../../test/support/replay-server.ts';
import { FrankfurterSource } from './frankfurter.ts';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer({
    '/v1/latest?base=USD': { file: 'rates/frankfurter-latest-usd.json' },
    '/v1/2024-01-02?base=USD': { file: 'rates/frankfurter-2024-01-02-usd.json' },
    '/v1/latest?base=EUR': { file: 'rates/frankfurter-latest-usd.json' },
  });
});
afterAll(() => server.close());

describe('Frankfurter fiat source', () => {
  it('reads USD cross rates exactly, JSON numbers included', async () => {
    const fx = await new FrankfurterSource({ baseUrl: `${server.url}/v1` }).fetchFiatRates();
    expect(fx.base).toBe('USD');
    expect(fx.date).toBe('2026-11-20');
    expect(fx.rates.get('EUR')).toBe('0.96376');
    expect(fx.rates.get('IDR')).toBe('16160');
    expect(fx.rates.get('ISK')).toBe('137.23');
    expect(fx.rates.size).toBe(30);
  });

  it('reads a past day', async () => {
    const fx = await new FrankfurterSource({ baseUrl: `${server.url}/v1` }).fetchHistoricalFiatRates('2024-01-02');
    expect(fx.date).toBe('2024-01-02');
    expect(fx.rates.get('JPY')).toBe('142');
  });

  it('refuses an answer for another base', async () => {
    await expect(new FrankfurterSource({ baseUrl: `${server.url}/v1`, base: 'EUR' }).fetchFiatRates())
      .rejects.toThrow('frankfurter: answer is based on "USD", not EUR');
  });
});
