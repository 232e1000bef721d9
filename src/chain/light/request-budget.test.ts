import { describe, expect, it } from 'vitest';
import { RequestBudget } from './request-budget.ts';

/** A budget on a fake clock: sleeping advances time instead of waiting. */
function fakeBudget(opts: { ratePerSecond: number; burst: number; random?: () => number }) {
  let now = 0;
  const budget = new RequestBudget({ ...opts, now: () => now, sleep: async (ms) => void (now += ms), backoffMs: 1000, maxBackoffMs: 8000 });
  return { budget, at: () => now };
}

describe('the request budget', () => {
  it('lets a burst through, then no more than the rate', async () => {
    const { budget, at } = fakeBudget({ ratePerSecond: 2, burst: 4 });
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      await budget.take();
      times.push(at());
    }
    expect(times.slice(0, 4)).toEqual([0, 0, 0, 0]);
    // After the burst: one token every 500 ms, so 6 more take 3 s.
    expect(times[9]).toBe(3000);
    for (let i = 4; i < 10; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(500);
  });

  it('after refusals waits exponentially longer with jitter, and starts over after a success', () => {
    const { budget } = fakeBudget({ ratePerSecond: 100, burst: 100, random: () => 0.5 });
    expect(budget.refused()).toBe(750);
    expect(budget.refused()).toBe(1500);
    expect(budget.refused()).toBe(3000);
    expect(budget.refused()).toBe(6000);
    expect(budget.refused()).toBe(6000); // capped at maxBackoffMs, jittered within [max/2, max)
    budget.succeeded();
    expect(budget.refused()).toBe(750);
    expect(budget.refused(5000)).toBe(5000); // Retry-After wins when longer
  });

  it('a refusal halves the rate and burst it allows itself, and successes win them back', async () => {
    const { budget, at } = fakeBudget({ ratePerSecond: 8, burst: 8, random: () => 0 });
    budget.refused(); // backoff 500 ms, then 4 per second (the pause refilled 2 tokens)
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      await budget.take();
      times.push(at());
    }
    expect(times).toEqual([500, 500, 750, 1000, 1250, 1500]);
    for (let i = 0; i < 200; i++) budget.succeeded();
    const start = at();
    for (let i = 0; i < 8; i++) await budget.take();
    expect(at() - start).toBeLessThanOrEqual(1000); // back to 8 per second
  });

  it('pauses every caller until a backoff ends', async () => {
    const { budget, at } = fakeBudget({ ratePerSecond: 100, burst: 100, random: () => 0 });
    budget.refused();
    await budget.take();
    expect(at()).toBe(500);
    expect(budget.stats()).toMatchObject({ requests: 1, refusals: 1 });
  });
});
