// The rate refresher and what the rest of the service asks of rates: spot prices that are never stale,
// rate locks, the live currency list, and the health of it all.
import { DomainError } from '../core/domain-errors.ts';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/database.ts';
import { isoUtc, type Clock } from '../core/clock.ts';
import { ServiceUnavailableError } from '../core/errors.ts';
import type { CurrencyCatalog } from './currency-catalog.ts';
import type { HealthReport } from '../http/health.ts';
import { collectRates } from './aggregate.ts';
import { isIso4217 } from '../money/currencies.ts';
import { createRateSources, type ProviderName, type RateSources } from './providers/registry.ts';
import { RateHistory } from './rate-history.ts';
import { RateStore, type RateRecord, type RecordSources } from './rate-store.ts';
import type { RateLock, RateLockPurpose, Rates, SpotRate } from './rates-port.ts';
import type { Lifecycle } from '../core/lifecycle.ts';

/** How long a lock holds, per purpose (INTERFACE.md section 8). */
export const LOCK_DURATION_MS: Readonly<Record<RateLockPurpose, number>> = Object.freeze({
  address: 15 * 60_000,
  payment_form: 15 * 60_000,
  payment_request: 900_000,
  withdrawal_quote: 15 * 60_000,
});

/** Rates older than this many refresh intervals are stale and never priced on. */
export const STALE_AFTER_INTERVALS = 2;

/** What one refresh did. */
export interface RefreshOutcome {
  /** True when at least one provider answered and new rates are in force. */
  ok: boolean;
  at: number;
  currencies: number;
  answered: string[];
  failed: RecordSources['failed'];
}

/** What createRateService needs; `sources` replaces the providers the configuration names (tests). */
export interface RateServiceDeps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  sources?: RateSources;
}

/** The exchange-rate capability as the context wires it. */
export interface RateService {
  rates: Rates;
  /** The live list: currencies with a current (non-stale) rate. */
  currencies: CurrencyCatalog;
  /** Stored rates of past days, for exchange_history. */
  history: RateHistory;
  health(): HealthReport;
  /** Loads the latest stored rates, refreshes once (never throws; failures are logged), then every interval. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Fetches every provider now, stores the median and puts it in force; never throws. */
  refreshNow(): Promise<RefreshOutcome>;
  /** Puts the latest stored rates in force (a process that is not the refresher follows the one that is). */
  loadStored(): Promise<void>;
  /** The refresher (singleton work): `start` and `stop` above. */
  background: Lifecycle;
}

/** Builds the rate service from the configuration: SATGATE_RATE_PROVIDERS, SATGATE_RATES_FILE, SATGATE_RATE_BASE_URLS. */
export function createRateService(deps: RateServiceDeps): RateService {
  const sources =
    deps.sources ??
    createRateSources({
      names: deps.config.rateProviders,
      ratesFile: deps.config.ratesFile,
      baseUrls: deps.config.rateBaseUrls as Partial<Record<ProviderName, string>>,
    });
  const service = new RefreshingRates(deps, sources);
  return {
    rates: service,
    currencies: service.catalog,
    history: service.history,
    health: () => service.health(),
    start: () => service.start(),
    stop: () => service.stop(),
    refreshNow: () => service.refreshNow(),
    loadStored: () => service.loadStored(),
    background: { start: () => service.start(), stop: () => service.stop() },
  };
}

class RefreshingRates implements Rates {
  readonly history: RateHistory;
  readonly catalog: CurrencyCatalog;
  private readonly store: RateStore;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly intervalMs: number;
  private current: RateRecord | null = null;
  private lastAttempt: (RefreshOutcome & { error?: string }) | null = null;
  private inflight: Promise<RefreshOutcome> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private abort = new AbortController();

