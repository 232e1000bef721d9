// Database-held sliding-window limits: exact under concurrency from two database handles (two processes'
// pools on PostgreSQL), all-or-nothing across several limits, and a wait that says when room comes back.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import type { Db } from '../db/database.ts';
import { RateLimiter, RateLimitedError, type Limit } from './rate-limiter.ts';
import { walletAnswerOf } from '../http/wallet-face.ts';

describe.each(testEngines())('the database rate limiter on %s', (engine) => {
  let testDb: TestDb;
  let second: Db;

  beforeEach(async () => {
    testDb = await createTestDb(engine);
    second = testDb.reopen();
  });
  afterEach(async () => {
    await second.close();
    await testDb.dispose();
  });

  const limit = (max: number, windowMs: number, key = 'k'): Limit => ({ key, max, windowMs, describe: `${max} per window` });

  it('admits exactly max events when 20 arrive at once (through two handles on PostgreSQL)', async () => {
    // SQLite serves one server process (a lock refuses a second); two synchronous handles in one process
    // would only block each other's event loop, so there both limiters share the handle.
    const limiters = [new RateLimiter(testDb.db), new RateLimiter(engine === 'postgres' ? second : testDb.db)];
    const now = 1_000_000;
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => limiters[i % 2]!.consume([limit(5, 60_000)], now)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(15);
    for (const r of refused) expect(r.reason).toBeInstanceOf(RateLimitedError);
  });

  it('says how long until room comes back, and slides', async () => {
    const limiter = new RateLimiter(testDb.db);
    await limiter.consume([limit(2, 60_000)], 0);
    await limiter.consume([limit(2, 60_000)], 10_000);
    const refused = await limiter.consume([limit(2, 60_000)], 15_000).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterSeconds).toBe(45);
    expect(walletAnswerOf(refused as RateLimitedError)?.http).toBe(429);
    expect(walletAnswerOf(refused as RateLimitedError)?.code).toBe('201');
    await limiter.consume([limit(2, 60_000)], 60_001);
  });

  it('records nothing when any of several limits is full', async () => {
    const limiter = new RateLimiter(testDb.db);
    await limiter.consume([limit(1, 60_000, 'a')], 0);
    await expect(limiter.consume([limit(5, 60_000, 'b'), limit(1, 60_000, 'a')], 1000)).rejects.toBeInstanceOf(RateLimitedError);
    const events = await testDb.db.kysely.selectFrom('rate_limit_events').select('key').execute();
    expect(events.map((e) => e.key)).toEqual(['a']);
  });
});
