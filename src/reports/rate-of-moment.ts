// The rate a ledger row is valued at: what was recorded at the moment the funds were first seen. Derived from
// stored, never-rewritten facts (every rate refresh is kept in rate_records), so it is the same whenever asked.
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

type Trx = Transaction<Database>;

/** A refresh older than this at first sight was not "the rate of the moment": the row takes the nearest and says so. */
export const RATE_FRESH_MS = 15 * 60_000;

export interface RateOfMoment {
  rate: string;
  source: string;
  at: number;
  /** True when no refresh was recorded near the time and the history's nearest rate stands in. */
  estimated: boolean;
}

function priceIn(ratesJson: string, currency: string): string | undefined {
  const rates = JSON.parse(ratesJson) as Record<string, unknown>;
  const price = rates[currency];
  return typeof price === 'string' ? price : undefined;
}

function sourceName(origin: string, sourcesJson: string): string {
  try {
    const answered = (JSON.parse(sourcesJson) as { answered?: unknown }).answered;
    if (Array.isArray(answered) && answered.length > 0) return `${origin}:${answered.join('+')}`;
  } catch {
    // An unreadable summary still names the origin.
  }
  return origin;
}

/** The rate of `currency` (uppercase) at `at`, or undefined when nothing was ever recorded for it. */
export async function rateOfMoment(trx: Trx, currency: string, at: number): Promise<RateOfMoment | undefined> {
  const before = await trx
    .selectFrom('rate_records')
    .selectAll()
    .where('origin', '=', 'refresh')
    .where('rate_at', '<=', BigInt(at))
    .where('rate_at', '>=', BigInt(at - RATE_FRESH_MS))
    .orderBy('rate_at', 'desc')
    .orderBy('id', 'desc')
    .limit(5)
    .execute();
  for (const r of before) {
    const rate = priceIn(r.rates_json, currency);
    if (rate) return { rate, source: sourceName('refresh', r.sources_json), at: Number(r.rate_at), estimated: false };
  }
  // The nearest on either side, of any origin (a day of provider history, a later refresh).
  const [earlier, later] = await Promise.all([
    trx.selectFrom('rate_records').selectAll().where('rate_at', '<=', BigInt(at)).orderBy('rate_at', 'desc').orderBy('id', 'desc').limit(20).execute(),
    trx.selectFrom('rate_records').selectAll().where('rate_at', '>', BigInt(at)).orderBy('rate_at', 'asc').orderBy('id', 'asc').limit(20).execute(),
  ]);
  let best: RateOfMoment | undefined;
  for (const r of [...earlier, ...later]) {
    const rate = priceIn(r.rates_json, currency);
    if (!rate) continue;
    const candidate = { rate, source: sourceName(r.origin, r.sources_json), at: Number(r.rate_at), estimated: true };
    if (!best || Math.abs(candidate.at - at) < Math.abs(best.at - at)) best = candidate;
  }
  return best;
}
