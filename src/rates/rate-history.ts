// Rates on a past day: the stored record nearest noon UTC of that day, or, for a day we hold nothing for,
// the answer of the providers' historical endpoints, fetched once and stored as that day's record.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import { DomainError } from '../core/domain-errors.ts';
import { collectHistoricalRates } from './aggregate.ts';
import type { RateSources } from './providers/registry.ts';
import type { RateRecord, RateStore } from './rate-store.ts';

/** Milliseconds in a day. */
export const DAY_MS = 86_400_000;
/** The genesis block's day (2009-01-03): no day before it can have a bitcoin price. */
export const FIRST_BITCOIN_DAY = Date.UTC(2009, 0, 3);

/**
 * Parses an `mm-dd-yyyy` date into the epoch ms of that UTC day's midnight. Throws a `history-out-of-range` DomainError (wallet API 106) for a
 * malformed or impossible date, a day before bitcoin existed, or a day after today (UTC) at `now`.
 */
export function parseHistoryDate(text: string, now: number): number {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(text.trim());
  if (!m) throw new DomainError('history-out-of-range', `Date out of range: ${JSON.stringify(text)} is not a date in mm-dd-yyyy form`);
  const [month, day, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const start = Date.UTC(year, month - 1, day);
  const back = new Date(start);
  if (month < 1 || month > 12 || back.getUTCDate() !== day || back.getUTCMonth() !== month - 1) {
    throw new DomainError('history-out-of-range', `Date out of range: ${text} is not a calendar date (mm-dd-yyyy)`);
  }
  if (start < FIRST_BITCOIN_DAY) throw new DomainError('history-out-of-range', `Date out of range: ${text} is before bitcoin existed`);
  if (start > startOfDay(now)) throw new DomainError('history-out-of-range', `Date out of range: ${text} is in the future`);
  return start;
}

/** Epoch ms of the UTC midnight starting the day that contains `ms`. */
export function startOfDay(ms: number): number {
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
}

/** Finds (and when needed fetches and stores) the rate record for a past day. */
export class RateHistory {
  private readonly pending = new Map<number, Promise<RateRecord | string>>();

  constructor(
    private readonly store: RateStore,
    private readonly sources: RateSources,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /**
   * The record for the UTC day starting at `dayStart`: the stored one nearest noon, else (for a day before
   * today) the providers' historical answer, stored as a record at noon of that day. Throws a `history-out-of-range` DomainError (106)
   * when no source knows the day.
   */
  async onDay(dayStart: number): Promise<RateRecord> {
    const noon = dayStart + DAY_MS / 2;
    const stored = await this.store.nearest(noon, dayStart, dayStart + DAY_MS);
    if (stored) return stored;
    const day = new Date(dayStart).toISOString().slice(0, 10);
    if (dayStart >= startOfDay(this.clock())) {
      throw new DomainError('history-out-of-range', `Date out of range: no rates have been stored yet for today (${day})`);
    }
    let fetching = this.pending.get(dayStart);
    if (!fetching) {
      // Concurrent requests for the same missing day share one fetch, so the day is stored once.
      fetching = this.fetchDay(dayStart, day).finally(() => this.pending.delete(dayStart));
      this.pending.set(dayStart, fetching);
    }
    const found = await fetching;
    if (typeof found === 'string') throw new DomainError('history-out-of-range', `Date out of range: ${found}`);
    return found;
  }

  private async fetchDay(dayStart: number, day: string): Promise<RateRecord | string> {
    const { providers, fiat } = this.sources;
    if (!providers.some((p) => p.fetchHistorical)) return `no rates are stored for ${day} and no configured provider offers history`;
    const result = await collectHistoricalRates(providers, fiat, day);
    for (const { provider, error } of result.failed) {
      this.log.warn({ provider, day, reason: error.reason, detail: error.detail }, 'historical rate provider failed; skipped');
    }
    if (result.rates.size === 0) {
      const why = result.failed.map((f) => f.error.message).join('; ');
      return `no rates are stored for ${day} and no provider knows that day${why ? ` (${why})` : ''}`;
    }
    // Another process may have stored the day while we asked.
    const again = await this.store.nearest(dayStart + DAY_MS / 2, dayStart, dayStart + DAY_MS);
    if (again) return again;
    const record = await this.store.insertRecord({
      at: dayStart + DAY_MS / 2,
      fetchedAt: this.clock(),
      origin: 'history',
      rates: result.rates,
      sources: {
        answered: result.answered,
        failed: result.failed.map(({ provider, error }) => ({ provider, reason: error.reason, detail: error.detail })),
        derived: result.derived,
        fiatDate: result.fiat?.date ?? null,
      },
    });
    this.log.info({ day, currencies: record.rates.size, answered: result.answered }, 'stored historical exchange rates');
    return record;
  }
}
