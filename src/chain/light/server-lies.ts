// Claims a light server made that did not verify: each is logged and counted, the last ones shown in /health,
// and none is acted on.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { ChainId } from '../chain-id.ts';

/** A claim a server made that did not verify: logged, shown in /health, ignored. */
export interface Lie {
  at: number;
  kind: 'bad-header' | 'txid-mismatch' | 'bad-merkle-proof' | 'missing-transaction' | 'bad-block';
  detail: string;
}

export class ServerLies {
  /** Every lie since start. */
  count = 0;
  /** The last 20. */
  private readonly kept: Lie[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly chain: ChainId,
    private readonly server: { readonly url: string },
  ) {}

  record(kind: Lie['kind'], detail: string): void {
    this.count++;
    this.kept.push({ at: this.clock(), kind, detail });
    if (this.kept.length > 20) this.kept.shift();
    this.log.warn({ chain: this.chain, source: this.server.url, kind, detail }, 'light server sent a claim that does not verify; ignored');
  }

  /** Whether the server lied in the hour before `now` (its source is then not verified). */
  recentAt(now: number): boolean {
    return this.kept.some((l) => now - l.at < 3_600_000);
  }

  /** The latest five, for /health. */
  latest(): Lie[] {
    return this.kept.slice(-5);
  }
}
