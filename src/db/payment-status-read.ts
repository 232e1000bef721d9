// The status read (operation 27), the path shops poll: one statement for the payment with its wallet's and
// address's fields. Written by hand on both engines (no query building per read): on SQLite on the read-only
// connection (prepared once, committed data only), reading the row as an array and naming the columns here,
// which better-sqlite3 does several microseconds faster than building an object per row; on PostgreSQL as a
// named prepared statement; the query builder answers where neither exists (SQLite in memory).
import type { Selectable } from 'kysely';
import { engineHandles, type Db } from './database.ts';
import type { PaymentsTable } from './schema.ts';

type PaymentRow = Selectable<PaymentsTable>;

/** The payment row and the three fields of its wallet and address that a record shows. */
export type StatusRow = PaymentRow & { wallet_api_id: string; wallet_account_name: string | null; payment_address: string };

// Every payment column, in this order: `statusRowFromRaw` reads them by position (a test compares the list with
// the table, so a column added later cannot be missed).
export const PAYMENT_COLUMNS = [
  'id', 'reference', 'wallet_id', 'address_id', 'client_id', 'type', 'crypto_currency', 'crypto_sats', 'order_currency',
  'order_amount', 'exchange_rate', 'rate_lock_id', 'expiry_at', 'monitor_until', 'status', 'status_at', 'confirmed_sats',
  'unconfirmed_sats', 'confirmed_order_amount', 'unconfirmed_order_amount', 'request_json', 'created_at',
  'required_confirmations',
] as const satisfies readonly (keyof PaymentRow)[];

const FROM_WHERE = 'from payments p join wallets w on w.id = p.wallet_id join addresses a on a.id = p.address_id where p.reference = ';

/** PostgreSQL: the whole payment row and the three aliases (a named prepared statement). */
export const STATUS_SQL_PG = `select p.*, w.api_id as wallet_api_id, w.account_name as wallet_account_name, a.address as payment_address ${FROM_WHERE}$1`;

/** SQLite, raw mode: the payment columns in PAYMENT_COLUMNS order, then api_id, account_name, address. */
export const STATUS_SQL_SQLITE_RAW = `select ${PAYMENT_COLUMNS.map((c) => `p.${c}`).join(', ')}, w.api_id, w.account_name, a.address ${FROM_WHERE}?`;

/** The row of a raw-mode read of {@link STATUS_SQL_SQLITE_RAW}. */
export function statusRowFromRaw(v: unknown[]): StatusRow {
  // One object literal of a fixed shape; the casts restate the schema's column types (safe integers on).
  return {
    id: v[0] as bigint,
    reference: v[1] as string,
    wallet_id: v[2] as bigint,
    address_id: v[3] as bigint,
    client_id: v[4] as bigint | null,
    type: v[5] as PaymentRow['type'],
    crypto_currency: v[6] as string,
    crypto_sats: v[7] as bigint,
    order_currency: v[8] as string,
    order_amount: v[9] as string,
    exchange_rate: v[10] as string,
    rate_lock_id: v[11] as bigint | null,
    expiry_at: v[12] as bigint,
    monitor_until: v[13] as bigint,
    status: v[14] as string,
    status_at: v[15] as bigint,
    confirmed_sats: v[16] as bigint,
    unconfirmed_sats: v[17] as bigint,
    confirmed_order_amount: v[18] as string,
    unconfirmed_order_amount: v[19] as string,
    request_json: v[20] as string,
    created_at: v[21] as bigint,
    required_confirmations: v[22] as bigint | null,
    wallet_api_id: v[23] as string,
    wallet_account_name: v[24] as string | null,
    payment_address: v[25] as string,
  };
}

/** A status read: the joined row and, on SQLite, the raw values it was read as (in {@link PAYMENT_COLUMNS} order, then the aliases). */
export interface StatusRead {
  row: StatusRow;
  raw: unknown[] | undefined;
}

/** The payment with this reference, joined with its wallet's and address's fields; undefined when there is none. */
export async function readPaymentStatusRow(db: Db, reference: string): Promise<StatusRead | undefined> {
  const { reader, pgNamed } = engineHandles(db);
  if (reader) {
    const raw = reader.getRaw(STATUS_SQL_SQLITE_RAW, [reference]);
    return raw && { row: statusRowFromRaw(raw), raw };
  }
  const row = pgNamed
    ? (await pgNamed<StatusRow>('satgate_status_read', STATUS_SQL_PG, [reference]))[0]
    : await db.kysely
      .selectFrom('payments as p')
      .innerJoin('wallets as w', 'w.id', 'p.wallet_id')
      .innerJoin('addresses as a', 'a.id', 'p.address_id')
      .selectAll('p')
      .select(['w.api_id as wallet_api_id', 'w.account_name as wallet_account_name', 'a.address as payment_address'])
      .where('p.reference', '=', reference)
      .executeTakeFirst();
  return row && { row, raw: undefined };
}
