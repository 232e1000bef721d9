// Brings a wallet's append-only ledger up to what the chain records say now: a fact not yet in the ledger is
// appended, a first confirmation is written once, and a fact the chain took back (double spend, reorg) gets a
// reversing row. Nothing already written is changed, so an export taken earlier stays true.
import type { Transaction } from 'kysely';
import type { Database, LedgerEntriesTable } from '../db/schema.ts';
import type { Db } from '../db/database.ts';
import { lockRow } from '../db/row-locks.ts';
import type { Insertable, Selectable } from 'kysely';
import { fiatToSats, satsToFiat } from '../money/money.ts';
import { roundDecimal } from '../money/decimal.ts';
import { orderMinorUnits } from '../money/currencies.ts';
import { rateOfMoment } from './rate-of-moment.ts';

type Trx = Transaction<Database>;
type Entry = Selectable<LedgerEntriesTable>;
type NewEntry = Insertable<LedgerEntriesTable>;

/** Why a row was taken back. */
export type ReversalReason = 'withdrawn' | 'reorg' | 'dropped';

/** A fact as the chain records show it now. */
interface ChainFact {
  key: string;
  kind: 'receipt' | 'refund' | 'withdrawal' | 'spend';
  txid: string;
  vout: bigint | null;
  address: string;
  addressId: bigint | null;
  amount: bigint;
  fee: bigint | null;
  refKind: string | null;
  ref: string | null;
  firstSeenAt: number;
  state: 'mempool' | 'block' | 'withdrawn';
  withdrawnAt: number | null;
  block: { hash: string; height: bigint; time: bigint } | null;
}

const keyOf = (e: { kind: string; txid: string; vout: bigint | null }) => (e.kind === 'receipt' ? `r:${e.txid}:${e.vout}` : `s:${e.txid}`);

/** What the chain records hold for the wallet in the given transactions: its incoming outputs (not change) and its spends. */
async function chainFacts(trx: Trx, walletId: bigint, chain: string, txRowIds: bigint[]): Promise<ChainFact[]> {
  if (txRowIds.length === 0) return [];
  const outputs = await trx
    .selectFrom('chain_outputs as o')
    .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
    .innerJoin('addresses as a', 'a.id', 'o.address_id')
    .select(['t.id as tx_id', 't.txid', 'o.vout', 'a.address', 'a.id as address_id', 'o.value_sats', 't.state', 't.block_hash', 't.block_height', 't.block_time', 't.first_seen_at', 't.withdrawn_at'])
    .where('a.wallet_id', '=', walletId)
    .where('t.chain', '=', chain)
    .where('t.id', 'in', txRowIds)
    .execute();
  const spent = await trx
    .selectFrom('chain_spends as s')
    .innerJoin('chain_outputs as o', 'o.id', 's.output_id')
    .innerJoin('addresses as a', 'a.id', 'o.address_id')
    .innerJoin('chain_txs as t', 't.id', 's.tx_id')
    .select(['t.id as tx_id', 't.txid', 'o.value_sats', 't.state', 't.block_hash', 't.block_height', 't.block_time', 't.first_seen_at', 't.withdrawn_at'])
    .where('a.wallet_id', '=', walletId)
    .where('t.chain', '=', chain)
    .where('s.tx_id', 'in', txRowIds)
    .execute();
  const place = (r: { state: 'mempool' | 'block' | 'withdrawn'; block_hash: string | null; block_height: bigint | null; block_time: bigint | null; withdrawn_at: bigint | null; first_seen_at: bigint }) => ({
    state: r.state,
    firstSeenAt: Number(r.first_seen_at),
    withdrawnAt: r.withdrawn_at === null ? null : Number(r.withdrawn_at),
    block: r.state === 'block' && r.block_hash && r.block_height !== null && r.block_time !== null ? { hash: r.block_hash, height: r.block_height, time: r.block_time } : null,
  });
  const spends = new Map<string, ChainFact>();
  for (const s of spent) {
    const f = spends.get(s.txid);
    if (f) f.amount -= s.value_sats;
    else spends.set(s.txid, { key: `s:${s.txid}`, kind: 'spend', txid: s.txid, vout: null, address: '', addressId: null, amount: -s.value_sats, fee: null, refKind: null, ref: null, ...place(s) });
  }
  const facts: ChainFact[] = [];
  for (const o of outputs) {
    const spend = spends.get(o.txid);
    // An output of a transaction that spends the wallet's own coins is change: it lessens the spend, it is no receipt.
    if (spend) spend.amount += o.value_sats;
    else facts.push({ key: `r:${o.txid}:${o.vout}`, kind: 'receipt', txid: o.txid, vout: o.vout, address: o.address, addressId: o.address_id, amount: o.value_sats, fee: null, refKind: null, ref: null, ...place(o) });
  }
  for (const f of spends.values()) {
    const made = await trx.selectFrom('spends').select(['id', 'purpose', 'reference', 'fee_sats']).where('wallet_id', '=', walletId).where('txid', '=', f.txid).executeTakeFirst();
    if (made) {
      // A spend satgate made: the fee is known, so the row shows what reached the payee and the fee apart.
      const outs = await trx.selectFrom('spend_outputs').select(['address', 'amount_sats']).where('spend_id', '=', made.id).where('is_change', '=', 0n).orderBy('n').execute();
      f.fee = -made.fee_sats;
      f.amount += made.fee_sats;
      f.address = outs.map((o) => o.address).join(' ');
      f.kind = made.purpose === 'refund' ? 'refund' : made.purpose === 'withdrawal' ? 'withdrawal' : 'spend';
      f.refKind = made.purpose;
      f.ref = made.reference;
    }
    facts.push(f);
  }
  return facts;
}

