import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayServer, startReplayServer } from '../../../test/support/replay-server.ts';
import { KrakenProvider } from './kraken.ts';
import { ProviderError } from './types.ts';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer({
    '/0/public/Ticker?pair=XBTUSD,XBTEUR,XBTGBP,XBTCAD,XBTJPY,XBTCHF,XBTAUD': { file: 'rates/kraken-ticker.json' },
    '/0/public/Ticker?pair=XBTUSD,XBTEUR': { file: 'rates/kraken-ticker.json' },
    '/0/public/Ticker?pair=XBTXYZ': { file: 'rates/kraken-error-unknown-pair.json' },
  });
});
afterAll(() => server.close());

describe('Kraken adapter', () => {
  it('maps Kraken pair names (XXBTZUSD, XBTCHF) to codes and takes the last trade c[0]', async () => {
    const rates = await new KrakenProvider({ baseUrl: server.url }).fetchRates();
    expect(Object.fromEntries(rates)).toEqual({
      USD: '97235', EUR: '93890.1', GBP: '78015.5', CAD: '139810.4', JPY: '15234500', CHF: '88125', AUD: '155875.7',
    });
  });

  it('ignores pairs in the answer that it did not ask for', async () => {
    const rates = await new KrakenProvider({ baseUrl: server.url, currencies: ['USD', 'EUR'] }).fetchRates();
    expect([...rates.keys()].sort()).toEqual(['EUR', 'USD']);
  });

  it('reports the API error list when the answer has no result', async () => {
    const err = await new KrakenProvider({ baseUrl: server.url, currencies: ['XYZ'] }).fetchRates().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).reason).toBe('invalid');
    expect((err as ProviderError).message).toBe('kraken: API error: EQuery:Unknown asset pair');
  });
});
