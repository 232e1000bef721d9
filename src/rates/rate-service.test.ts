import { createServer } from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../test/support/replay-server.ts';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { ConfigError, loadConfig } from '../config/config.ts';
import { DomainError, ServiceUnavailableError } from '../core/domain-errors.ts';
import { walletAnswerOf } from '../http/wallet-face.ts';
import { createRateService, type RateService } from './rate-service.ts';
import { DAY_MS, parseHistoryDate } from './rate-history.ts';
import { RateStore } from './rate-store.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const ALL = 'coingecko,kraken,bitstamp,coinbase,frankfurter';

/** Every provider's real path answered with its recorded fixture. */
function fixtureRoutes() {
  return {
    '/api/v3/simple/price': { file: 'rates/coingecko-simple-price.json' },
    '/api/v3/coins/bitcoin/history?date=02-01-2024&localization=false': { file: 'rates/coingecko-history.json' },
    '/api/v3/coins/bitcoin/history?date=01-01-2012&localization=false': { body: { id: 'bitcoin', symbol: 'btc', name: 'Bitcoin' } },
    '/0/public/Ticker': { file: 'rates/kraken-ticker.json' },
    '/api/v2/ticker/btcusd/': { file: 'rates/bitstamp-ticker-btcusd.json' },
    '/api/v2/ticker/btceur/': { file: 'rates/bitstamp-ticker-btceur.json' },
    '/api/v2/ticker/btcgbp/': { file: 'rates/bitstamp-ticker-btcgbp.json' },
    '/v2/exchange-rates': { file: 'rates/coinbase-exchange-rates-btc.json' },
    '/v1/latest': { file: 'rates/frankfurter-latest-usd.json' },
    '/v1/2024-01-02': { file: 'rates/frankfurter-2024-01-02-usd.json' },
  };
}

function baseUrls(url: string): string {
  return `coingecko=${url},kraken=${url},bitstamp=${url},coinbase=${url},frankfurter=${url}/v1`;
}

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((ok) => srv.close(() => ok()));
  return port;
}

