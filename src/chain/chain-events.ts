import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { ChainId } from './chain-id.ts';

/** Why the watcher changed what it knows. */
export type ChainChangeCause = 'block' | 'mempool' | 'reorg' | 'withdrawn' | 'tip';

/** One batch of changes, applied in one database transaction. */
export interface ChainChange {
  chain: ChainId;
  cause: ChainChangeCause;
  /** Issued addresses whose transactions changed in this batch. */
  addressIds: Set<bigint>;
  tipHeight: number;
  now: number;
}

/**
 * Called inside the watcher's database transaction, so states derived from the change (payment statuses,
 * outbox events) commit together with it or not at all.
 */
export type ChainChangeListener = (trx: Transaction<Database>, change: ChainChange) => Promise<void>;
