// The dashboard's one list of a profile's payment requests (payment API v1), payment forms and set_addr orders,
// newest first, filtered by status and creation date and paginated in the database; and one order's detail
// (transitions with causes, transactions with confirmations, notifications with their attempts). The ownership
// check is profileWallets: an order of a wallet the profile does not see reads exactly like no order at all.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { DomainError } from '../core/domain-errors.ts';
import { PAYMENT_STATUSES } from '../core/payment-statuses.ts';
import { btcFromSats } from '../money/money.ts';
import { listDeliveries, type Delivery } from '../notify/deliveries.ts';
import { profileWallets } from './accounts.ts';

/** The three kinds of order a merchant receives money through. */
export const ORDER_KINDS = ['payment', 'form', 'order'] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];

/** Every status an order of any kind can have: payment API v1 statuses, then forms' and set_addr orders' order statuses. */
export const ORDER_LIST_STATUSES: readonly string[] = [...PAYMENT_STATUSES, 'pending', 'paid', 'paid_too_much', 'failed_paid_too_little', 'failed'];

/** Most rows on one page of the list. */
export const MAX_PAGE_SIZE = 100;

/** What the list is narrowed to. Dates are UTC days (YYYY-MM-DD), both ends included. */
export interface OrderListQuery {
  status?: string;
  from?: string;
  to?: string;
  /** 1-based. */
  page?: number;
  pageSize?: number;
}

/** One row of the list. */
export interface OrderSummary {
  kind: OrderKind;
  id: string;
  /** The payment reference, the form's order_id, or the set_addr order's client_txid (may be empty). */
  reference: string;
  api_id: string;
  account_name: string | null;
  status: string;
  created_at: number;
  /** Order amount in `currency`; empty for set_addr orders without one. */
  amount: string;
  currency: string;
  address: string;
}

/** A page of the list. */
export interface OrderPage {
  orders: OrderSummary[];
  page: number;
  page_size: number;
  total: number;
}

/** A status change with its cause. */
export interface OrderTransition {
  from: string | null;
  to: string;
  cause: string;
  at: number;
}

/** An output paying the order's address, with its transaction. */
export interface OrderTransaction {
  txid: string;
  vout: number;
  amount: string;
  amount_sats: string;
  state: 'mempool' | 'block';
  confirmations: number;
  first_seen_at: number;
}

/** One order with everything the detail view shows. */
export interface OrderDetail extends OrderSummary {
  mode: 'live' | 'test';
  network: string;
  settlement_mode: 'direct' | 'custodial';
  /** The crypto amount asked (payments only; empty otherwise). */
  crypto_amount: string;
  received_confirmed: string;
  received_unconfirmed: string;
  /** For `*-more` payments: what came in beyond the amount asked, in BTC (else "0"). */
  overpaid: string;
  transitions: OrderTransition[];
  transactions: OrderTransaction[];
  deliveries: Delivery[];
  /** What is known of the payer (null for set_addr orders): until now only the webhook carried it. */
  payer: OrderPayer | null;
}

/** One labelled value about the payer: the form's e-mail and fields, or a payment request's payer fields. */
export interface PayerFact {
  /** The field's name in the form or request (`user_email`, a user field's name, `payer_name` …). */
  name: string;
  /** What the payer saw as the field's label, or the request field's plain name. */
  label: string;
  value: string;
}

/** The payer's details of an order. */
export interface OrderPayer {
  /** For payment forms: when the payer submitted the fields (null: not yet; values shown are what the shop prefilled). */
  submitted_at: number | null;
  facts: PayerFact[];
}

function utcDay(text: string, field: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
    throw new DomainError('invalid', `Wrong or missing argument: ${field} must be a date YYYY-MM-DD`);
  }
  return ms;
}

/** Every order of the wallets as one relation (kind, id, reference, wallet, address, status, time, amount). */
function ordersOf(walletIds: bigint[]) {
  const ids = sql.join(walletIds.map((id) => sql`${id}`));
  return sql`
    select 'payment' as kind, p.id as id, p.reference as reference, p.wallet_id as wallet_id, p.address_id as address_id,
           p.status as status, p.created_at as created_at, p.order_amount as amount, p.order_currency as currency
      from payments p where p.wallet_id in (${ids})
    union all
    select 'form', f.id, f.order_id, f.wallet_id, f.address_id, f.order_status, f.created_at, f.order_amount, f.order_currency
      from payment_forms f where f.wallet_id in (${ids})
    union all
    select 'order', o.id, coalesce(o.client_txid, ''), o.wallet_id, o.address_id, coalesce(o.order_status, 'pending'), o.created_at,
           coalesce(o.order_amount, ''), o.local_currency
      from address_orders o where o.wallet_id in (${ids})`;
}