describe.each(testEngines())('rate service on %s', (engine) => {
  let server: ReplayServer;
  let testDb: TestDb;
  let now = T0;
  const services: RateService[] = [];
  const logLines: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });

  function service(env: Record<string, string> = {}): RateService {
    const config = loadConfig({ SATGATE_RATE_PROVIDERS: ALL, SATGATE_RATE_BASE_URLS: baseUrls(server.url), ...env });
    const s = createRateService({ config, db: testDb.db, clock: () => now, log });
    services.push(s);
    return s;
  }

  beforeAll(async () => {
    server = await startReplayServer(fixtureRoutes());
  });
  afterAll(() => server.close());
  afterEach(async () => {
    for (const s of services.splice(0)) await s.stop();
    await testDb?.dispose();
    for (const [path, route] of Object.entries(fixtureRoutes())) server.route(path, route);
    logLines.length = 0;
    now = T0;
  });

  async function freshDb() {
    testDb = await createTestDb(engine);
  }

  it('puts the median of the providers in force, stores it with its time, and prices derived currencies through Frankfurter', async () => {
    await freshDb();
    const s = service();
    await s.start();
    // USD quotes 97228 (Bitstamp), 97231.12345678 (CoinGecko), 97234.565 (Coinbase), 97235 (Kraken): mean of the middle two.
    expect(await s.rates.spot('usd')).toEqual({ currency: 'USD', rate: '97232.84422839', at: T0 });
    // JPY from CoinGecko 15234877, Kraken 15234500, Coinbase 15235123.5.
    expect((await s.rates.spot('JPY')).rate).toBe('15234877');
    // RON is quoted by no exchange: USD median × Frankfurter's 4.7962, rounded to 8 decimals.
    expect((await s.rates.spot('RON')).rate).toBe('466348.1674882');
    const rows = await testDb.db.kysely.selectFrom('rate_records').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ rate_at: BigInt(T0), origin: 'refresh' });
    expect(JSON.parse(rows[0]!.rates_json)).toMatchObject({ USD: '97232.84422839', RON: '466348.1674882' });
    expect(JSON.parse(rows[0]!.sources_json).answered).toEqual(['coingecko', 'kraken', 'bitstamp', 'coinbase']);
    expect(s.currencies.list()).toContain('RON');
    expect(s.currencies.isSupported('EUR')).toBe(true);
    expect(s.currencies.isSupported('BGN')).toBe(true);
    expect(s.currencies.isSupported('XOF')).toBe(true);
    expect(s.currencies.isSupported('MOP')).toBe(false);
    expect(s.health()).toMatchObject({ ok: true, available: true, rate_at: '2026-11-21T12:00:00Z', stale_at: '2026-11-21T14:00:00Z' });
  });

  it('keeps every refresh as its own record for history', async () => {
    await freshDb();
    const s = service();
    await s.start();
    now += HOUR;
    await s.refreshNow();
    now += HOUR;
    await s.refreshNow();
    const rows = await testDb.db.kysely.selectFrom('rate_records').select('rate_at').orderBy('rate_at').execute();
    expect(rows.map((r) => r.rate_at)).toEqual([BigInt(T0), BigInt(T0 + HOUR), BigInt(T0 + 2 * HOUR)]);
  });

  it('skips a failing provider with a log line and takes the median of the others', async () => {
    await freshDb();
    server.route('/0/public/Ticker', { status: 502, body: '<html>Bad gateway</html>' });
    const s = service();
    const outcome = await s.refreshNow();
    expect(outcome).toMatchObject({ ok: true, answered: ['coingecko', 'bitstamp', 'coinbase'] });
    expect(outcome.failed).toEqual([{ provider: 'kraken', reason: 'http', detail: 'HTTP 502: <html>Bad gateway</html>' }]);
    expect((await s.rates.spot('USD')).rate).toBe('97231.12345678');
    const warning = logLines.map((l) => JSON.parse(l)).find((l) => l.provider === 'kraken');
    expect(warning).toMatchObject({ level: 40, msg: 'rate provider failed; skipped', reason: 'http' });
  });

  it('keeps the last rates while providers fail, then refuses stale rates after two intervals', async () => {
    await freshDb();
    const s = service();
    await s.start();
    for (const path of Object.keys(fixtureRoutes())) server.route(path, { status: 503, body: 'down' });

    now = T0 + HOUR;
    expect((await s.refreshNow()).ok).toBe(false);
    expect(await s.rates.spot('EUR')).toMatchObject({ rate: '93882.9025', at: T0 });

    now = T0 + 2 * HOUR;
    expect((await s.rates.spot('EUR')).at).toBe(T0);

    now = T0 + 2 * HOUR + 1;
    const err = await s.rates.spot('EUR').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect((err as Error).message).toMatch(/^Exchange rates are stale: the last rates are from 2026-11-21T12:00:00Z, older than 2 refresh intervals/);
    expect((err as Error).message).toContain('coingecko: HTTP 503');
    await expect(s.rates.lock('address', 'EUR')).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(s.health()).toMatchObject({ ok: false, available: false, last_refresh_ok: false });
    expect(s.currencies.list()).toEqual([]);

    // A provider answering again puts fresh rates back in force.
    for (const [path, route] of Object.entries(fixtureRoutes())) server.route(path, route);
    expect((await s.refreshNow()).ok).toBe(true);
    expect((await s.rates.spot('EUR')).at).toBe(T0 + 2 * HOUR + 1);
  });

  it('a restarted service has the stored rates at once, even with every provider down', async () => {
    await freshDb();
    await service().start();
    const port = await deadPort();
    now = T0 + 30 * 60_000;
    const restarted = service({ SATGATE_RATE_BASE_URLS: baseUrls(`http://127.0.0.1:${port}`) });
    await restarted.start();
    expect(await restarted.rates.spot('usd')).toEqual({ currency: 'USD', rate: '97232.84422839', at: T0 });
    expect(restarted.health()).toMatchObject({ ok: true, last_refresh_ok: false });
  });

  it('starts with no network and no file, says so, and answers a clear error instead of a price', async () => {
    await freshDb();
    const port = await deadPort();
    const s = service({ SATGATE_RATE_BASE_URLS: baseUrls(`http://127.0.0.1:${port}`) });
    await expect(s.start()).resolves.toBeUndefined();
    const health = s.health();
    expect(health).toMatchObject({ ok: false, available: false });
    expect(health.reason).toMatch(/^No exchange rates are available: no rate provider has answered \(last refresh: coingecko: request failed/);
    const err = await s.rates.spot('USD').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect((err as Error).message).toMatch(/^No exchange rates are available/);
    expect(logLines.some((l) => JSON.parse(l).msg === 'no exchange rates are available')).toBe(true);
    // Registration still validates codes while offline: any ISO 4217 code, nothing else.
    expect(s.currencies.isSupported('EUR')).toBe(true);
    expect(s.currencies.isSupported('XYZ')).toBe(false);
    expect(s.currencies.list()).toEqual([]);
  });

  it('answers 103 for a code without a rate, and 1 for bitcoin itself', async () => {
    await freshDb();
    const s = service();
    await s.start();
    for (const code of ['xyz', 'MOP']) {
      const err = await s.rates.spot(code).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DomainError);
      expect(walletAnswerOf(err as DomainError)?.code).toBe('103');
    }
    expect(await s.rates.spot('btc')).toEqual({ currency: 'BTC', rate: '1', at: T0 });
  });

  it('locks hold for their purpose’s duration and no longer', async () => {
    await freshDb();
    const s = service();
    await s.start();
    const durations = { address: 15 * 60_000, payment_form: 15 * 60_000, payment_request: 900_000, withdrawal_quote: 15 * 60_000 } as const;
    for (const [purpose, ms] of Object.entries(durations) as [keyof typeof durations, number][]) {
      const lock = await s.rates.lock(purpose, 'eur');
      expect(lock).toMatchObject({ purpose, currency: 'EUR', rate: '93882.9025', rateAt: T0, lockedAt: T0, expiresAt: T0 + ms });
      expect(typeof lock.id).toBe('bigint');
      expect(await s.rates.getLock(lock.id, T0 + ms - 1)).toMatchObject({ holds: true, rate: '93882.9025' });
      expect(await s.rates.getLock(lock.id, T0 + ms)).toMatchObject({ holds: false });
    }
    const lock = await s.rates.lock('address', 'USD');
    now = T0 + 14 * 60_000;
    expect((await s.rates.getLock(lock.id))?.holds).toBe(true);
    now = T0 + 16 * 60_000;
    expect((await s.rates.getLock(lock.id))?.holds).toBe(false);
    expect(await s.rates.getLock(999_999n)).toBeUndefined();
  });

  it('a lock taken in a transaction that rolls back is not stored', async () => {
    await freshDb();
    const s = service();
    await s.start();
    let id = 0n;
    await testDb.db.kysely
      .transaction()
      .execute(async (trx) => {
        id = (await s.rates.lock('payment_request', 'USD', trx)).id;
        throw new Error('caller failed');
      })
      .catch(() => undefined);
    expect(id).toBeGreaterThan(0n);
    expect(await s.rates.getLock(id)).toBeUndefined();
  });

  it('history answers the stored record nearest to noon UTC of the day', async () => {
    await freshDb();
    const store = new RateStore(testDb.db);
    const day = Date.UTC(2026, 10, 18);
    const add = (at: number, usd: string) =>
      store.insertRecord({ at, fetchedAt: at, origin: 'refresh', rates: new Map([['USD', usd]]), sources: { answered: ['file'], failed: [], derived: [] } });
    await add(day + 9 * HOUR, '1');
    await add(day + 11.5 * HOUR, '2');
    await add(day + 13 * HOUR, '3');
    await add(day + DAY_MS + 5 * 60_000, '4');
    await add(day - 60_000, '5');
    const s = service();
    expect((await s.history.onDay(day)).rates.get('USD')).toBe('2');
    await add(day + 12.25 * HOUR, '6');
    expect((await s.history.onDay(day)).rates.get('USD')).toBe('6');
    // A day holding only an early and a late record still answers from that day, not a neighbour.
    expect((await s.history.onDay(day + DAY_MS)).rates.get('USD')).toBe('4');
    expect(server.requests.some((r) => r.url.includes('/history'))).toBe(false);
  });

  it('a day before our history is fetched from the providers once and stored for that day', async () => {
    await freshDb();
    const s = service();
    const day = Date.UTC(2024, 0, 2);
    const record = await s.history.onDay(day);
    expect(record).toMatchObject({ origin: 'history', at: day + 12 * HOUR, fetchedAt: T0 });
    expect(record.rates.get('USD')).toBe('42843.21098765');
    // RON through Frankfurter's rates of that day (4.5419).
    expect(record.rates.get('RON')).toBe('194589.57998481');
    const asked = server.requests.filter((r) => r.url.startsWith('/api/v3/coins/bitcoin/history')).length;
    const again = await s.history.onDay(day);
    expect(again.id).toBe(record.id);
    expect(server.requests.filter((r) => r.url.startsWith('/api/v3/coins/bitcoin/history')).length).toBe(asked);
    const rows = await testDb.db.kysely.selectFrom('rate_records').selectAll().where('origin', '=', 'history').execute();
    expect(rows).toHaveLength(1);
  });

  it('a day no source knows answers 106', async () => {
    await freshDb();
    const s = service();
    const err = await s.history.onDay(Date.UTC(2012, 0, 1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(walletAnswerOf(err as DomainError)?.code).toBe('106');
    expect((err as Error).message).toMatch(/no provider knows that day \(coingecko: no market data for 2012-01-01\)/);
    const fileOnly = service({ SATGATE_RATE_PROVIDERS: '', SATGATE_RATES_FILE: '/nonexistent/rates.json' });
    await expect(fileOnly.history.onDay(Date.UTC(2024, 0, 2))).rejects.toThrow(/no configured provider offers history/);
  });
});