  constructor(deps: RateServiceDeps, private readonly sources: RateSources) {
    this.store = new RateStore(deps.db);
    this.clock = deps.clock;
    this.log = deps.log;
    this.intervalMs = deps.config.rateIntervalMs;
    this.history = new RateHistory(this.store, sources, deps.clock, deps.log);
    this.catalog = {
      isSupported: (code) => {
        const upper = code.trim().toUpperCase();
        const fresh = this.fresh();
        // With no current rates nothing can be priced anyway; accepting any ISO 4217 code lets a merchant
        // register a wallet while the service is offline (pricing then answers "rates unavailable").
        return fresh ? fresh.rates.has(upper) : isIso4217(upper);
      },
      list: () => [...(this.fresh()?.rates.keys() ?? [])].sort(),
    };
  }

  async spot(currency: string, trx?: Parameters<Rates['lock']>[2]): Promise<SpotRate> {
    const code = currency.trim().toUpperCase();
    if (code === 'BTC') return { currency: 'BTC', rate: '1', at: this.clock() };
    if (!isIso4217(code)) throw new DomainError('unsupported-currency', `Currency is not supported: ${JSON.stringify(currency)} is not a currency code`);
    const record = await this.requireFresh(trx);
    const rate = record.rates.get(code);
    if (rate === undefined) throw new DomainError('unsupported-currency', `Currency is not supported: no exchange rate for ${code}`);
    return { currency: code, rate, at: record.at };
  }

  async lock(purpose: RateLockPurpose, currency: string, trx?: Parameters<Rates['lock']>[2]): Promise<RateLock> {
    // Inside the caller's transaction every read must use it: SQLite has one connection, and a read
    // through another handle would wait for this very transaction to end.
    return this.store.insertLock(await this.planLock(purpose, currency, trx), trx);
  }

  async planLock(purpose: RateLockPurpose, currency: string, trx?: Parameters<Rates['lock']>[2]): Promise<Omit<RateLock, 'id'>> {
    const duration = LOCK_DURATION_MS[purpose];
    if (duration === undefined) throw new TypeError(`unknown rate lock purpose ${JSON.stringify(purpose)}`);
    const spot = await this.spot(currency, trx);
    const now = this.clock();
    return { purpose, currency: spot.currency, rate: spot.rate, rateAt: spot.at, lockedAt: now, expiresAt: now + duration };
  }

  async getLock(id: bigint, now: number = this.clock()): Promise<(RateLock & { holds: boolean }) | undefined> {
    const lock = await this.store.findLock(id);
    return lock ? { ...lock, holds: now < lock.expiresAt } : undefined;
  }

  health(): HealthReport {
    const names = [...this.sources.providers.map((p) => p.name), ...(this.sources.fiat ? [this.sources.fiat.name] : [])];
    const last = this.lastAttempt
      ? {
          last_refresh: isoUtc(this.lastAttempt.at),
          last_refresh_ok: this.lastAttempt.ok,
          answered: this.lastAttempt.answered,
          failed: this.lastAttempt.failed.map((f) => `${f.provider}: ${f.detail}`),
        }
      : {};
    const fresh = this.fresh();
    if (fresh) {
      return {
        ok: true,
        available: true,
        rate_at: isoUtc(fresh.at),
        stale_at: isoUtc(fresh.at + this.staleAfterMs()),
        currencies: fresh.rates.size,
        providers: names,
        ...last,
      };
    }
    return { ok: false, available: false, reason: this.unavailableReason(), providers: names, ...last };
  }

  async loadStored(): Promise<void> {
    const latest = await this.store.latestRefresh();
    if (latest && (!this.current || latest.at > this.current.at)) this.current = latest;
  }

