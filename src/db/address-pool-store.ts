// A refill's chunk of the address pool stored, on either engine: on SQLite as a write of the writer thread's
// (sqlite-pool-store.ts: neither the chunk's statements nor its COMMIT hold the request thread), on PostgreSQL in a
// query-builder transaction under the wallet lock, with the same writes.
import { sql } from 'kysely';
import { engineHandles, type Db } from './database.ts';
import { lockRow } from './row-locks.ts';
import { nextDerivationIndex } from './address-claims.ts';
import { freshRun, type PoolChunk } from './sqlite-pool-store.ts';

export type { PoolChunk, PooledAddress } from './sqlite-pool-store.ts';

/** Stores the still-unused part of the chunk's run in one transaction; the number of rows stored. */
export async function storeRefillChunk(db: Db, chunk: PoolChunk): Promise<number> {
  const { sqliteWrite } = engineHandles(db);
  if (sqliteWrite) return sqliteWrite('poolStore', chunk);
  return db.kysely.transaction().execute(async (trx) => {
    await lockRow(trx, db, 'wallets', chunk.walletId);
    // Rows of a script type the wallet no longer has were never issued; their indexes are derived again.
    if (chunk.dropOtherTypes) await trx.deleteFrom('address_pool').where('wallet_id', '=', chunk.walletId).where('script_type', '!=', chunk.scriptType).execute();
    // Issuers that found the pool empty derived inline meanwhile: keep only the indexes still unused,
    // and none at all if that would leave a gap (then the next chunk starts from the new end).
    const fresh = freshRun(chunk.run, await nextDerivationIndex(trx, chunk.walletId));
    if (fresh.length === 0) return 0;
    await trx
      .insertInto('address_pool')
      .values(fresh.map((a) => ({
        wallet_id: chunk.walletId,
        derivation_index: BigInt(a.index),
        address: a.address,
        script_hex: a.scriptHex,
        script_type: chunk.scriptType,
        created_at: chunk.now,
      })))
      .execute();
    return fresh.length;
  });
}

/**
 * PostgreSQL plans the pool claim (payment-insert.ts, address-claims.ts) once per connection from the table's
 * statistics. Planned while the pool table still looked empty (a new database, or one not analyzed since the
 * pool was first filled), the claim read every pooled row of the wallet by bitmap scan and sorted them, dead
 * rows included, which a bitmap scan never prunes: under a burst of creations that cost more than the rest of
 * the creation statement. With the pool's real size in the statistics it is an ordered index scan that stops
 * at the first row it can lock. So the first refill a process commits analyzes the table once (this); cached
 * plans are made again from the new statistics, and autovacuum keeps them current afterwards. SQLite plans
 * each statement when it is prepared and needs nothing.
 */
export async function refreshPoolStatistics(db: Db): Promise<void> {
  if (db.engine !== 'postgres') return;
  await sql`analyze address_pool`.execute(db.kysely);
}