interface OrderRow {
  kind: OrderKind;
  id: bigint | number;
  reference: string;
  api_id: string;
  account_name: string | null;
  status: string;
  created_at: bigint | number;
  amount: string;
  currency: string;
  address: string;
}

function summary(r: OrderRow): OrderSummary {
  return {
    kind: r.kind,
    id: String(r.id),
    reference: r.reference,
    api_id: r.api_id,
    account_name: r.account_name,
    status: r.status,
    created_at: Number(r.created_at),
    amount: r.amount,
    currency: r.currency.toUpperCase(),
    address: r.address,
  };
}

/** One page of the profile's orders, newest first. */
export async function listOrders(db: Db, profileId: bigint, query: OrderListQuery): Promise<OrderPage> {
  const pageSize = query.pageSize ?? 25;
  const page = query.page ?? 1;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new DomainError('invalid', `Wrong or missing argument: page_size must be 1 to ${MAX_PAGE_SIZE}`);
  if (!Number.isSafeInteger(page) || page < 1 || page > 1_000_000) throw new DomainError('invalid', 'Wrong or missing argument: page must be a whole number from 1');
  if (query.status !== undefined && !ORDER_LIST_STATUSES.includes(query.status)) {
    throw new DomainError('invalid', `Wrong or missing argument: status must be one of ${ORDER_LIST_STATUSES.join(', ')}`);
  }
  const from = query.from === undefined ? null : utcDay(query.from, 'from');
  const to = query.to === undefined ? null : utcDay(query.to, 'to') + 86_400_000;
  const wallets = await profileWallets(db, profileId);
  if (wallets.length === 0) return { orders: [], page, page_size: pageSize, total: 0 };
  const filters = [sql`1 = 1`];
  if (query.status !== undefined) filters.push(sql`o.status = ${query.status}`);
  if (from !== null) filters.push(sql`o.created_at >= ${BigInt(from)}`);
  if (to !== null) filters.push(sql`o.created_at < ${BigInt(to)}`);
  const where = sql.join(filters, sql` and `);
  const relation = ordersOf(wallets.map((w) => w.id));
  const counted = await sql<{ n: bigint | number | string }>`select count(*) as n from (${relation}) o where ${where}`.execute(db.kysely);
  const rows = await sql<OrderRow>`
    select o.kind, o.id, o.reference, w.api_id, w.account_name, o.status, o.created_at, o.amount, o.currency, a.address
      from (${relation}) o
      join wallets w on w.id = o.wallet_id
      join addresses a on a.id = o.address_id
     where ${where}
     order by o.created_at desc, o.kind, o.id desc
     limit ${pageSize} offset ${(page - 1) * pageSize}`.execute(db.kysely);
  return { orders: rows.rows.map(summary), page, page_size: pageSize, total: Number(counted.rows[0]?.n ?? 0) };
}

function notFound(): DomainError {
  return new DomainError('not-found', 'No such order among your wallets');
}