  async start(): Promise<void> {
    if (this.timer) return;
    // A stopped refresher may be started again (a process that regains the singleton role).
    if (this.abort.signal.aborted) this.abort = new AbortController();
    try {
      const latest = await this.store.latestRefresh();
      if (latest && (!this.current || latest.at > this.current.at)) {
        this.current = latest;
        this.log.info({ rate_at: isoUtc(latest.at), currencies: latest.rates.size }, 'loaded the last stored exchange rates');
      }
    } catch (err) {
      this.log.error({ err: message(err) }, 'could not load stored exchange rates');
    }
    await this.refreshNow();
    this.timer = setInterval(() => void this.refreshNow(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.abort.abort();
    await this.inflight?.catch(() => undefined);
  }

  refreshNow(): Promise<RefreshOutcome> {
    this.inflight ??= this.refresh().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async refresh(): Promise<RefreshOutcome> {
    try {
      const result = await collectRates(this.sources.providers, this.sources.fiat, this.abort.signal);
      const failed = result.failed.map(({ provider, error }) => ({ provider, reason: error.reason, detail: error.detail }));
      if (result.fiatError) {
        failed.push({ provider: result.fiatError.provider, reason: result.fiatError.reason, detail: result.fiatError.detail });
      }
      for (const f of failed) this.log.warn(f, 'rate provider failed; skipped');
      const at = this.clock();
      const outcome: RefreshOutcome = { ok: result.rates.size > 0, at, currencies: result.rates.size, answered: result.answered, failed };
      this.lastAttempt = outcome;
      if (!outcome.ok) {
        this.log.warn({ reason: this.unavailableReason() }, this.current ? 'no rate provider answered; the last rates stay in force until they are stale' : 'no exchange rates are available');
        return outcome;
      }
      const record = {
        at,
        fetchedAt: at,
        origin: 'refresh' as const,
        rates: result.rates,
        sources: { answered: result.answered, failed, derived: result.derived, fiatDate: result.fiat?.date ?? null },
      };
      try {
        this.current = await this.store.insertRecord(record);
      } catch (err) {
        // The prices are good even if history could not be written; keep pricing on them.
        this.current = { ...record, id: 0n };
        this.log.error({ err: message(err) }, 'could not store the refreshed exchange rates');
      }
      this.log.info({ currencies: result.rates.size, answered: result.answered, derived: result.derived.length }, 'exchange rates refreshed');
      return outcome;
    } catch (err) {
      const outcome: RefreshOutcome & { error: string } = { ok: false, at: this.clock(), currencies: 0, answered: [], failed: [], error: message(err) };
      this.lastAttempt = outcome;
      this.log.error({ err: outcome.error }, 'exchange rate refresh failed');
      return outcome;
    }
  }

  private staleAfterMs(): number {
    return STALE_AFTER_INTERVALS * this.intervalMs;
  }

  /** The rates in force when they are not stale. */
  private fresh(): RateRecord | null {
    const c = this.current;
    return c && this.clock() - c.at <= this.staleAfterMs() ? c : null;
  }

  /** Current rates, re-reading the database first in case another process refreshed them; else a clear 503. */
  private async requireFresh(trx?: Parameters<Rates['lock']>[2]): Promise<RateRecord> {
    const fresh = this.fresh();
    if (fresh) return fresh;
    try {
      const latest = await this.store.latestRefresh(trx);
      if (latest && (!this.current || latest.at > this.current.at)) this.current = latest;
    } catch (err) {
      this.log.error({ err: message(err) }, 'could not read stored exchange rates');
    }
    const again = this.fresh();
    if (again) return again;
    throw new ServiceUnavailableError(this.unavailableReason());
  }

  private unavailableReason(): string {
    const failures = this.lastAttempt?.failed.map((f) => `${f.provider}: ${f.detail}`).join('; ') || this.lastAttempt?.error;
    const why = failures ? ` (last refresh: ${failures})` : this.lastAttempt ? '' : ' (rates have not been fetched yet)';
    if (!this.current) return `No exchange rates are available: no rate provider has answered${why}`;
    return (
      `Exchange rates are stale: the last rates are from ${isoUtc(this.current.at)}, older than ${STALE_AFTER_INTERVALS} refresh ` +
      `intervals, and are not used for pricing until a provider answers again${why}`
    );
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
