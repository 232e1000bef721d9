// Every network adapter reports its own failures the same way: a ProviderError naming the
// provider and the kind of failure, never a raw exception and never a partial guess.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayRoute, type ReplayServer, startReplayServer } from '../../../test/support/replay-server.ts';
import { BitstampProvider } from './bitstamp.ts';
import { CoinbaseProvider } from './coinbase.ts';
import { CoinGeckoProvider } from './coingecko.ts';
import { FrankfurterSource } from './frankfurter.ts';
import { KrakenProvider } from './kraken.ts';
import { ProviderError, type ProviderFailure } from './types.ts';

interface Case {
  name: string;
  path: string;
  call: (baseUrl: string, timeoutMs: number, signal?: AbortSignal) => Promise<unknown>;
  missingFields: unknown;
  missingMessage: RegExp;
  badPrice: unknown;
  implausible: unknown;
}

const cases: Case[] = [
  {
    name: 'coingecko', path: '/api/v3/simple/price',
    call: (baseUrl, timeoutMs, signal) => new CoinGeckoProvider({ baseUrl, timeoutMs }).fetchRates(signal),
    missingFields: { status: { error_code: 429 } }, missingMessage: /expected \{"bitcoin"/,
    badPrice: { bitcoin: { usd: 'n/a' } },
    implausible: { bitcoin: { usd: 0, eur: -5, gbp: 1e20, jpy: 0.001 } },
  },
  {
    name: 'kraken', path: '/0/public/Ticker',
    call: (baseUrl, timeoutMs, signal) => new KrakenProvider({ baseUrl, timeoutMs }).fetchRates(signal),
    missingFields: { error: [] }, missingMessage: /no "result" object/,
    badPrice: { error: [], result: { XXBTZUSD: { c: ['soon', '1'] } } },
    implausible: { error: [], result: { XXBTZUSD: { c: ['0.00000', '1'] }, XXBTZEUR: { c: ['-1', '1'] } } },
  },
  {
    name: 'bitstamp', path: '/api/v2/ticker/btcusd/',
    call: (baseUrl, timeoutMs, signal) => new BitstampProvider({ baseUrl, timeoutMs, currencies: ['USD'] }).fetchRates(signal),
    missingFields: { high: '1', low: '1' }, missingMessage: /no "last" field/,
    badPrice: { last: '97,228' },
    implausible: { last: '0' },
  },
  {
    name: 'coinbase', path: '/v2/exchange-rates',
    call: (baseUrl, timeoutMs, signal) => new CoinbaseProvider({ baseUrl, timeoutMs }).fetchRates(signal),
    missingFields: { data: { currency: 'BTC' } }, missingMessage: /data\.rates missing/,
    badPrice: { data: { currency: 'BTC', rates: { USD: true } } },
    implausible: { data: { currency: 'BTC', rates: { USD: '0.0', EUR: '99999999999999999999' } } },
  },
  {
    name: 'frankfurter', path: '/latest',
    call: (baseUrl, timeoutMs, signal) => new FrankfurterSource({ baseUrl, timeoutMs }).fetchFiatRates(signal),
    missingFields: { amount: 1.0, base: 'USD', date: '2026-11-20' }, missingMessage: /"rates" missing/,
    badPrice: { amount: 1.0, base: 'USD', date: '2026-11-20', rates: { EUR: 'x' } },
    implausible: { amount: 1.0, base: 'USD', date: '2026-11-20', rates: { EUR: 0, GBP: -0.8 } },
  },
];

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

async function failure(c: Case, route: ReplayRoute, timeoutMs = 2_000, signal?: AbortSignal): Promise<ProviderError> {
  server.route(c.path, route);
  const err = await c.call(server.url, timeoutMs, signal).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ProviderError);
  const pe = err as ProviderError;
  expect(pe.provider).toBe(c.name);
  expect(pe.message.startsWith(`${c.name}: `)).toBe(true);
  return pe;
}

function expectReason(err: ProviderError, reason: ProviderFailure, message: RegExp): void {
  expect(err.reason).toBe(reason);
  expect(err.message).toMatch(message);
}

describe.each(cases)('$name adapter failures', (c) => {
  it('an HTTP 500 is reported with its status and body', async () => {
    const err = await failure(c, { status: 500, body: 'upstream exploded' });
    expectReason(err, 'http', /HTTP 500: upstream exploded/);
    expect(err.status).toBe(500);
  });

  it('a body that is not JSON is reported as malformed', async () => {
    expectReason(await failure(c, { body: '<html>maintenance</html>' }), 'malformed', /not valid JSON/);
    expectReason(await failure(c, { body: '{"bitcoin":{"usd":5' }), 'malformed', /not valid JSON/);
  });

  it('a JSON answer missing the expected fields is reported as malformed', async () => {
    expectReason(await failure(c, { body: c.missingFields }), 'malformed', c.missingMessage);
  });

  it('a price that is not a number is reported as malformed', async () => {
    expectReason(await failure(c, { body: c.badPrice }), 'malformed', /not a number/);
  });

  it('non-positive or absurd values are rejected, leaving nothing usable', async () => {
    expectReason(await failure(c, { body: c.implausible }), 'invalid', /no usable/);
  });

  it('an answer slower than the timeout is reported as a timeout', async () => {
    const started = Date.now();
    expectReason(await failure(c, { body: c.badPrice, delayMs: 1_500 }, 150), 'timeout', /within 150 ms/);
    expect(Date.now() - started).toBeLessThan(1_400);
  });

  it('a caller cancelling the request is reported as aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expectReason(await failure(c, { body: c.badPrice, delayMs: 1_000 }, 5_000, controller.signal), 'aborted', /cancelled/);
  });

  it('an unreachable server is reported as a network failure', async () => {
    const err = await c.call('http://127.0.0.1:1', 2_000).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expectReason(err as ProviderError, 'network', /request failed/);
  });
});

describe('implausible values next to good ones', () => {
  it('drop only the bad currencies', async () => {
    server.route('/api/v3/simple/price', { body: '{"bitcoin":{"usd":0,"eur":-5,"gbp":1e20,"jpy":15234877,"chf":88123.123456789}}' });
    const rates = await new CoinGeckoProvider({ baseUrl: server.url }).fetchRates();
    expect(Object.fromEntries(rates)).toEqual({ JPY: '15234877', CHF: '88123.12345679' });
  });

  it('survive absurd exponents without a crash', async () => {
    server.route('/api/v3/simple/price', { body: `{"bitcoin":{"usd":1e300,"eur":1e-300,"gbp":0.${'0'.repeat(200)}1,"jpy":15234877.${'4'.repeat(8)}5${'9'.repeat(100)}}}` });
    const rates = await new CoinGeckoProvider({ baseUrl: server.url }).fetchRates();
    expect(Object.fromEntries(rates)).toEqual({ JPY: '15234877.44444445' });
  });

  it('survive absurd fiat cross rates without a crash', async () => {
    server.route('/latest', { body: '{"amount":1,"base":"USD","date":"2026-11-20","rates":{"EUR":1e300,"GBP":1e-300,"JPY":156.69}}' });
    const fx = await new FrankfurterSource({ baseUrl: server.url }).fetchFiatRates();
    expect(Object.fromEntries(fx.rates)).toEqual({ JPY: '156.69' });
  });
});
