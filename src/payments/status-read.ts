// The status read (operation 27), the path shops poll: one statement for the payment with its wallet's and
// address's fields. Written by hand on both engines (no query building per read); on SQLite it reads the
// row as an array and names the columns here, which better-sqlite3 does several microseconds faster than
// building an object per row.
import type { PaymentRow } from './payment-record.ts';

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

/** The values a status body is built from: the row's columns in {@link PAYMENT_COLUMNS} order, then the three aliases. */
export function statusValuesOf(row: StatusRow): unknown[] {
  const values: unknown[] = PAYMENT_COLUMNS.map((c) => row[c]);
  values.push(row.wallet_api_id, row.wallet_account_name, row.payment_address);
  return values;
}

/** Bodies kept; each is under 1 KiB with its values, so the bound is a few MiB at most. */
const MAX_BODIES = 4_096;

/**
 * The JSON text of recent status answers, each with the row values it was built from. A record is a pure
 * function of those values (and of the process's configuration), so a poll whose row reads the same values
 * gets the same text without building the record again: building and serialising it was about a third of a
 * status read's own work on SQLite. Every poll still reads the row, so a change is seen at once and a process
 * never serves another's stale answer.
 */
export class StatusBodyCache {
  private readonly bodies = new Map<string, { values: readonly unknown[]; body: string }>();

  constructor(private readonly max = MAX_BODIES) {}

  /** The body for `values` of payment `reference`: the kept one when every value is the same, else `build()`'s. */
  body(reference: string, values: readonly unknown[], build: () => string): string {
    const kept = this.bodies.get(reference);
    if (kept && sameValues(kept.values, values)) return kept.body;
    const body = build();
    // The least recently built goes first: a map iterates in insertion order, and a rebuilt body is re-inserted
    // (a hit moves nothing, to keep hits to a lookup and a comparison).
    if (kept) this.bodies.delete(reference);
    else if (this.bodies.size >= this.max) this.bodies.delete(this.bodies.keys().next().value!);
    this.bodies.set(reference, { values, body });
    return body;
  }

  /** Number of bodies kept. */
  get size(): number {
    return this.bodies.size;
  }
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
