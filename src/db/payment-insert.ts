// PostgreSQL's one-statement payment creation (issue 16). On PostgreSQL every statement is a network round
// trip, and the creation transaction was six of them (BEGIN, rate lock, address claim, gap check, payment,
// transition, COMMIT) while the pool already removed the wallet lock. Here they are one statement of
// data-modifying CTEs, atomic by itself (a statement commits or fails whole): the pooled address is claimed
// (FOR UPDATE SKIP LOCKED), issued, the rate lock, the payment and its creation transition inserted. It
// answers nothing when the pool has no row for the wallet, and then the caller takes the transactional path.
import { sql, type Selectable } from 'kysely';
import type { Db } from './database.ts';
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

/** Creates the payment in one statement on PostgreSQL; undefined when the wallet's pool is empty. */
export async function insertPaymentFromPool(db: Db, p: OneStatementPayment): Promise<OneStatementResult | undefined> {
  if (db.engine !== 'postgres') throw new Error('insertPaymentFromPool is PostgreSQL only');
  const now = BigInt(p.now);
  const query = sql<OneStatementResult>`
    with claimed as (
      delete from address_pool where id = (
        select id from address_pool where wallet_id = ${p.walletId} and script_type = ${p.scriptType}
        order by derivation_index limit 1 for update skip locked)
      returning wallet_id, derivation_index, address, script_hex),
    addr as (
      insert into addresses (wallet_id, derivation_index, address, script_hex, created_at, reserved_until, purpose)
      select wallet_id, derivation_index, address, script_hex, ${now}::bigint, null, 'payment' from claimed
      returning id, derivation_index, address, script_hex),
    lk as (
      insert into rate_locks (purpose, currency, rate, rate_at, locked_at, expires_at)
      select ${p.lock.purpose}::text, ${p.lock.currency}::text, ${p.lock.rate}::text, ${BigInt(p.lock.rateAt)}::bigint,
             ${BigInt(p.lock.lockedAt)}::bigint, ${BigInt(p.lock.expiresAt)}::bigint from claimed
      returning id),
    pay as (
      insert into payments (reference, wallet_id, address_id, client_id, type, crypto_currency, crypto_sats, order_currency,
                            order_amount, exchange_rate, rate_lock_id, expiry_at, monitor_until, status, status_at, request_json, created_at)
      select ${p.payment.reference}::text, ${p.walletId}::bigint, addr.id, ${p.clientId}::bigint, ${p.payment.type}::text,
             ${p.payment.cryptoCurrency}::text, ${p.payment.cryptoSats}::bigint, ${p.payment.orderCurrency}::text,
             ${p.payment.orderAmount}::text, ${p.lock.rate}::text, lk.id, ${BigInt(p.lock.expiresAt)}::bigint,
             ${BigInt(p.payment.monitorUntil)}::bigint, 'unpaid', ${now}::bigint, ${p.payment.requestJson}::text, ${now}::bigint
      from addr, lk
      returning *),
    -- The creation transition, as notify/status-transition.ts records it (creation notifies no one).
    tr as (
      insert into payment_transitions (payment_id, from_status, to_status, cause, at)
      select id, null, 'unpaid', 'created', ${now}::bigint from pay)
    select pay.*, addr.address as issued_address, addr.script_hex as issued_script_hex, addr.derivation_index as issued_index,
           (select max(derivation_index) from addresses where wallet_id = ${p.walletId} and first_funded_at is not null) as last_funded
    from pay, addr`;
  // A named prepared statement: the server parses and plans this CTE once per connection instead of on every
  // creation (its text is the same each time; only the parameters differ). Fenced singleton work never creates
  // payments, but if it did it would go through Kysely, whose connection checks the fence.
  if (db.pgNamed && !currentFence()) {
    const compiled = query.compile(db.kysely);
    return (await db.pgNamed<OneStatementResult>('satgate_payment_insert', compiled.sql, [...compiled.parameters]))[0];
  }
  const { rows } = await query.execute(db.kysely);
  return rows[0];
}
