// The seam between the chain watchers and their backends (DESIGN.md section 10). A node (RPC) is scanned
// block by block; a light server (Electrum, Esplora) is asked per script and verified against our own
// header chain. Both produce the same records and change events; above the watcher nothing differs.
import type { ChainChangeListener } from './chain-events.ts';
import type { RpcClient } from './rpc-client.ts';
import type { LightBackend } from './light/light-backend.ts';
import type { ChainSourceKind } from '../config/chain-endpoint.ts';

export type { ChainSourceKind };

/** What a watcher reports for GET /health and `satgate status`. */
export interface FollowerHealth {
  [detail: string]: unknown;
  ok: boolean;
  network: string;
  tipHeight: number | null;
  polls: number;
  stalled: boolean;
  error: string | null;
}

/** A chain watcher, whichever source it follows. */
export interface ChainFollower {
  onChange(listener: ChainChangeListener): void;
  /** Called after a committed change touched an address (e.g. to wake the outbox). */
  onCommitted(listener: () => void): void;
  /** Polls now instead of at the next tick (a push hint). */
  wake(): void;
  start(): void;
  stop(): Promise<void>;
  /** One poll now (waits for one under way, then polls afresh). */
  pollOnce(): Promise<void>;
  health(): FollowerHealth;
}

/** The calls other capabilities make of a chain's source: spending, fees, looking a transaction up. */
export interface ChainSource {
  readonly kind: ChainSourceKind;
  /** Where it is, without credentials. */
  readonly url: string;
  /** Sends a transaction; returns its txid. */
  broadcast(raw: Uint8Array): Promise<string>;
  /** Whole sat/vB for confirmation within `blocks`, the configured fallback when the source has none. */
  estimateFee(blocks: number): Promise<bigint>;
  /** Serialized transaction, or null when the source does not know it. */
  rawTransaction(txid: string): Promise<Uint8Array | null>;
  /**
   * Whether the source lists any transaction for the script, asked now (before an expired address is reused).
   * Null from a node: its watcher scans every block and the mempool for every issued address, so the records
   * in the database are already complete up to its tip and there is nothing to ask.
   */
  freshHistory(script: Uint8Array): Promise<boolean | null>;
  close(): Promise<void>;
}

/** Today's node: the RPC client, unchanged. */
export class RpcChainSource implements ChainSource {
  readonly kind = 'rpc' as const;
  constructor(readonly rpc: RpcClient) {}
  get url(): string {
    return this.rpc.url;
  }
  broadcast(raw: Uint8Array): Promise<string> {
    return this.rpc.sendRawTransaction(raw);
  }
  estimateFee(blocks: number): Promise<bigint> {
    return this.rpc.estimateSmartFee(blocks);
  }
  rawTransaction(txid: string): Promise<Uint8Array | null> {
    return this.rpc.getRawTransaction(txid);
  }
  async freshHistory(): Promise<null> {
    return null;
  }
  async close(): Promise<void> {}
}

/** A light server behind the same calls. */
export class LightChainSource implements ChainSource {
  constructor(
    readonly backend: LightBackend,
    private readonly fallbackFeeRate: bigint,
    /** Told of each transaction broadcast (the light watcher then asks about the addresses it touches). */
    private readonly broadcasted?: (raw: Uint8Array) => Promise<void>,
  ) {}
  get kind(): LightBackend['kind'] {
    return this.backend.kind;
  }
  get url(): string {
    return this.backend.url;
  }
  async broadcast(raw: Uint8Array): Promise<string> {
    const txid = await this.backend.broadcast(raw);
    await this.broadcasted?.(raw);
    return txid;
  }
  async estimateFee(blocks: number): Promise<bigint> {
    return (await this.backend.estimateFee(blocks)) ?? this.fallbackFeeRate;
  }
  rawTransaction(txid: string): Promise<Uint8Array | null> {
    return this.backend.rawTransaction(txid);
  }
  /**
   * A light watcher asks about a cold address only in its slow sweep, so its records may not know a late
   * payment yet: the server is asked now, never the cached status. A claim here is not verified (it only
   * keeps an address from being reused, the cautious side); the watcher verifies it before it counts.
   */
  async freshHistory(script: Uint8Array): Promise<boolean> {
    const answer = await this.backend.history(script);
    return answer !== 'unchanged' && answer.entries.length > 0;
  }
  close(): Promise<void> {
    return this.backend.close();
  }
}
