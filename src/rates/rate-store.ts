// Persistence of rate records (every refresh, and past days fetched from provider history) and of rate locks.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database, RateRecordsTable } from '../db/schema.ts';
import { isIso4217 } from '../money/currencies.ts';
import { isDecimal } from '../money/decimal.ts';
import type { RateMap } from './providers/types.ts';
import type { RateLock, RateLockPurpose } from './rates-port.ts';

/** Where a record's prices came from: a regular refresh, or a provider's history for a past day. */
export type RateOrigin = 'refresh' | 'history';

/** Which sources made a record. */
export interface RecordSources {
  answered: string[];
  failed: { provider: string; reason: string; detail: string }[];
  /** Codes priced through fiat cross rates. */
  derived: string[];
  /** Day of the fiat cross rates used, when any. */
  fiatDate?: string | null;
}

/** One stored set of prices of 1 BTC. */
export interface RateRecord {
  id: bigint;
  /** Epoch ms the prices apply to (the refresh time, or noon UTC of a fetched day). */
  at: number;
  fetchedAt: number;
  origin: RateOrigin;
  rates: RateMap;
  sources: RecordSources;
}

/** What a new record is made of. */
export type NewRateRecord = Omit<RateRecord, 'id'>;

type RecordRow = Selectable<RateRecordsTable>;

/** Reads and writes rate records and locks; prices stay decimal strings end to end. */
export class RateStore {
  constructor(private readonly db: Db) {}

  /** Stores a record and returns it with its id. */
  async insertRecord(record: NewRateRecord): Promise<RateRecord> {
    const row = await this.db.kysely
      .insertInto('rate_records')
      .values({
        rate_at: BigInt(record.at),
        fetched_at: BigInt(record.fetchedAt),
        origin: record.origin,
        rates_json: JSON.stringify(Object.fromEntries(record.rates)),
        sources_json: JSON.stringify(record.sources),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { ...record, id: row.id };
  }

  /** The most recent refresh record, if any. */
  async latestRefresh(trx?: Transaction<Database>): Promise<RateRecord | undefined> {
    const q: Kysely<Database> = trx ?? this.db.kysely;
    const row = await q
      .selectFrom('rate_records')
      .selectAll()
      .where('origin', '=', 'refresh')
      .orderBy('rate_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /** The record whose time is nearest `target` within [from, to); on a tie the earlier one. */
  async nearest(target: number, from: number, to: number): Promise<RateRecord | undefined> {
    const before = await this.db.kysely
      .selectFrom('rate_records')
      .selectAll()
      .where('rate_at', '>=', BigInt(from))
      .where('rate_at', '<=', BigInt(target))
      .orderBy('rate_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const after = await this.db.kysely
      .selectFrom('rate_records')
      .selectAll()
      .where('rate_at', '>', BigInt(target))
      .where('rate_at', '<', BigInt(to))
      .orderBy('rate_at', 'asc')
      .orderBy('id', 'asc')
      .limit(1)
      .executeTakeFirst();
    if (!before || !after) {
      const only = before ?? after;
      return only ? toRecord(only) : undefined;
    }
    const distBefore = BigInt(target) - before.rate_at;
    const distAfter = after.rate_at - BigInt(target);
    return toRecord(distAfter < distBefore ? after : before);
  }

  /** Stores a lock, in `trx` when given so it commits with the caller's work. */
  async insertLock(lock: Omit<RateLock, 'id'>, trx?: Transaction<Database>): Promise<RateLock> {
    const q: Kysely<Database> = trx ?? this.db.kysely;
    const row = await q
      .insertInto('rate_locks')
      .values({
        purpose: lock.purpose,
        currency: lock.currency,
        rate: lock.rate,
        rate_at: BigInt(lock.rateAt),
        locked_at: BigInt(lock.lockedAt),
        expires_at: BigInt(lock.expiresAt),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { ...lock, id: row.id };
  }

  /** A stored lock by id. */
  async findLock(id: bigint): Promise<RateLock | undefined> {
    const row = await this.db.kysely.selectFrom('rate_locks').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      purpose: row.purpose as RateLockPurpose,
      currency: row.currency,
      rate: row.rate,
      rateAt: Number(row.rate_at),
      lockedAt: Number(row.locked_at),
      expiresAt: Number(row.expires_at),
    };
  }
}

function toRecord(row: RecordRow): RateRecord {
  const rates: RateMap = new Map();
  const parsed: unknown = JSON.parse(row.rates_json);
  if (parsed && typeof parsed === 'object') {
    // Stored prices are strings; anything else (a hand-edited row) is ignored rather than trusted.
    for (const [code, price] of Object.entries(parsed as Record<string, unknown>)) {
      if (isIso4217(code) && typeof price === 'string' && isDecimal(price)) rates.set(code, price);
    }
  }
  return {
    id: row.id,
    at: Number(row.rate_at),
    fetchedAt: Number(row.fetched_at),
    origin: row.origin,
    rates,
    sources: JSON.parse(row.sources_json) as RecordSources,
  };
}
