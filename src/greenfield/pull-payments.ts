// Greenfield's POST …/pull-payments, as the WooCommerce plugin uses it for refunds, answered by a refund of the
// refunds capability: the payer opens `viewLink` (our /refund/:token page), enters an address, and the refund is
// sent (service-held wallets) or waits for the merchant's signature (watch-only wallets).
//
// The plugin names no invoice: it sends an amount, a currency and a name ("Refund of order <number>; <reason>").
// satgate finds the refunded invoice by the order number (the invoice's metadata.orderId, which the plugin set to
// the same number) or an invoice id appearing in the name or description, among this store's invoices only, and
// refunds one of its confirmed payment transactions. A fiat amount is converted at the invoice's own rate, so a
// full refund returns exactly what was asked of the payer.
import type { Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { MasterKey } from '../security/master-key.ts';
import { lockRow } from '../db/row-locks.ts';
import { btcFromSats, fiatToSats, satsFromBtc } from '../money/money.ts';
import { isDecimal } from '../money/decimal.ts';
import { insertRefund, refundedSats } from '../refunds/refund-requests.ts';
import { MAX_DUST_THRESHOLD } from '../spending/tx-size.ts';
import { GreenfieldValidationError } from './errors.ts';
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

/** Words of a name or description that may be an order number or an invoice id. */
export function candidateReferences(...texts: (string | null | undefined)[]): string[] {
  const words = new Set<string>();
  for (const text of texts) {
    for (const w of (text ?? '').split(/[\s;,:()[\]"']+/)) {
      const word = w.replace(/^#/, '').replace(/[.!?]+$/, '');
      if (word.length > 0 && word.length <= 128) words.add(word);
    }
  }
  return [...words];
}

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
  const words = candidateReferences(req.name, req.description);
  const name = req.name ?? '';
  const description = req.description ?? '';

  return deps.db.kysely.transaction().execute(async (trx) => {
    const invoice = words.length === 0 ? undefined : await findInvoice(trx, walletId, words);
    if (!invoice) {
      throw new GreenfieldValidationError([
        { path: 'name', message: 'names no invoice of this store: satgate refunds an invoice, found by the order number (its metadata.orderId) or the invoice id in the name or description' },
      ]);
    }
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
    } else {
      throw new GreenfieldValidationError([{ path: 'currency', message: `must be BTC or the invoice's currency ${payment.order_currency}` }]);
    }
    if (sats < MAX_DUST_THRESHOLD) {
      throw new GreenfieldValidationError([{ path: 'amount', message: `is below ${btcFromSats(MAX_DUST_THRESHOLD)} BTC, an output the network does not relay` }]);
    }
    await lockRow(trx, deps.db.engine, 'wallets', walletId);
    const credit = await refundableCredit(trx, walletId, payment.address_id, sats);
    if (!credit) {
      throw new GreenfieldValidationError([
        { path: 'amount', message: `is more than a confirmed payment of invoice ${invoice.invoice_id} has left to refund (${btcFromSats(sats)} BTC asked)` },
      ]);
    }
    const refund = await insertRefund(trx, deps, { walletId, profileId: 0n, txid: credit.txid, amountSats: sats, idempotencyKey: null, addressIds: [payment.address_id] });
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

/** The newest invoice of the wallet whose order id or invoice id is one of the words. */
async function findInvoice(trx: Trx, walletId: bigint, words: string[]) {
  return trx
    .selectFrom('greenfield_invoices')
    .select(['invoice_id', 'payment_id'])
    .where('wallet_id', '=', walletId)
    .where((eb) => eb.or([eb('order_id', 'in', words), eb('invoice_id', 'in', words)]))
    .orderBy('id', 'desc')
    .executeTakeFirst();
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