describe('history dates', () => {
  const now = Date.UTC(2026, 10, 21, 8, 0, 0);
  const code = (text: string) => {
    try {
      parseHistoryDate(text, now);
      return 'ok';
    } catch (err) {
      return walletAnswerOf(err as DomainError)?.code;
    }
  };

  it('reads mm-dd-yyyy as that UTC day', () => {
    expect(parseHistoryDate('01-02-2024', now)).toBe(Date.UTC(2024, 0, 2));
    expect(parseHistoryDate('11-21-2026', now)).toBe(Date.UTC(2026, 10, 21));
  });

  it('answers 106 for malformed, impossible, pre-bitcoin and future dates', () => {
    for (const bad of ['13-45-2020', '02-30-2024', '2024-01-02', '1-2-2024', '00-10-2020', '01-02-2008', '11-22-2026', 'today']) {
      expect(code(bad), bad).toBe('106');
    }
  });
});

describe('rate configuration', () => {
  it('SATGATE_RATE_BASE_URLS names a base URL per provider and rejects unknown names or bad URLs', () => {
    expect(loadConfig({ SATGATE_RATE_BASE_URLS: 'kraken=http://127.0.0.1:9, frankfurter=https://fx.example/v1' }).rateBaseUrls).toEqual({
      kraken: 'http://127.0.0.1:9',
      frankfurter: 'https://fx.example/v1',
    });
    expect(() => loadConfig({ SATGATE_RATE_BASE_URLS: 'binance=http://x' })).toThrow(ConfigError);
    expect(() => loadConfig({ SATGATE_RATE_BASE_URLS: 'kraken=ftp://x' })).toThrow(/SATGATE_RATE_BASE_URLS entry "kraken=ftp:\/\/x"/);
    expect(() => loadConfig({ SATGATE_RATE_PROVIDERS: 'kraken,binance' })).toThrow(/unknown provider\(s\) binance/);
    expect(() => loadConfig({ SATGATE_RATE_PROVIDERS: 'file' })).toThrow(/SATGATE_RATES_FILE is not set/);
  });
});
