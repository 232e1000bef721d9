// What the light watcher asks of a server, whichever protocol it speaks. Everything a server answers
// here is a claim: the watcher checks headers, transaction ids and Merkle proofs itself.
import type { HistoryEntry } from './script-hash.ts';
import type { BudgetStats } from './request-budget.ts';
import type { ChainSourceKind } from '../../config/chain-endpoint.ts';
import type { MemberHealth } from './pool-member.ts';
import type { PoolView } from './server-pool.ts';

/** Several servers (server-pool.ts): `everyServer` asks every healthy one now (an order about to expire). */
export interface HistoryOptions {
  everyServer?: boolean;
  /** A hot address (open order, request, refund waiting): Electrum keeps its subscription first when over the cap. */
  hot?: boolean;
}

/** A script's history as a server answered it. */
export interface HistoryAnswer {
  status: string | null;
  entries: HistoryEntry[];
  /** Electrum: the status the server stated is not the hash of the list it sent (it claims a history it did not send). */
  statusMismatch?: boolean;
}

/** A Merkle branch for a transaction in the block at `height`. */
export interface MerkleProof {
  height: number;
  branch: string[];
  pos: number;
}

export interface LightBackend {
  readonly kind: Exclude<ChainSourceKind, 'rpc'>;
  /** Where the server is, without credentials (safe to log and show). */
  readonly url: string;
  /** The height of the server's best chain. */
  tipHeight(): Promise<number>;
  /** Raw 80-byte headers from `start`, at most `count` (fewer at the server's tip). */
  headers(start: number, count: number): Promise<Uint8Array[]>;
  /**
   * A script's history: mined by height (block order), then unconfirmed. `known` is the status (Electrum)
   * the caller last processed; the backend answers `unchanged` when the server's status still matches.
   */
  history(script: Uint8Array, known?: string | null, opts?: HistoryOptions): Promise<HistoryAnswer | 'unchanged'>;
  /**
   * A whole block's bytes, for matching every transaction against the watched set (block-scan.ts); null when
   * this server does not serve blocks. Absent where the protocol has no such question (Electrum). `check` tells
   * bytes that are the block from bytes that are not, without recording anything: several servers
   * (server-pool.ts) then ask the next one when a server's bytes fail it; one server ignores it.
   */
  rawBlock?(hash: string, check?: (raw: Uint8Array) => boolean): Promise<Uint8Array | null>;
  /** How rawBlock gets blocks: whole ('raw') or rebuilt from paged transactions ('pages', Esplora without /raw). */
  blockRoute?(): 'raw' | 'pages';
  /** The hash of the tip the last tipHeight answer named, when the protocol tells it (Esplora). */
  tipHash?(): string | null;
  /** The serialized transaction, or null when the server does not know it. */
  rawTransaction(txid: string): Promise<Uint8Array | null>;
  merkleProof(txid: string, height: number): Promise<MerkleProof>;
  /** Sends a transaction; returns the txid the server reports. */
  broadcast(raw: Uint8Array): Promise<string>;
  /** Fee rate for confirmation within `blocks`, whole sat/vB, or null when the server has no estimate. */
  estimateFee(blocks: number): Promise<bigint | null>;
  /** Called when the server pushes a change (new tip, a script's status); the watcher polls then. */
  onPush(listener: () => void): void;
  /** Forgets a cached tip so the next question asks the server (a pushed block). */
  refreshTip?(): void;
  budget(): BudgetStats;
  /** Several servers (server-pool.ts): given the watcher's verified view, to judge lagging and omissions. */
  observe?(view: PoolView): void;
  /** Several servers: each one's health, for /health, /metrics and `satgate doctor`. */
  servers?(): MemberHealth[];
  /** Several servers: after a rollback, the servers' earlier answers are forgotten. */
  forgetHistories?(): void;
  /** Electrum: scripts subscribed now, the cap (configured, or what the server accepted), and scripts polled over it. */
  subscriptions?(): { subscribed: number; max: number; polledOverCap: number };
  /** Connection state for /health. */
  connected(): boolean;
  close(): Promise<void>;
}

/** The server could not be reached or refused (not a lie: retried later). */
export class BackendUnavailableError extends Error {
  override name = 'BackendUnavailableError';
}
