import { sql, type Transaction } from 'kysely';
import type { Engine } from './database.ts';
import type { Database } from './schema.ts';

/** Tables whose rows writers serialise on: a wallet (issuing its addresses), a payment, form or set_addr order (re-deriving its status). */
export type LockableTable = 'wallets' | 'payments' | 'payment_forms' | 'address_orders';

/**
 * Serialises writers of one row inside a transaction: PostgreSQL locks the row (FOR UPDATE);
 * SQLite already has a single writer, so nothing is needed there.
 */
export async function lockRow(trx: Transaction<Database>, engine: Engine, table: LockableTable, id: bigint): Promise<void> {
  if (engine === 'postgres') {
    await sql`select id from ${sql.table(table)} where id = ${id} for update`.execute(trx);
  }
}
