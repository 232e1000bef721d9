import { sql, type Transaction } from 'kysely';
import type { Engine } from './database.ts';
import type { Database } from './schema.ts';

/**
 * Serialises re-derivations of one payment's status (chain watcher, sweeper, status reads) inside a
 * transaction: PostgreSQL locks the row (FOR UPDATE); SQLite already has a single writer.
 */
export async function lockPaymentRow(trx: Transaction<Database>, engine: Engine, paymentId: bigint): Promise<void> {
  if (engine === 'postgres') {
    await sql`select id from payments where id = ${paymentId} for update`.execute(trx);
  }
}
