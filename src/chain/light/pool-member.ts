// One server of a light server pool (server-pool.ts): its own backend (own request budget and backoff), the
// tip it claims, whether it is lagging (behind the best tip, or on a branch our verified headers do not hold),
// and the transactions it was caught omitting. What /health, /metrics and `satgate doctor` show per server.
import type { Clock } from '../../core/clock.ts';
import type { LightBackend } from './light-backend.ts';

export interface MemberHealth {
  url: string;
  connected: boolean;
  tipHeight: number | null;
  /** Behind the best tip, or its tip is not in our verified chain: not asked for histories until it catches up. */
  lagging: boolean;
  /** Why it lags: `behind` (lower tip) or `other-branch` (its tip header is not ours). */
  lagReason: 'behind' | 'other-branch' | null;
  /** Backing off after a refusal (-101, 429/5xx, dropped connection) until then (ms since epoch). */
  backingOffUntil: number | null;
  requests: number;
  requestsLastMinute: number;
  refusals: number;
  /** Proven transactions this server left out of a history it answered. */
  omissions: number;
  /**
   * The latest: `missing-transaction` (a proven transaction left out) or `status-mismatch` (its stated status is not
   * the hash of the list it sent, and a transaction another server listed is missing from that list).
   */
  lastOmission: { at: number; txid: string; kind: OmissionKind } | null;
  lastError: string | null;
  /** Electrum: scripts subscribed, the cap in force (lowered when the server refuses more), histories polled over it. */
  subscriptions: { subscribed: number; max: number; polledOverCap: number } | null;
}

export type OmissionKind = 'missing-transaction' | 'status-mismatch';

export class PoolMember {
  tip: number | null = null;
  lagReason: 'behind' | 'other-branch' | null = null;
  omissions = 0;
  lastOmission: { at: number; txid: string; kind: OmissionKind } | null = null;
  lastError: string | null = null;
  /** The tip (height and our hash there) whose header last matched our chain: one request per new tip. */
  branchChecked: string | null = null;

  constructor(
    readonly backend: LightBackend,
    private readonly clock: Clock,
  ) {}

  get url(): string {
    return this.backend.url;
  }

  get lagging(): boolean {
    return this.lagReason !== null;
  }

  backingOff(): boolean {
    return this.backend.budget().backingOffUntil !== null;
  }

  /** Asked for histories: not lagging and not backing off. */
  usable(): boolean {
    return !this.lagging && !this.backingOff();
  }

  omitted(txid: string, kind: OmissionKind): void {
    this.omissions++;
    this.lastOmission = { at: this.clock(), txid, kind };
  }

  /** An omission in the last hour makes the server asked less (every fourth turn). */
  recentlyOmitted(): boolean {
    return this.lastOmission !== null && this.clock() - this.lastOmission.at < 3_600_000;
  }

  health(): MemberHealth {
    const b = this.backend.budget();
    return {
      url: this.url,
      connected: this.backend.connected(),
      tipHeight: this.tip,
      lagging: this.lagging,
      lagReason: this.lagReason,
      backingOffUntil: b.backingOffUntil,
      requests: b.requests,
      requestsLastMinute: b.requestsLastMinute,
      refusals: b.refusals,
      omissions: this.omissions,
      lastOmission: this.lastOmission,
      lastError: this.lastError,
      subscriptions: this.backend.subscriptions?.() ?? null,
    };
  }
}
