import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayServer, startReplayServer } from '../../../test/support/replay-server.ts';
import { CoinbaseProvider } from './coinbase.ts';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer({ '/v2/exchange-rates?currency=BTC': { file: 'rates/coinbase-exchange-rates-btc.json' } });
});
afterAll(() => server.close());

describe('Coinbase adapter', () => {
  it('reads 1 BTC in every ISO 4217 currency and drops crypto and metals', async () => {
    const rates = await new CoinbaseProvider({ baseUrl: server.url }).fetchRates();
    expect(rates.get('USD')).toBe('97234.565');
    expect(rates.get('EUR')).toBe('93885.255');
    expect(rates.get('JPY')).toBe('15235123.5');
    expect(rates.get('KWD')).toBe('29990.1234');
    expect(rates.get('XOF')).toBe('61587654.32');
    for (const code of ['BTC', 'ETH', 'SHIB', 'USDC', 'XAU', 'XAG', '00', '1INCH']) expect(rates.has(code), code).toBe(false);
    expect(rates.size).toBe(42);
  });

  it('keeps only the configured currencies when given', async () => {
    const rates = await new CoinbaseProvider({ baseUrl: server.url, currencies: ['usd', 'GBP'] }).fetchRates();
    expect(Object.fromEntries(rates)).toEqual({ USD: '97234.565', GBP: '78013.445' });
  });

  it('refuses rates based on another currency', async () => {
    server.route('/v2/exchange-rates?currency=BTC', { body: { data: { currency: 'USD', rates: { EUR: '0.9' } } } });
    try {
      await expect(new CoinbaseProvider({ baseUrl: server.url }).fetchRates()).rejects.toThrow('coinbase: rates are based on "USD", not BTC');
    } finally {
      server.route('/v2/exchange-rates?currency=BTC', { file: 'rates/coinbase-exchange-rates-btc.json' });
    }
  });
});