/** The order an incoming output pays, with what the wallet asked for it. */
interface OrderOf {
  refKind: string;
  ref: string;
  late: boolean;
  lateRate: { rate: string; at: number; source: string } | null;
  lockedRate: string | null;
  invoiced: string | null;
  invoicedCurrency: string | null;
  expectedSats: bigint | null;
}

async function orderOf(trx: Trx, addressId: bigint, txid: string, vout: bigint, firstSeenAt: number): Promise<OrderOf | null> {
  const payment = await trx.selectFrom('payments').select(['id', 'reference', 'order_amount', 'order_currency', 'exchange_rate', 'crypto_sats', 'expiry_at']).where('address_id', '=', addressId).executeTakeFirst();
  if (payment) {
    const late = await trx.selectFrom('payment_output_rates').select(['rate', 'rate_at', 'source']).where('payment_id', '=', payment.id).where('txid', '=', txid).where('vout', '=', vout).executeTakeFirst();
    return {
      refKind: 'payment',
      ref: payment.reference,
      late: late !== undefined || firstSeenAt > Number(payment.expiry_at),
      lateRate: late ? { rate: late.rate, at: Number(late.rate_at), source: `${late.source}-at-first-sight` } : null,
      lockedRate: payment.exchange_rate,
      invoiced: payment.order_amount,
      invoicedCurrency: payment.order_currency,
      expectedSats: payment.crypto_sats,
    };
  }
  const form = await trx.selectFrom('payment_forms').select(['id', 'order_id', 'order_amount', 'order_currency', 'lock_expires_at']).where('address_id', '=', addressId).executeTakeFirst();
  if (form) {
    const late = await trx.selectFrom('order_output_rates').select(['rate', 'rate_at', 'source']).where('order_kind', '=', 'form').where('order_id', '=', form.id).where('txid', '=', txid).where('vout', '=', vout).executeTakeFirst();
    const lock = await trx.selectFrom('form_rate_locks').select('rate').where('form_id', '=', form.id).where('locked_at', '<=', BigInt(firstSeenAt)).orderBy('locked_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
    return {
      refKind: 'form',
      ref: form.order_id,
      late: late !== undefined,
      lateRate: late ? { rate: late.rate, at: Number(late.rate_at), source: `${late.source}-at-first-sight` } : null,
      lockedRate: lock?.rate ?? null,
      invoiced: form.order_amount,
      invoicedCurrency: form.order_currency,
      expectedSats: lock ? fiatToSats(form.order_amount, lock.rate) : null,
    };
  }
  const order = await trx
    .selectFrom('address_orders')
    .select(['id', 'client_txid', 'order_amount', 'local_currency', 'exchange_rate', 'rate_lock_expires_at'])
    .where('address_id', '=', addressId)
    .where('created_at', '<=', BigInt(firstSeenAt))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (order) {
    const late = await trx.selectFrom('order_output_rates').select(['rate', 'rate_at', 'source']).where('order_kind', '=', 'address').where('order_id', '=', order.id).where('txid', '=', txid).where('vout', '=', vout).executeTakeFirst();
    return {
      refKind: 'order',
      ref: order.client_txid ?? String(order.id),
      late: late !== undefined || firstSeenAt > Number(order.rate_lock_expires_at),
      lateRate: late ? { rate: late.rate, at: Number(late.rate_at), source: `${late.source}-at-first-sight` } : null,
      lockedRate: order.order_amount === null ? null : order.exchange_rate,
      invoiced: order.order_amount,
      invoicedCurrency: order.order_amount === null ? null : order.local_currency.toUpperCase(),
      expectedSats: order.order_amount === null ? null : fiatToSats(order.order_amount, order.exchange_rate),
    };
  }
  return null;
}

/** The standing receipts (neither reversing nor reversed) the ledger holds for one order, in satoshis. */
async function standingReceipts(trx: Trx, walletId: bigint, chain: string, refKind: string, ref: string): Promise<bigint> {
  const rows = await trx
    .selectFrom('ledger_entries as e')
    .leftJoin('ledger_entries as r', 'r.reverses_id', 'e.id')
    .select('e.amount_sats')
    .where('e.wallet_id', '=', walletId)
    .where('e.chain', '=', chain)
    .where('e.kind', '=', 'receipt')
    .where('e.ref_kind', '=', refKind)
    .where('e.ref', '=', ref)
    .where('e.reverses_id', 'is', null)
    .where('r.id', 'is', null)
    .execute();
  return rows.reduce((sum, r) => sum + r.amount_sats, 0n);
}

async function newEntry(trx: Trx, walletId: bigint, chain: string, currency: string, f: ChainFact, now: number, at: number): Promise<NewEntry> {
  const order = f.kind === 'receipt' && f.addressId !== null ? await orderOf(trx, f.addressId, f.txid, f.vout!, f.firstSeenAt) : null;
  const moment = order?.lateRate ? { ...order.lateRate, estimated: false } : await rateOfMoment(trx, currency, f.firstSeenAt);
  let paid: string | null = null;
  if (order && order.expectedSats !== null) {
    // The order's total once this output came: the live receipts to the same order before it, and this one.
    const total = f.amount + (await standingReceipts(trx, walletId, chain, order.refKind, order.ref));
    paid = total === order.expectedSats ? 'exact' : total > order.expectedSats ? 'over' : 'under';
  }
  const fiat = moment ? (f.amount < 0n ? `-${satsToFiat(-f.amount, moment.rate, currency)}` : satsToFiat(f.amount, moment.rate, currency)) : null;
  return {
    wallet_id: walletId,
    chain,
    kind: f.kind,
    reverses_id: null,
    reason: null,
    at: BigInt(at),
    txid: f.txid,
    vout: f.vout,
    address: f.address,
    amount_sats: f.amount,
    fee_sats: f.fee,
    ref_kind: order?.refKind ?? f.refKind,
    ref: order?.ref ?? f.ref,
    first_seen_at: BigInt(f.firstSeenAt),
    confirmed_height: f.block?.height ?? null,
    confirmed_block_hash: f.block?.hash ?? null,
    confirmed_at: f.block ? f.block.time * 1000n : null,
    late: order?.late ? 1n : 0n,
    paid,
    currency,
    rate: moment?.rate ?? null,
    rate_source: moment?.source ?? null,
    rate_at: moment ? BigInt(moment.at) : null,
    rate_estimated: moment?.estimated ? 1n : 0n,
    fiat_value: fiat,
    locked_rate: order?.lockedRate ?? null,
    invoiced_amount: order?.invoiced && order.invoicedCurrency ? roundDecimal(order.invoiced, orderMinorUnits(order.invoicedCurrency)) : null,
    invoiced_currency: order?.invoicedCurrency ?? null,
    recorded_at: BigInt(now),
  };
}

function reversalOf(e: Entry, reason: ReversalReason, at: number, now: number): NewEntry {
  const { id, ...rest } = e;
  return {
    ...rest,
    reverses_id: id,
    reason,
    at: BigInt(at),
    amount_sats: -e.amount_sats,
    fee_sats: e.fee_sats === null ? null : -e.fee_sats,
    fiat_value: e.fiat_value === null ? null : e.fiat_value.startsWith('-') ? e.fiat_value.slice(1) : `-${e.fiat_value}`,
    recorded_at: BigInt(now),
  };
}

/** What one sync wrote. */
export interface SyncResult {
  appended: number;
  reversed: number;
  confirmed: number;
}

/** Transactions per page of a whole-wallet sync: what one page holds in memory, whatever the wallet's history. */
const PAGE = 500;

/** Brings one wallet's ledger up to its chain records, in one transaction of its own (the wallet row locked). */
export async function syncLedger(db: Db, walletId: bigint, now: number): Promise<SyncResult> {
  return db.kysely.transaction().execute(async (trx) => {
    await lockRow(trx, db, 'wallets', walletId);
    return syncLedgerIn(trx, walletId, now);
  });
}

/**
 * The same inside the caller's transaction; the caller holds the wallet's lock. The wallet's transactions are read
 * in keyset pages by first sight, so memory holds one page however long the wallet's history; when the ledger is
 * already in step (the chain change listener keeps it so) a page is read and nothing written.
 */
export async function syncLedgerIn(trx: Trx, walletId: bigint, now: number): Promise<SyncResult> {
  const wallet = await walletOf(trx, walletId);
  const total: SyncResult = { appended: 0, reversed: 0, confirmed: 0 };
  let after: { seen: bigint; id: bigint } | null = null;
  for (;;) {
    const page = await walletTxPage(trx, walletId, wallet.chain, after);
    if (page.length === 0) return total;
    add(total, await syncTxs(trx, walletId, wallet, page.map((p) => p.id), now));
    const last = page[page.length - 1]!;
    after = { seen: last.first_seen_at, id: last.id };
    if (page.length < PAGE) return total;
  }
}

/**
 * Brings the ledger up to the chain records of the transactions touching the given addresses of one wallet (a chain
 * change's), inside the caller's transaction; the caller holds the wallet's lock. Only those transactions' facts and
 * ledger rows are read.
 */
export async function syncLedgerForAddresses(trx: Trx, walletId: bigint, addressIds: readonly bigint[], now: number): Promise<SyncResult> {
  const wallet = await walletOf(trx, walletId);
  const total: SyncResult = { appended: 0, reversed: 0, confirmed: 0 };
  for (let i = 0; i < addressIds.length; i += PAGE) {
    const ids = addressIds.slice(i, i + PAGE);
    const credits = await trx
      .selectFrom('chain_outputs as o')
      .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
      .select(['t.id', 't.first_seen_at'])
      .where('o.address_id', 'in', ids)
      .where('t.chain', '=', wallet.chain)
      .execute();
    const debits = await trx
      .selectFrom('chain_spends as s')
      .innerJoin('chain_outputs as o', 'o.id', 's.output_id')
      .innerJoin('chain_txs as t', 't.id', 's.tx_id')
      .select(['t.id', 't.first_seen_at'])
      .where('o.address_id', 'in', ids)
      .where('t.chain', '=', wallet.chain)
      .execute();
    const txs = new Map<bigint, bigint>();
    for (const r of [...credits, ...debits]) txs.set(r.id, r.first_seen_at);
    const ordered = [...txs].sort(([a, sa], [b, sb]) => (sa === sb ? (a < b ? -1 : 1) : sa < sb ? -1 : 1)).map(([id]) => id);
    for (let j = 0; j < ordered.length; j += PAGE) add(total, await syncTxs(trx, walletId, wallet, ordered.slice(j, j + PAGE), now));
  }
  return total;
}

interface WalletOfLedger {
  chain: string;
  currency: string;
}

async function walletOf(trx: Trx, walletId: bigint): Promise<WalletOfLedger> {
  const w = await trx.selectFrom('wallets').select(['mode', 'local_currency']).where('id', '=', walletId).executeTakeFirstOrThrow();
  return { chain: w.mode, currency: w.local_currency.toUpperCase() };
}

function add(total: SyncResult, r: SyncResult): void {
  total.appended += r.appended;
  total.reversed += r.reversed;
  total.confirmed += r.confirmed;
}

/** One page of the wallet's transactions (paying its addresses or spending its coins), by first sight then id. */
async function walletTxPage(trx: Trx, walletId: bigint, chain: string, after: { seen: bigint; id: bigint } | null) {
  let q = trx
    .selectFrom('chain_txs as t')
    .select(['t.id', 't.first_seen_at'])
    .where('t.chain', '=', chain)
    .where((eb) =>
      eb.or([
        eb.exists(eb.selectFrom('chain_outputs as o').innerJoin('addresses as a', 'a.id', 'o.address_id').select('o.id').whereRef('o.tx_id', '=', 't.id').where('a.wallet_id', '=', walletId)),
        eb.exists(
          eb
            .selectFrom('chain_spends as s')
            .innerJoin('chain_outputs as o', 'o.id', 's.output_id')
            .innerJoin('addresses as a', 'a.id', 'o.address_id')
            .select('s.tx_id')
            .whereRef('s.tx_id', '=', 't.id')
            .where('a.wallet_id', '=', walletId),
        ),
      ]),
    );
  if (after) q = q.where((eb) => eb.or([eb('t.first_seen_at', '>', after.seen), eb.and([eb('t.first_seen_at', '=', after.seen), eb('t.id', '>', after.id)])]));
  return q.orderBy('t.first_seen_at').orderBy('t.id').limit(PAGE).execute();
}

/** Brings the ledger rows of some transactions up to what the chain records say of them now. */
async function syncTxs(trx: Trx, walletId: bigint, wallet: WalletOfLedger, txRowIds: bigint[], now: number): Promise<SyncResult> {
  const { chain, currency } = wallet;
  const result: SyncResult = { appended: 0, reversed: 0, confirmed: 0 };
  if (txRowIds.length === 0) return result;
  const txids = (await trx.selectFrom('chain_txs').select('txid').where('id', 'in', txRowIds).execute()).map((r) => r.txid);
  // Reversing rows carry the txid of the row they take back, so the page's rows and their reversals come together.
  const rows = await trx.selectFrom('ledger_entries').selectAll().where('wallet_id', '=', walletId).where('chain', '=', chain).where('txid', 'in', txids).orderBy('id').execute();
  const reversed = new Set(rows.filter((r) => r.reverses_id !== null).map((r) => r.reverses_id!));
  const live = new Map<string, Entry>();
  for (const r of rows) if (r.reverses_id === null && !reversed.has(r.id)) live.set(keyOf(r), r);
  const facts = (await chainFacts(trx, walletId, chain, txRowIds)).sort((a, b) => a.firstSeenAt - b.firstSeenAt || a.key.localeCompare(b.key));
  const seen = new Set<string>();
  const reverse = async (e: Entry, reason: ReversalReason, at: number) => {
    await trx.insertInto('ledger_entries').values(reversalOf(e, reason, at, now)).execute();
    live.delete(keyOf(e));
    result.reversed += 1;
  };
  // A fact entered again after a reversal happened now (it sorts after the reversal); its first sight is unchanged.
  const append = async (f: ChainFact, again = false) => {
    const values = await newEntry(trx, walletId, chain, currency, f, now, again ? now : f.firstSeenAt);
    const row = await trx.insertInto('ledger_entries').values(values).returningAll().executeTakeFirstOrThrow();
    live.set(f.key, row);
    result.appended += 1;
  };
  for (const f of facts) {
    if (f.state === 'withdrawn') continue;
    seen.add(f.key);
    const e = live.get(f.key);
    if (!e) {
      await append(f);
    } else if (e.confirmed_block_hash !== null && e.confirmed_block_hash !== f.block?.hash) {
      // The block that confirmed it left the best chain: the row is taken back and the fact entered again as it is now.
      await reverse(e, 'reorg', now);
      await append(f, true);
    } else if (e.confirmed_block_hash === null && f.block) {
      await trx
        .updateTable('ledger_entries')
        .set({ confirmed_height: f.block.height, confirmed_block_hash: f.block.hash, confirmed_at: f.block.time * 1000n })
        .where('id', '=', e.id)
        .where('confirmed_block_hash', 'is', null)
        .execute();
      result.confirmed += 1;
    }
  }
  const byKey = new Map(facts.map((f) => [f.key, f]));
  for (const e of [...live.values()]) {
    if (seen.has(keyOf(e))) continue;
    const f = byKey.get(keyOf(e));
    if (f?.state === 'withdrawn') await reverse(e, e.confirmed_block_hash !== null ? 'reorg' : 'withdrawn', f.withdrawnAt ?? now);
    else await reverse(e, 'dropped', now);
  }
  return result;
}
