// One server of a light server pool (server-pool.ts): its own backend (own request budget and backoff), the
// tip it claims, whether it is lagging (behind the best tip, or on a branch our verified headers do not hold),
// the transactions it was caught omitting, and the blocks it sent that our verified headers refute. What /health,
// /metrics and `satgate doctor` show per server.
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
  /** Esplora: whole blocks it sent that are not the block our verified header names (another server's was taken). */
  badBlocks: number;
  /** The latest such block: when, and the hash asked for. */
  lastBadBlock: { at: number; hash: string } | null;
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
  badBlocks = 0;
  lastBadBlock: { at: number; hash: string } | null = null;
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

  badBlock(hash: string): void {
    this.badBlocks++;
    this.lastBadBlock = { at: this.clock(), hash };
  }

  /** A bad block in the last hour: the server is asked for blocks after the others. */
  recentlyBadBlock(): boolean {
    return this.lastBadBlock !== null && this.clock() - this.lastBadBlock.at < 3_600_000;
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
      badBlocks: this.badBlocks,
      lastBadBlock: this.lastBadBlock,
      lastError: this.lastError,
      subscriptions: this.backend.subscriptions?.() ?? null,
    };
  }
}
