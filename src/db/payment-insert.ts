// Payment creation (issue 16), both ways. From the address pool: the creation transaction was BEGIN, rate lock,
// address claim, gap check, payment, transition, COMMIT, each statement built by the query builder and, on
// PostgreSQL, a network round trip. On PostgreSQL they are one statement of data-modifying CTEs, atomic by itself
// (a statement commits or fails whole): the pooled address is claimed (FOR UPDATE SKIP LOCKED), issued, the rate
// lock, the payment and its creation transition inserted. On SQLite they are plain prepared statements in one
// synchronous transaction on the writer thread (sqlite-payment-insert.ts). Nothing is written when the pool has no
// row for the wallet; the caller then takes the transactional path, whose payment row is insertPaymentRow's.
import { CompiledQuery, type Insertable, type Selectable, type Transaction } from 'kysely';
import { engineHandles, type Db } from './database.ts';
import type { Database, PaymentsTable } from './schema.ts';
import { currentFence } from './fencing.ts';
import { PAYMENT_CREATED, transitionInsertHead } from './transitions.ts';
import type { OneStatementPayment, OneStatementResult } from './sqlite-payment-insert.ts';

export type { OneStatementPayment, OneStatementResult } from './sqlite-payment-insert.ts';

/**
 * True when {@link createPaymentFromPool} can create payments on this database: PostgreSQL, or SQLite on a file
 * (whose writer thread commits them); not SQLite in memory, where creation is the transactional path only.
 */
export function createsFromPool(db: Db): boolean {
  return db.engine === 'postgres' || engineHandles(db).sqliteWrite !== undefined;
}

/**
 * Creates the payment from the wallet's address pool, atomically: one statement on PostgreSQL, one synchronous
 * transaction on SQLite. Undefined when the pool is empty (nothing is written then).
 */
export async function createPaymentFromPool(db: Db, p: OneStatementPayment): Promise<OneStatementResult | undefined> {
  const { sqliteWrite, pgNamed } = engineHandles(db);
  if (sqliteWrite) return sqliteWrite('paymentInsert', p);
  if (db.engine !== 'postgres') throw new Error('createPaymentFromPool needs PostgreSQL or SQLite on a file');
  const now = BigInt(p.now);
  const { lock, payment: q } = p;
  const values = [
    p.walletId, p.scriptType, now, lock.purpose, lock.currency, lock.rate, BigInt(lock.rateAt), BigInt(lock.lockedAt), BigInt(lock.expiresAt),
    q.reference, p.clientId, q.type, q.cryptoCurrency, q.cryptoSats, q.orderCurrency, q.orderAmount, BigInt(q.monitorUntil), q.requestJson,
  ];
  // A named prepared statement: the server parses and plans this CTE once per connection instead of on every
  // creation (its text is the same each time; only the parameters differ). Fenced singleton work never creates
  // payments, but if it did it would go through Kysely, whose connection checks the fence.
  if (pgNamed && !currentFence()) return (await pgNamed<OneStatementResult>('satgate_payment_insert', PG_INSERT, values))[0];
  const { rows } = await db.kysely.executeQuery<OneStatementResult>(CompiledQuery.raw(PG_INSERT, values));
  return rows[0];
}

// The statement's text is constant (written with $n placeholders, not built per call): building it with the
// query builder cost about 30 µs of the request thread per creation.
const PG_INSERT = `
    with claimed as (
      delete from address_pool where id = (
        select id from address_pool where wallet_id = $1 and script_type = $2
        order by derivation_index limit 1 for update skip locked)
      returning wallet_id, derivation_index, address, script_hex),
    addr as (
      insert into addresses (wallet_id, derivation_index, address, script_hex, created_at, reserved_until, purpose)
      select wallet_id, derivation_index, address, script_hex, $3::bigint, null, 'payment' from claimed
      returning id, derivation_index, address, script_hex),
    lk as (
      insert into rate_locks (purpose, currency, rate, rate_at, locked_at, expires_at)
      select $4::text, $5::text, $6::text, $7::bigint, $8::bigint, $9::bigint from claimed
      returning id),
    pay as (
      insert into payments (reference, wallet_id, address_id, client_id, type, crypto_currency, crypto_sats, order_currency,
                            order_amount, exchange_rate, rate_lock_id, expiry_at, monitor_until, status, status_at, request_json, created_at)
      select $10::text, $1::bigint, addr.id, $11::bigint, $12::text, $13::text, $14::bigint, $15::text,
             $16::text, $6::text, lk.id, $9::bigint, $17::bigint, 'unpaid', $3::bigint, $18::text, $3::bigint
      from addr, lk
      returning *),
    tr as (
      ${transitionInsertHead('payment_transitions')}
      select id, null, '${PAYMENT_CREATED.to}', '${PAYMENT_CREATED.cause}', $3::bigint from pay)
    select pay.*, addr.address as issued_address, addr.script_hex as issued_script_hex, addr.derivation_index as issued_index,
           (select max(derivation_index) from addresses where wallet_id = $1 and first_funded_at is not null) as last_funded
    from pay, addr`;

/** Stores a payment row in the caller's transaction (the transactional creation path); the row as stored. */
export function insertPaymentRow(trx: Transaction<Database>, row: Insertable<PaymentsTable>): Promise<Selectable<PaymentsTable>> {
  return trx.insertInto('payments').values(row).returningAll().executeTakeFirstOrThrow();
}
