// Greenfield's POST …/pull-payments, as the WooCommerce plugin uses it for refunds, answered by a refund of the
// refunds capability: the payer opens `viewLink` (our /refund/:token page), enters an address, and the refund is
// sent (service-held wallets) or waits for the merchant's signature (watch-only wallets).
//
// The plugin names no invoice: it sends an amount, a currency and a name ("Refund of order <number>; <reason>",
// see refund-name.ts). satgate reads the order number exactly where the plugin writes it (never from the reason or
// the description) and refunds the one paid invoice of this store with that metadata.orderId; a name in another
// form, naming no invoice, more than one reading of it, or an order with no or several paid invoices is refused
// with 422. A fiat amount is converted at the invoice's own rate, so a full refund returns exactly what was asked
// of the payer; only the invoice's own buyer is mailed the link.
import type { Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { MasterKey } from '../security/master-key.ts';
import { lockRow } from '../db/row-locks.ts';
import { btcFromSats, fiatToSats, satsFromBtc } from '../money/money.ts';
import { isDecimal } from '../money/decimal.ts';
import { amountRangeProblem, satsRangeProblem } from '../money/amount-bounds.ts';
import { insertRefund, refundedSats } from '../refunds/refund-requests.ts';
import { MAX_DUST_THRESHOLD } from '../spending/tx-size.ts';
import { GreenfieldValidationError } from './errors.ts';
import { readRefundName, REFUND_NAME_FORMS } from './refund-name.ts';
import { newPublicId } from './webhook-store.ts';
import { ONCHAIN_PAYMENT_METHOD_ID } from './webhook-events.ts';

type Trx = Transaction<Database>;

/** The request, shape-checked by the route's schema. */
export interface PullPaymentRequest {
  name?: string | null;
  description?: string | null;
  amount: string;
  currency: string;
  payoutMethods?: string[] | null;
  paymentMethods?: string[] | null;
}

/** What refunds need here. */
export interface PullPaymentDeps {
  db: Db;
  masterKey: MasterKey;
  clock: () => number;
  publicUrl: string;
}

/** The on-chain bitcoin method in the spellings clients send. */
const ONCHAIN_SPELLINGS = new Set(['BTC', 'BTC-CHAIN', 'BTC_CHAIN', 'BTC-ONCHAIN', 'BTC_ONCHAIN']);

/** Creates the refund and answers the pull payment (PullPaymentData, with satgate's own fields). */
export async function createPullPayment(deps: PullPaymentDeps, walletId: bigint, req: PullPaymentRequest): Promise<Record<string, unknown>> {
  const methods = req.payoutMethods ?? req.paymentMethods ?? null;
  if (methods !== null && !methods.some((m) => ONCHAIN_SPELLINGS.has(m.toUpperCase()))) {
    throw new GreenfieldValidationError([{ path: 'payoutMethods', message: 'satgate refunds on-chain bitcoin only: include BTC-CHAIN (or leave the list out)' }]);
  }
  if (!isDecimal(req.amount, { maxIntegerDigits: 16, maxFractionDigits: 18 }) || /^0*(\.0*)?$/.test(req.amount)) {
    throw new GreenfieldValidationError([{ path: 'amount', message: 'must be a positive decimal string, e.g. "12.50"' }]);
  }
  const currency = req.currency.toUpperCase();
  const range = amountRangeProblem(req.amount, currency);
  if (range !== null) throw new GreenfieldValidationError([{ path: 'amount', message: range }]);
  const name = req.name ?? '';
  const description = req.description ?? '';

  return deps.db.kysely.transaction().execute(async (trx) => {
    const invoice = await namedInvoice(trx, walletId, req.name);
    const payment = await trx.selectFrom('payments').selectAll().where('id', '=', invoice.payment_id).executeTakeFirstOrThrow();
    let sats: bigint;
    if (currency === 'BTC') {
      try {
        sats = satsFromBtc(req.amount);
      } catch {
        throw new GreenfieldValidationError([{ path: 'amount', message: 'a BTC amount has at most 8 decimals' }]);
      }
    } else if (currency === payment.order_currency.toUpperCase()) {
      sats = fiatToSats(req.amount, payment.exchange_rate);
      const worth = satsRangeProblem(sats);
      if (worth !== null) throw new GreenfieldValidationError([{ path: 'amount', message: worth }]);
    } else {
      throw new GreenfieldValidationError([{ path: 'currency', message: `must be BTC or the invoice's currency ${payment.order_currency}` }]);
    }
    if (sats < MAX_DUST_THRESHOLD) {
      throw new GreenfieldValidationError([{ path: 'amount', message: `is below ${btcFromSats(MAX_DUST_THRESHOLD)} BTC, an output the network does not relay` }]);
    }
    await lockRow(trx, deps.db, 'wallets', walletId);
    const credit = await refundableCredit(trx, walletId, payment.address_id, sats);
    if (!credit) {
      throw new GreenfieldValidationError([
        { path: 'amount', message: `is more than a confirmed payment of invoice ${invoice.invoice_id} has left to refund (${btcFromSats(sats)} BTC asked)` },
      ]);
    }
    const refund = await insertRefund(trx, deps, { walletId, profileId: 0n, txid: credit.txid, amountSats: sats, idempotencyKey: null, addressIds: [payment.address_id], paymentId: payment.id });
    const now = deps.clock();
    const publicId = newPublicId();
    await trx
      .insertInto('greenfield_pull_payments')
      .values({ public_id: publicId, wallet_id: walletId, refund_id: refund.row.id, payment_id: payment.id, name, description, amount: req.amount, currency, created_at: BigInt(now) })
      .execute();
    return {
      id: publicId,
      name,
      description,
      currency,
      amount: req.amount,
      BOLT11Expiration: 30,
      autoApproveClaims: false,
      archived: false,
      viewLink: refund.url,
      startsAt: Math.floor(now / 1000),
      expiresAt: null,
      payoutMethods: [ONCHAIN_PAYMENT_METHOD_ID],
      invoiceId: invoice.invoice_id,
      refundedTransactionId: credit.txid,
      refundAmountBtc: btcFromSats(sats, true),
    };
  });
}

/** A 422 on `name`: what is wrong, then the forms a refund's name takes. */
const nameError = (problem: string) => new GreenfieldValidationError([{ path: 'name', message: `${problem}; a refund's name is ${REFUND_NAME_FORMS}` }]);
const quoted = (s: string) => JSON.stringify(s);

/** The one paid invoice of the wallet the name names; otherwise a 422 saying why there is not exactly one. */
async function namedInvoice(trx: Trx, walletId: bigint, name: string | null | undefined): Promise<{ invoice_id: string; payment_id: bigint }> {
  const ref = readRefundName(name);
  if (!ref) throw nameError('names no invoice in a form satgate reads');
  const rows = await trx
    .selectFrom('greenfield_invoices as g')
    .innerJoin('payments as p', 'p.id', 'g.payment_id')
    .select(['g.invoice_id', 'g.order_id', 'g.payment_id', 'p.address_id'])
    .where('g.wallet_id', '=', walletId)
    .where(ref.by === 'order' ? 'g.order_id' : 'g.invoice_id', 'in', ref.readings)
    .orderBy('g.id')
    .execute();
  const what = ref.by === 'order' ? 'order number' : 'id';
  const named = [...new Set(rows.map((r) => (ref.by === 'order' ? r.order_id! : r.invoice_id)))];
  if (named.length === 0) throw nameError(`no invoice of this store has ${what} ${ref.readings.map(quoted).join(' or ')}`);
  if (named.length > 1) throw nameError(`reads as more than one ${what} of this store's invoices (${named.map(quoted).join(' and ')}), so it names none`);
  // An invoice has its own address (payments never share one): a credit to it not withdrawn is a payment of it.
  const credited = await trx
    .selectFrom('chain_outputs as o')
    .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
    .select('o.address_id')
    .where('o.address_id', 'in', rows.map((r) => r.address_id))
    .where('t.state', '!=', 'withdrawn')
    .execute();
  const paid = rows.filter((r) => credited.some((c) => c.address_id === r.address_id));
  const label = `${ref.by} ${quoted(named[0]!)}`;
  if (paid.length === 0) {
    throw nameError(ref.by === 'order' ? `${label} has no paid invoice (${rows.map((r) => r.invoice_id).join(', ')})` : `${label} has received no payment`);
  }
  if (paid.length > 1) {
    throw nameError(`${label} has ${paid.length} paid invoices (${paid.map((r) => r.invoice_id).join(', ')}): name the one to refund by its invoice id`);
  }
  return paid[0]!;
}

/** The confirmed credit transaction to the address with the most left to refund, if that covers `sats`. */
async function refundableCredit(trx: Trx, walletId: bigint, addressId: bigint, sats: bigint): Promise<{ txid: string } | undefined> {
  const outputs = await trx
    .selectFrom('chain_outputs as o')
    .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
    .select(['t.txid', 'o.value_sats'])
    .where('o.address_id', '=', addressId)
    .where('t.state', '=', 'block')
    .execute();
  const paid = new Map<string, bigint>();
  for (const o of outputs) paid.set(o.txid, (paid.get(o.txid) ?? 0n) + o.value_sats);
  let best: { txid: string; left: bigint } | undefined;
  for (const [txid, total] of paid) {
    const left = total - (await refundedSats(trx, walletId, txid));
    if (!best || left > best.left) best = { txid, left };
  }
  return best && best.left >= sats ? { txid: best.txid } : undefined;
}
