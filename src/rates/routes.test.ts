import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const HOUR = 3_600_000;

async function deadPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((ok) => srv.close(() => ok()));
  return port;
}

describe.each(testEngines())('exchange-rate operations with a rates file on %s', (engine) => {
  let t: TestApp;
  let now = T0;

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile() }, clock: () => now, start: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json() as Record<string, unknown> };
  };

  it('converts 100 USD to 0.002 BTC at 50000.00 USD per bitcoin', async () => {
    expect(await get('/exchange/usd/btc/100')).toEqual({ status: 200, body: { return: '0', status: 'OK', amount: '0.002' } });
  });

  it('converts 1 BTC to the file’s EUR rate, in any case', async () => {
    expect((await get('/exchange/btc/eur/1')).body).toEqual({ return: '0', status: 'OK', amount: '46000.50' });
    expect((await get('/exchange/BTC/Eur/1')).body.amount).toBe('46000.50');
  });

  it('rounds BTC to fiat half-up at the minor unit and fiat to BTC up to the satoshi', async () => {
    expect((await get('/exchange/btc/jpy/0.00000001')).body.amount).toBe('0');
    expect((await get('/exchange/btc/usd/0.00000001')).body.amount).toBe('0.00');
    expect((await get('/exchange/btc/usd/0.0000001')).body.amount).toBe('0.01');
    expect((await get('/exchange/usd/btc/0.01')).body.amount).toBe('0.0000002');
    expect((await get('/exchange/jpy/btc/1')).body.amount).toBe('0.00000014');
  });

  it('converts fiat to fiat through BTC', async () => {
    // 100 USD × 46000.50 / 50000.00 = 92.001 EUR.
    expect((await get('/exchange/usd/eur/100')).body.amount).toBe('92.00');
    expect((await get('/exchange/eur/jpy/46000.5')).body.amount).toBe('7400000');
    expect((await get('/exchange/usd/usd/12.5')).body.amount).toBe('12.50');
  });

  it('answers 103 for an unknown currency or one without a rate', async () => {
    expect(await get('/exchange/usd/xyz/1')).toEqual({ status: 400, body: { return: '103', status: expect.stringContaining('"xyz" is not a currency code') } });
    expect((await get('/exchange/gbp/btc/1')).body).toEqual({ return: '103', status: 'Currency is not supported: no exchange rate for GBP' });
  });

  it('answers 201 for an amount that is not a positive decimal', async () => {
    for (const amount of ['0', '-5', 'abc', '1e3', '.5', '0.000', 'NaN']) {
      const res = await get(`/exchange/usd/btc/${amount}`);
      expect(res.status, amount).toBe(400);
      expect(res.body.return, amount).toBe('201');
    }
    expect((await get('/exchange/btc/usd/0.000000001')).body.return).toBe('201');
  });

  it('lists the file’s currencies, uppercase', async () => {
    expect(await get('/currencies')).toEqual({ status: 200, body: { return: '0', status: 'OK', resp: ['EUR', 'JPY', 'USD'] } });
  });

  it('answers history from today’s stored record and 106 for bad, future or unknown days', async () => {
    expect((await get('/exchange_history/btc/usd/11-21-2026')).body).toEqual({
      return: '0',
      status: 'OK',
      amount: '50000.00',
      exchange_rate_datetime: '2026-11-21T12:00:00Z',
    });
    expect((await get('/exchange_history/usd/btc/11-21-2026')).body.amount).toBe('0.00002');
    expect(await get('/exchange_history/btc/usd/13-45-2020')).toEqual({
      status: 400,
      body: { return: '106', status: expect.stringContaining('not a calendar date') },
    });
    expect((await get('/exchange_history/btc/usd/11-22-2026')).body.return).toBe('106');
    expect((await get('/exchange_history/btc/usd/2026-11-21')).body.return).toBe('106');
    // The file keeps no history, so an earlier day is unknown.
    expect((await get('/exchange_history/btc/usd/01-02-2024')).body).toEqual({
      return: '106',
      status: 'Date out of range: no rates are stored for 2024-01-02 and no configured provider offers history',
    });
    expect((await get('/exchange_history/btc/gbp/11-21-2026')).body.return).toBe('106');
    expect((await get('/exchange_history/xyz/usd/11-21-2026')).body.return).toBe('106');
  });

  it('add_pub takes local_currency in any case, stores it lowercase, and refuses one without a rate', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey, local_currency: 'JpY' } });
    expect(res.json().return).toBe('0');
    expect((await t.ctx.wallets.repo.findByApiId(res.json().api_id))!.local_currency).toBe('jpy');
    const gbp = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey, local_currency: 'gbp' } });
    expect(gbp.json().return).toBe('103');
  });

  it('reports rates in /health, and refuses stale rates with a clear 503 after two intervals', async () => {
    const health = (await t.app.inject({ method: 'GET', url: '/health' })).json();
    expect(health.rates).toMatchObject({ ok: true, available: true, currencies: 3, providers: ['file'] });

    now = T0 + 2 * HOUR + 1;
    const res = await get('/exchange/usd/btc/1');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ return: '998', status: expect.stringMatching(/^Exchange rates are stale: the last rates are from 2026-11-21T12:00:00Z/) });
    expect((await get('/currencies')).status).toBe(503);
    expect((await t.app.inject({ method: 'GET', url: '/health' })).json().rates).toMatchObject({ ok: false, available: false });
  });
});

describe.each(testEngines())('exchange-rate operations with every provider unreachable on %s', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    const dead = `http://127.0.0.1:${await deadPort()}`;
    t = await createTestApp(engine, {
      env: {
        SATGATE_RATE_PROVIDERS: 'coingecko,kraken,bitstamp,coinbase,frankfurter',
        SATGATE_RATE_BASE_URLS: `coingecko=${dead},kraken=${dead},bitstamp=${dead},coinbase=${dead},frankfurter=${dead}/v1`,
      },
      start: true,
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('starts, and /health says rates are unavailable', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('degraded');
    expect(res.json().rates).toMatchObject({
      ok: false,
      available: false,
      reason: expect.stringMatching(/^No exchange rates are available: no rate provider has answered \(last refresh: coingecko: request failed/),
      providers: ['coingecko', 'kraken', 'bitstamp', 'coinbase', 'frankfurter'],
    });
  });

  it('an operation needing a rate answers a clear error, never a price', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/exchange/usd/btc/1' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ return: '998', status: expect.stringMatching(/^No exchange rates are available/) });
    expect((await t.app.inject({ method: 'GET', url: '/currencies' })).statusCode).toBe(503);
    expect((await t.app.inject({ method: 'GET', url: '/exchange/usd/xyz/1' })).json().return).toBe('103');
  });

  it('a wallet can still be registered with an ISO 4217 local currency', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey, local_currency: 'EUR' } });
    expect(res.json().return).toBe('0');
    expect((await t.ctx.wallets.repo.findByApiId(res.json().api_id))!.local_currency).toBe('eur');
    const bad = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey, local_currency: 'xyz' } });
    expect(bad.json().return).toBe('103');
  });

  it('a past day no provider can answer is 106', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/exchange_history/btc/usd/01-02-2024' });
    expect(res.json()).toEqual({ return: '106', status: expect.stringContaining('no provider knows that day') });
  });
});
