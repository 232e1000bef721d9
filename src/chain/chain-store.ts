import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { ChainId } from './chain-id.ts';

/** The tip the watcher has fully processed. */
export interface StoredTip {
  hash: string;
  height: number;
}

type Trx = Transaction<Database>;

/** Database side of the chain watcher: tips, processed blocks, matched transactions. */
export class ChainStore {
  constructor(
    readonly db: Db,
    readonly chain: ChainId,
  ) {}

  /** Runs work in one database transaction. */
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
    return this.db.kysely.transaction().execute(work);
  }

  /** The stored tip, or undefined before the first block. */
  async tip(): Promise<StoredTip | undefined> {
    const row = await this.db.kysely.selectFrom('chain_tips').selectAll().where('chain', '=', this.chain).executeTakeFirst();
    return row ? { hash: row.tip_hash, height: Number(row.tip_height) } : undefined;
  }

  /** The hash we processed at a height, if any. */
  async blockHashAt(height: number): Promise<string | undefined> {
    const row = await this.db.kysely
      .selectFrom('chain_blocks')
      .select('hash')
      .where('chain', '=', this.chain)
      .where('height', '=', BigInt(height))
      .executeTakeFirst();
    return row?.hash;
  }

  /** Records a processed block and makes it the tip. */
  async setTip(trx: Trx, block: { hash: string; height: number; prevHash: string; time: number }, now: number): Promise<void> {
    await trx
      .insertInto('chain_blocks')
      .values({ chain: this.chain, hash: block.hash, height: BigInt(block.height), prev_hash: block.prevHash, time: BigInt(block.time) })
      .onConflict((oc) => oc.columns(['chain', 'hash']).doNothing())
      .execute();
    await trx
      .insertInto('chain_tips')
      .values({ chain: this.chain, tip_hash: block.hash, tip_height: BigInt(block.height), updated_at: BigInt(now) })
      .onConflict((oc) =>
        oc.column('chain').doUpdateSet({ tip_hash: block.hash, tip_height: BigInt(block.height), updated_at: BigInt(now) }),
      )
      .execute();
  }

  /**
   * Upserts a matched transaction. A block sighting always wins; a mempool sighting never downgrades a
   * mined transaction, and revives a withdrawn one. Returns the row id.
   */
  async upsertTx(
    trx: Trx,
    tx: { txid: string; locktime: number },
    where: { block: { hash: string; height: number; time: number } } | { mempool: true },
    now: number,
  ): Promise<bigint> {
    const existing = await trx
      .selectFrom('chain_txs')
      .select(['id', 'state'])
      .where('chain', '=', this.chain)
      .where('txid', '=', tx.txid)
      .executeTakeFirst();
    const mined = 'block' in where;
    const fields = mined
      ? {
          state: 'block' as const,
          block_hash: where.block.hash,
          block_height: BigInt(where.block.height),
          block_time: BigInt(where.block.time),
          withdrawn_at: null,
          withdrawn_reason: null,
        }
      : { state: 'mempool' as const, block_hash: null, block_height: null, block_time: null, withdrawn_at: null, withdrawn_reason: null };
    if (existing) {
      if (mined || existing.state === 'withdrawn') {
        await trx.updateTable('chain_txs').set(fields).where('id', '=', existing.id).execute();
      }
      return existing.id;
    }
    const row = await trx
      .insertInto('chain_txs')
      .values({ chain: this.chain, txid: tx.txid, locktime: BigInt(tx.locktime), first_seen_at: BigInt(now), ...fields })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Records an output paying an issued address (idempotent) and marks the address as funded. */
  async addOutput(trx: Trx, txRowId: bigint, vout: number, addressId: bigint, value: bigint, now: number): Promise<bigint> {
    await trx
      .insertInto('chain_outputs')
      .values({ tx_id: txRowId, vout: BigInt(vout), address_id: addressId, value_sats: value })
      .onConflict((oc) => oc.columns(['tx_id', 'vout']).doNothing())
      .execute();
    await trx
      .updateTable('addresses')
      .set({ first_funded_at: BigInt(now) })
      .where('id', '=', addressId)
      .where('first_funded_at', 'is', null)
      .execute();
    const row = await trx
      .selectFrom('chain_outputs')
      .select('id')
      .where('tx_id', '=', txRowId)
      .where('vout', '=', BigInt(vout))
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Records that input `vin` of a transaction spends a watched output (idempotent); returns its address. */
  async addSpend(trx: Trx, txRowId: bigint, vin: number, outputId: bigint): Promise<bigint> {
    await trx
      .insertInto('chain_spends')
      .values({ tx_id: txRowId, vin: BigInt(vin), output_id: outputId })
      .onConflict((oc) => oc.columns(['tx_id', 'vin']).doNothing())
      .execute();
    const row = await trx.selectFrom('chain_outputs').select('address_id').where('id', '=', outputId).executeTakeFirstOrThrow();
    return row.address_id;
  }

  /**
   * Undoes blocks above `height` (a reorg): their transactions return to the mempool state (the next
   * mempool scan withdraws those the node no longer has). Returns the addresses touched.
   */
  async rollbackAbove(trx: Trx, height: number): Promise<Set<bigint>> {
    const txs = await trx
      .selectFrom('chain_txs')
      .select('id')
      .where('chain', '=', this.chain)
      .where('state', '=', 'block')
      .where('block_height', '>', BigInt(height))
      .execute();
    const ids = txs.map((t) => t.id);
    const touched = await this.addressesOf(trx, ids);
    if (ids.length > 0) {
      await trx
        .updateTable('chain_txs')
        .set({ state: 'mempool', block_hash: null, block_height: null, block_time: null })
        .where('id', 'in', ids)
        .execute();
    }
    await trx.deleteFrom('chain_blocks').where('chain', '=', this.chain).where('height', '>', BigInt(height)).execute();
    return touched;
  }

  /** Transactions we hold as waiting in the mempool: txid to row id. */
  async mempoolTxs(): Promise<Map<string, bigint>> {
    const rows = await this.db.kysely
      .selectFrom('chain_txs')
      .select(['id', 'txid'])
      .where('chain', '=', this.chain)
      .where('state', '=', 'mempool')
      .execute();
    return new Map(rows.map((r) => [r.txid, r.id]));
  }

  /** Marks transactions as gone from the mempool without being mined; returns the addresses touched. */
  async withdraw(trx: Trx, txRowIds: bigint[], reason: string, now: number): Promise<Set<bigint>> {
    if (txRowIds.length === 0) return new Set();
    await trx
      .updateTable('chain_txs')
      .set({ state: 'withdrawn', withdrawn_at: BigInt(now), withdrawn_reason: reason })
      .where('id', 'in', txRowIds)
      .where('state', '=', 'mempool')
      .execute();
    return this.addressesOf(trx, txRowIds);
  }

  /** How a transaction is held, if at all: its state and, when mined, its block. */
  async txState(txid: string): Promise<{ state: 'block' | 'mempool' | 'withdrawn'; block_hash: string | null } | undefined> {
    return this.db.kysely
      .selectFrom('chain_txs')
      .select(['state', 'block_hash'])
      .where('chain', '=', this.chain)
      .where('txid', '=', txid)
      .executeTakeFirst();
  }

  /** Addresses credited or debited by the given transactions (in `q`: a transaction, or the database outside one). */
  async addressesOf(q: Kysely<Database>, txRowIds: bigint[]): Promise<Set<bigint>> {
    if (txRowIds.length === 0) return new Set();
    const credits = await q.selectFrom('chain_outputs').select('address_id').where('tx_id', 'in', txRowIds).execute();
    const debits = await q
      .selectFrom('chain_spends')
      .innerJoin('chain_outputs', 'chain_outputs.id', 'chain_spends.output_id')
      .select('chain_outputs.address_id')
      .where('chain_spends.tx_id', 'in', txRowIds)
      .execute();
    return new Set([...credits, ...debits].map((r) => r.address_id));
  }
}
