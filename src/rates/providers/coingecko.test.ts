import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayServer, startReplayServer } from '../../../test/support/replay-server.ts';
import { CoinGeckoProvider } from './coingecko.ts';
import { ProviderError } from './types.ts';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer({
    '/api/v3/simple/price': { file: 'rates/coingecko-simple-price.json' },
    '/api/v3/coins/bitcoin/history?date=02-01-2024&localization=false': { file: 'rates/coingecko-history.json' },
    '/api/v3/coins/bitcoin/history?date=01-01-2000&localization=false': { body: { id: 'bitcoin', symbol: 'btc', name: 'Bitcoin' } },
  });
});
afterAll(() => server.close());

describe('CoinGecko adapter', () => {
  it('asks simple/price for bitcoin in its fiat list and reads every price exactly', async () => {
    const rates = await new CoinGeckoProvider({ baseUrl: server.url }).fetchRates();
    const req = server.requests.at(-1)!;
    expect(req.url).toMatch(/^\/api\/v3\/simple\/price\?ids=bitcoin&vs_currencies=usd%2Caed%2C.*&precision=full$/);
    expect(rates.get('USD')).toBe('97231.12345678');
    expect(rates.get('JPY')).toBe('15234877');
    expect(rates.get('KWD')).toBe('29987.462');
    expect(rates.get('IDR')).toBe('1571234567.5');
    expect(rates.get('VND')).toBe('2461234567');
    expect(rates.has('XDR')).toBe(false);
    expect([...rates.keys()].every((k) => /^[A-Z]{3}$/.test(k))).toBe(true);
  });

  it('keeps only the currencies it was configured for', async () => {
    const rates = await new CoinGeckoProvider({ baseUrl: server.url, currencies: ['USD', 'EUR'] }).fetchRates();
    expect(server.requests.at(-1)!.url).toContain('vs_currencies=usd%2Ceur&');
    expect([...rates.keys()].sort()).toEqual(['EUR', 'USD']);
  });

  it('reads a past day from coins/bitcoin/history with a dd-mm-yyyy date', async () => {
    const rates = await new CoinGeckoProvider({ baseUrl: server.url }).fetchHistorical('2024-01-02');
    expect(rates.get('USD')).toBe('42843.21098765');
    expect(rates.get('EUR')).toBe('38765.43210987');
    expect(rates.get('JPY')).toBe('6312345.678901');
    expect(rates.has('BTC')).toBe(false);
    expect(rates.has('SATS')).toBe(false);
  });

  it('reports a day without market data as an invalid answer', async () => {
    const err = await new CoinGeckoProvider({ baseUrl: server.url }).fetchHistorical('2000-01-01').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).reason).toBe('invalid');
    expect((err as ProviderError).message).toBe('coingecko: no market data for 2000-01-01');
  });

  it('refuses a malformed date before asking', async () => {
    await expect(new CoinGeckoProvider({ baseUrl: server.url }).fetchHistorical('2024-02-30')).rejects.toThrow(/not a valid YYYY-MM-DD/);
  });
});
