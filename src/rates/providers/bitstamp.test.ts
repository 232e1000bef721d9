import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayServer, startReplayServer } from '../../../test/support/replay-server.ts';
import { BitstampProvider } from './bitstamp.ts';
import { ProviderError } from './types.ts';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer({
    '/api/v2/ticker/btcusd/': { file: 'rates/bitstamp-ticker-btcusd.json' },
    '/api/v2/ticker/btceur/': { file: 'rates/bitstamp-ticker-btceur.json' },
    '/api/v2/ticker/btcgbp/': { file: 'rates/bitstamp-ticker-btcgbp.json' },
  });
});
afterAll(() => server.close());

describe('Bitstamp adapter', () => {
  it('asks one ticker per pair and reads "last"', async () => {
    const rates = await new BitstampProvider({ baseUrl: server.url }).fetchRates();
    expect(Object.fromEntries(rates)).toEqual({ USD: '97228', EUR: '93875', GBP: '78007' });
    expect(server.requests.map((r) => r.url).sort()).toEqual(['/api/v2/ticker/btceur/', '/api/v2/ticker/btcgbp/', '/api/v2/ticker/btcusd/']);
  });

  it('answers with the pairs that responded when one pair fails', async () => {
    const rates = await new BitstampProvider({ baseUrl: server.url, currencies: ['USD', 'CHF'] }).fetchRates();
    expect(Object.fromEntries(rates)).toEqual({ USD: '97228' });
  });

  it('fails with the first error when no pair responds', async () => {
    const err = await new BitstampProvider({ baseUrl: server.url, currencies: ['CHF'] }).fetchRates().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).reason).toBe('http');
    expect((err as ProviderError).status).toBe(404);
  });
});