/** The detail of one of the profile's orders; 999 (404) for an unknown one or another profile's. */
export async function orderDetail(db: Db, profileId: bigint, kind: string, idText: string): Promise<OrderDetail> {
  if (!(ORDER_KINDS as readonly string[]).includes(kind) || !/^[1-9][0-9]{0,17}$/.test(idText)) throw notFound();
  const id = BigInt(idText);
  const wallets = await profileWallets(db, profileId);
  if (wallets.length === 0) throw notFound();
  const rows = await sql<OrderRow & { wallet_id: bigint | number; address_id: bigint | number }>`
    select o.kind, o.id, o.reference, o.wallet_id, o.address_id, w.api_id, w.account_name, o.status, o.created_at, o.amount, o.currency, a.address
      from (${ordersOf(wallets.map((w) => w.id))}) o
      join wallets w on w.id = o.wallet_id
      join addresses a on a.id = o.address_id
     where o.kind = ${kind} and o.id = ${id}`.execute(db.kysely);
  const row = rows.rows[0];
  if (!row) throw notFound();
  const wallet = wallets.find((w) => w.id === BigInt(row.wallet_id))!;
  const addressId = BigInt(row.address_id);
  const k = db.kysely;

  const transitions: OrderTransition[] = (
    kind === 'payment'
      ? await k.selectFrom('payment_transitions').select(['from_status', 'to_status', 'cause', 'at']).where('payment_id', '=', id).orderBy('id').execute()
      : kind === 'form'
        ? await k.selectFrom('form_transitions').select(['from_status', 'to_status', 'cause', 'at']).where('form_id', '=', id).orderBy('id').execute()
        : await k.selectFrom('address_order_transitions').select(['from_status', 'to_status', 'cause', 'at']).where('address_order_id', '=', id).orderBy('id').execute()
  ).map((t) => ({ from: t.from_status, to: t.to_status, cause: t.cause, at: Number(t.at) }));

  const tip = await k.selectFrom('chain_tips').select('tip_height').where('chain', '=', wallet.mode).executeTakeFirst();
  const outputs = await k
    .selectFrom('chain_outputs as o')
    .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
    .select(['t.txid', 'o.vout', 'o.value_sats', 't.state', 't.block_height', 't.first_seen_at'])
    .where('o.address_id', '=', addressId)
    .where('t.state', '!=', 'withdrawn')
    .orderBy('t.first_seen_at')
    .orderBy('o.id')
    .execute();
  let confirmed = 0n;
  let unconfirmed = 0n;
  const transactions: OrderTransaction[] = outputs.map((o) => {
    const confirmations = o.state === 'block' && o.block_height !== null && tip ? Math.max(0, Number(tip.tip_height - o.block_height) + 1) : 0;
    if (o.state === 'block') confirmed += o.value_sats;
    else unconfirmed += o.value_sats;
    return {
      txid: o.txid,
      vout: Number(o.vout),
      amount: btcFromSats(o.value_sats),
      amount_sats: o.value_sats.toString(),
      state: o.state as 'mempool' | 'block',
      confirmations,
      first_seen_at: Number(o.first_seen_at),
    };
  });

  let cryptoAmount = '';
  let overpaid = '0';
  if (kind === 'payment') {
    const p = await k.selectFrom('payments').select(['crypto_sats', 'confirmed_sats', 'unconfirmed_sats', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
    cryptoAmount = btcFromSats(p.crypto_sats);
    const received = p.confirmed_sats + p.unconfirmed_sats;
    if (p.status.endsWith('-more') && received > p.crypto_sats) overpaid = btcFromSats(received - p.crypto_sats);
  }
  const payer = await payerOf(db, kind as OrderKind, id);
  const deliveries = await listDeliveries(db, kind === 'payment' ? { paymentId: id } : { orderKind: kind === 'form' ? 'form' : 'address', orderId: id });
  return {
    ...summary(row),
    mode: wallet.mode,
    network: wallet.network,
    settlement_mode: wallet.seed_sealed !== null ? 'custodial' : 'direct',
    crypto_amount: cryptoAmount,
    received_confirmed: btcFromSats(confirmed),
    received_unconfirmed: btcFromSats(unconfirmed),
    overpaid,
    transitions,
    transactions,
    deliveries,
    payer,
  };
}

const PAYMENT_PAYER_FIELDS = [
  ['payer_name', 'Name'],
  ['payer_email', 'E-mail'],
  ['payer_phone', 'Phone'],
  ['payer_id', 'Payer ID'],
] as const;

/** The payer's details as stored with the order: the form's e-mail and fields (with the payer's values), a request's payer fields. */
async function payerOf(db: Db, kind: OrderKind, id: bigint): Promise<OrderPayer | null> {
  const k = db.kysely;
  if (kind === 'form') {
    const f = await k.selectFrom('payment_forms').select(['user_email', 'user_id', 'user_fields_json', 'fields_submitted_at']).where('id', '=', id).executeTakeFirstOrThrow();
    const fields = JSON.parse(f.user_fields_json) as { name: string; display_name: string; value: string }[];
    const facts: PayerFact[] = [];
    if (f.user_email) facts.push({ name: 'user_email', label: 'E-mail', value: f.user_email });
    for (const field of fields) if (field.value !== '') facts.push({ name: field.name, label: field.display_name, value: field.value });
    if (f.user_id) facts.push({ name: 'user_id', label: 'Customer ID (from the shop)', value: f.user_id });
    return { submitted_at: f.fields_submitted_at === null ? null : Number(f.fields_submitted_at), facts };
  }
  if (kind === 'payment') {
    const p = await k.selectFrom('payments').select('request_json').where('id', '=', id).executeTakeFirstOrThrow();
    const request = JSON.parse(p.request_json) as Record<string, unknown>;
    const facts: PayerFact[] = [];
    for (const [name, label] of PAYMENT_PAYER_FIELDS) {
      const value = request[name];
      if (typeof value === 'string' && value !== '') facts.push({ name, label, value });
    }
    return { submitted_at: null, facts };
  }
  return null;
}
