import { sql, type Transaction } from 'kysely';
import type { Engine } from './database.ts';
import type { Database } from './schema.ts';

/**
 * Serialises writers of one wallet inside a transaction: PostgreSQL locks the row (FOR UPDATE);
 * SQLite already has a single writer, so nothing is needed there.
 */
export async function lockWalletRow(trx: Transaction<Database>, engine: Engine, walletId: bigint): Promise<void> {
  if (engine === 'postgres') {
    await sql`select id from wallets where id = ${walletId} for update`.execute(trx);
  }
}
