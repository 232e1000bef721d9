// A token bucket per light server, with backoff and jitter after a refusal (HTTP 429/5xx, dropped
// connection), and the counts /metrics reports. Every request to the server takes a token first.
// A refusal also halves the bucket's rate and burst and each success wins back 5%: a server whose limit is
// below what we were configured for teaches us its limit, instead of refusing every burst after every
// backoff (a server that drops a connection mid-poll would otherwise abort every poll, forever).

import type { LightBudget } from '../../config/chain-endpoint.ts';

export interface BudgetOptions extends LightBudget {
  /** Time source and sleeper, replaceable in tests. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** Request counts, for /metrics and /health. */
export interface BudgetStats {
  requests: number;
  refusals: number;
  /** Requests started in the last 60 seconds. */
  requestsLastMinute: number;
  backingOffUntil: number | null;
}

export class RequestBudget {
  private tokens: number;
  private last: number;
  /** Fraction of the configured rate and burst in use: halved per refusal, regained 5% per success. */
  private scale = 1;
  private refusalsInRow = 0;
  private pauseUntil = 0;
  private queue: Promise<void> = Promise.resolve();
  private readonly recent: number[] = [];
  requests = 0;
  refusals = 0;
  private readonly o: Required<BudgetOptions>;

  constructor(options: BudgetOptions = {}) {
    this.o = {
      ratePerSecond: options.ratePerSecond ?? 5,
      burst: options.burst ?? 20,
      backoffMs: options.backoffMs ?? 1000,
      maxBackoffMs: options.maxBackoffMs ?? 60_000,
      now: options.now ?? Date.now,
      sleep: options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
      random: options.random ?? Math.random,
    };
    this.tokens = this.o.burst;
    this.last = this.o.now();
  }

  /** Waits for a token (and for any backoff to end); requests are served in arrival order. */
  take(): Promise<void> {
    const turn = this.queue.then(async () => {
      for (;;) {
        const now = this.o.now();
        if (now < this.pauseUntil) {
          await this.o.sleep(this.pauseUntil - now);
          continue;
        }
        const rate = Math.max(0.5, this.o.ratePerSecond * this.scale);
        const burst = Math.max(1, this.o.burst * this.scale);
        this.tokens = Math.min(burst, this.tokens + ((now - this.last) / 1000) * rate);
        this.last = now;
        if (this.tokens >= 1) {
          this.tokens -= 1;
          this.requests++;
          this.recent.push(now);
          return;
        }
        await this.o.sleep(Math.ceil(((1 - this.tokens) / rate) * 1000));
      }
    });
    this.queue = turn.catch(() => {});
    return turn;
  }

  /** The server refused or dropped us: pause everyone, exponentially longer per refusal in a row, with jitter. */
  refused(retryAfterMs?: number): number {
    this.refusals++;
    const base = Math.min(this.o.maxBackoffMs, this.o.backoffMs * 2 ** this.refusalsInRow);
    this.refusalsInRow++;
    // Full jitter in [base/2, base): many clients refused together do not come back together.
    const wait = Math.max(retryAfterMs ?? 0, Math.floor(base / 2 + this.o.random() * (base / 2)));
    this.pauseUntil = Math.max(this.pauseUntil, this.o.now() + wait);
    this.tokens = 0;
    this.scale = Math.max(1 / 1024, this.scale / 2);
    return wait;
  }

  /** A request succeeded: the next refusal starts the backoff from the beginning. */
  succeeded(): void {
    this.refusalsInRow = 0;
    this.scale = Math.min(1, this.scale * 1.05);
  }

  stats(): BudgetStats {
    const now = this.o.now();
    while (this.recent.length > 0 && this.recent[0]! <= now - 60_000) this.recent.shift();
    return {
      requests: this.requests,
      refusals: this.refusals,
      requestsLastMinute: this.recent.length,
      backingOffUntil: this.pauseUntil > now ? this.pauseUntil : null,
    };
  }
}
