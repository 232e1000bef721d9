import { sql, type Transaction } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './schema.ts';

/** Tables whose rows writers serialise on: a wallet (issuing its addresses), a payment, form or set_addr order (re-deriving its status). */
export type LockableTable = 'wallets' | 'payments' | 'payment_forms' | 'address_orders';

/**
 * Serialises writers of one row inside a transaction of `db`: PostgreSQL locks the row (FOR NO KEY UPDATE);
 * SQLite already has a single writer, so nothing is needed there.
 */
export async function lockRow(trx: Transaction<Database>, db: Pick<Db, 'engine'>, table: LockableTable, id: bigint): Promise<void> {
  if (db.engine === 'postgres') {
    // NO KEY UPDATE, not UPDATE: it serialises writers of the row all the same, but does not block the
    // FOR KEY SHARE locks that foreign-key checks take (every payment and address inserted for a wallet takes
    // one), so a wallet's refill or inline derivation no longer stalls every other creation for that wallet.
    await sql`select id from ${sql.table(table)} where id = ${id} for no key update`.execute(trx);
  }
}

/**
 * True when {@link lockRow} may have waited for another transaction, which may have committed rows meanwhile
 * (PostgreSQL); SQLite's single writer never waits there.
 */
export function lockRowMayWait(db: Pick<Db, 'engine'>): boolean {
  return db.engine === 'postgres';
}
