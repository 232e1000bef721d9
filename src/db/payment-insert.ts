// Payment creation from the address pool (issue 16). The creation transaction was BEGIN, rate lock, address
// claim, gap check, payment, transition, COMMIT, each statement built by the query builder and, on PostgreSQL,
// a network round trip. On PostgreSQL they are one statement of data-modifying CTEs, atomic by itself (a
// statement commits or fails whole): the pooled address is claimed (FOR UPDATE SKIP LOCKED), issued, the rate
// lock, the payment and its creation transition inserted. On SQLite they are plain prepared statements in one
// synchronous transaction. Nothing is written when the pool has no row for the wallet; the caller then takes
// the transactional path.
import { CompiledQuery, type Selectable } from 'kysely';
import type { Db, SqliteConnection } from './database.ts';
import type { PaymentsTable } from './schema.ts';
import { currentFence } from './fencing.ts';

/** Everything the statement writes, computed before it runs. */
export interface OneStatementPayment {
  walletId: bigint;
  scriptType: string;
  clientId: bigint;
  now: number;
  lock: { purpose: string; currency: string; rate: string; rateAt: number; lockedAt: number; expiresAt: number };
  payment: {
    reference: string;
    type: string;
    cryptoCurrency: string;
    cryptoSats: bigint;
    orderCurrency: string;
    orderAmount: string;
    monitorUntil: number;
    requestJson: string;
  };
}

/** The stored payment, its issued address, and the wallet's last funded index (for the gap-limit warning). */
export type OneStatementResult = Selectable<PaymentsTable> & {
  issued_address: string;
  issued_script_hex: string;
  issued_index: bigint;
  last_funded: bigint | null;
};

/**
 * Creates the payment from the wallet's address pool, atomically: one statement on PostgreSQL, one synchronous
 * transaction on SQLite. Undefined when the pool is empty (nothing is written then).
 */
export async function insertPaymentFromPool(db: Db, p: OneStatementPayment): Promise<OneStatementResult | undefined> {
  if (db.sqliteWrite) return db.sqliteWrite((conn) => insertOnSqlite(conn, p));
  if (db.engine !== 'postgres') throw new Error('insertPaymentFromPool needs PostgreSQL or SQLite on a file');
  const now = BigInt(p.now);
  const { lock, payment: q } = p;
  const values = [
    p.walletId, p.scriptType, now, lock.purpose, lock.currency, lock.rate, BigInt(lock.rateAt), BigInt(lock.lockedAt), BigInt(lock.expiresAt),
    q.reference, p.clientId, q.type, q.cryptoCurrency, q.cryptoSats, q.orderCurrency, q.orderAmount, BigInt(q.monitorUntil), q.requestJson,
  ];
  // A named prepared statement: the server parses and plans this CTE once per connection instead of on every
  // creation (its text is the same each time; only the parameters differ). Fenced singleton work never creates
  // payments, but if it did it would go through Kysely, whose connection checks the fence.
  if (db.pgNamed && !currentFence()) return (await db.pgNamed<OneStatementResult>('satgate_payment_insert', PG_INSERT, values))[0];
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
    -- The creation transition, as notify/status-transition.ts records it (creation notifies no one).
    tr as (
      insert into payment_transitions (payment_id, from_status, to_status, cause, at)
      select id, null, 'unpaid', 'created', $3::bigint from pay)
    select pay.*, addr.address as issued_address, addr.script_hex as issued_script_hex, addr.derivation_index as issued_index,
           (select max(derivation_index) from addresses where wallet_id = $1 and first_funded_at is not null) as last_funded
    from pay, addr`;

// SQLite: the same writes as the statement above, as plain statements prepared once and run back to back in
// one transaction with no await between them (SQLite has a single writer, so no row locks are needed).
const SQLITE_CLAIM =
  'delete from address_pool where id = (select id from address_pool where wallet_id = ? and script_type = ? ' +
  'order by derivation_index limit 1) returning derivation_index, address, script_hex';
const SQLITE_ADDRESS =
  "insert into addresses (wallet_id, derivation_index, address, script_hex, created_at, reserved_until, purpose) values (?, ?, ?, ?, ?, null, 'payment') returning id";
const SQLITE_LOCK = 'insert into rate_locks (purpose, currency, rate, rate_at, locked_at, expires_at) values (?, ?, ?, ?, ?, ?) returning id';
const SQLITE_PAYMENT =
  'insert into payments (reference, wallet_id, address_id, client_id, type, crypto_currency, crypto_sats, order_currency, order_amount, ' +
  "exchange_rate, rate_lock_id, expiry_at, monitor_until, status, status_at, request_json, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'unpaid', ?, ?, ?) returning *";
const SQLITE_TRANSITION = "insert into payment_transitions (payment_id, from_status, to_status, cause, at) values (?, null, 'unpaid', 'created', ?)";
const SQLITE_LAST_FUNDED = 'select max(derivation_index) as last_funded from addresses where wallet_id = ? and first_funded_at is not null';

function insertOnSqlite(conn: SqliteConnection, p: OneStatementPayment): OneStatementResult | undefined {
  const now = BigInt(p.now);
  const claimed = conn.get<{ derivation_index: bigint; address: string; script_hex: string }>(SQLITE_CLAIM, [p.walletId, p.scriptType]);
  if (!claimed) return undefined;
  const address = conn.get<{ id: bigint }>(SQLITE_ADDRESS, [p.walletId, claimed.derivation_index, claimed.address, claimed.script_hex, now])!;
  const { lock } = p;
  const lockRow = conn.get<{ id: bigint }>(SQLITE_LOCK, [lock.purpose, lock.currency, lock.rate, BigInt(lock.rateAt), BigInt(lock.lockedAt), BigInt(lock.expiresAt)])!;
  const q = p.payment;
  const payment = conn.get<Selectable<PaymentsTable>>(SQLITE_PAYMENT, [
    q.reference, p.walletId, address.id, p.clientId, q.type, q.cryptoCurrency, q.cryptoSats, q.orderCurrency, q.orderAmount,
    lock.rate, lockRow.id, BigInt(lock.expiresAt), BigInt(q.monitorUntil), now, q.requestJson, now,
  ])!;
  // The creation transition, as notify/status-transition.ts records it (creation notifies no one).
  conn.run(SQLITE_TRANSITION, [payment.id, now]);
  const funded = conn.get<{ last_funded: bigint | null }>(SQLITE_LAST_FUNDED, [p.walletId]);
  return {
    ...payment,
    issued_address: claimed.address,
    issued_script_hex: claimed.script_hex,
    issued_index: claimed.derivation_index,
    last_funded: funded?.last_funded ?? null,
  };
}
