// Payment creation from the address pool on SQLite (issue 16): the writes of payment-insert.ts's PostgreSQL
// statement as plain statements, prepared once and run back to back in one transaction with no await between
// them (SQLite has a single writer, so no row locks are needed). A write of the SQLite writer's (see
// sqlite-writer.ts): it runs on the writer thread's own connection, so this module imports no more than it needs.
import type { Selectable } from 'kysely';
import type { SqliteConnection } from './database.ts';
import type { PaymentsTable } from './schema.ts';
import { PAYMENT_CREATED, transitionInsertHead } from './transitions.ts';

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

const SQLITE_CLAIM =
  'delete from address_pool where id = (select id from address_pool where wallet_id = ? and script_type = ? ' +
  'order by derivation_index limit 1) returning derivation_index, address, script_hex';
const SQLITE_ADDRESS =
  "insert into addresses (wallet_id, derivation_index, address, script_hex, created_at, reserved_until, purpose) values (?, ?, ?, ?, ?, null, 'payment') returning id";
const SQLITE_LOCK = 'insert into rate_locks (purpose, currency, rate, rate_at, locked_at, expires_at) values (?, ?, ?, ?, ?, ?) returning id';
const SQLITE_PAYMENT =
  'insert into payments (reference, wallet_id, address_id, client_id, type, crypto_currency, crypto_sats, order_currency, order_amount, ' +
  "exchange_rate, rate_lock_id, expiry_at, monitor_until, status, status_at, request_json, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'unpaid', ?, ?, ?) returning *";
const SQLITE_TRANSITION = `${transitionInsertHead('payment_transitions')} values (?, null, '${PAYMENT_CREATED.to}', '${PAYMENT_CREATED.cause}', ?)`;
const SQLITE_LAST_FUNDED = 'select max(derivation_index) as last_funded from addresses where wallet_id = ? and first_funded_at is not null';

/** Claims the wallet's first pooled address and stores the payment on it; undefined (nothing written) when the pool is empty. */
export function insertOnSqlite(conn: SqliteConnection, p: OneStatementPayment): OneStatementResult | undefined {
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
