// A refill's chunk of pre-derived addresses stored in the address pool on SQLite, as a write of the SQLite
// writer's (sqlite-write-ops.ts): on the writer thread, so neither the chunk's statements nor its COMMIT hold the
// request thread (a chunk built by the query builder cost about a millisecond there, plus its fsync). The same
// writes as the query-builder transaction in wallets/address-pool.ts, which PostgreSQL still runs.
import type { SqliteConnection } from './database.ts';

/** A derived address of a refill's run. */
export interface PooledAddress {
  index: number;
  address: string;
  scriptHex: string;
}

/** What a chunk's store writes. */
export interface PoolChunk {
  walletId: bigint;
  scriptType: string;
  /** Pooled rows of another script type exist: they were never issued and are dropped (their indexes derived again). */
  dropOtherTypes: boolean;
  now: bigint;
  run: PooledAddress[];
}

/**
 * The part of a derived run still unused when the next free index is `next`: nothing if the run would leave a
 * gap (issuers that found the pool empty derived past its start meanwhile; the next chunk starts from the new end).
 */
export function freshRun<A extends { index: number }>(run: A[], next: number): A[] {
  const fresh = run.filter((a) => a.index >= next);
  return fresh.length === 0 || fresh[0]!.index !== next ? [] : fresh;
}

const DROP_OTHER_TYPES = 'delete from address_pool where wallet_id = ? and script_type <> ?';
const NEXT_INDEX =
  'select max(coalesce((select max(derivation_index) from addresses where wallet_id = ?), -1), ' +
  'coalesce((select max(derivation_index) from address_pool where wallet_id = ?), -1)) + 1 as next';
const INSERT = 'insert into address_pool (wallet_id, derivation_index, address, script_hex, script_type, created_at) values (?, ?, ?, ?, ?, ?)';

/** Stores the still-unused part of the chunk's run; the number of rows stored. */
export function storePoolChunk(conn: SqliteConnection, chunk: PoolChunk): number {
  if (chunk.dropOtherTypes) conn.run(DROP_OTHER_TYPES, [chunk.walletId, chunk.scriptType]);
  const next = Number(conn.get<{ next: bigint }>(NEXT_INDEX, [chunk.walletId, chunk.walletId])!.next);
  const fresh = freshRun(chunk.run, next);
  for (const a of fresh) conn.run(INSERT, [chunk.walletId, BigInt(a.index), a.address, a.scriptHex, chunk.scriptType, chunk.now]);
  return fresh.length;
}
