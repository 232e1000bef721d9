/**
 * Refunds of watch-only wallets: one PSBT paying every scheduled refund of the wallet (the merchant signs
 * it in Electrum, Sparrow or a hardware wallet), and the check of what they post back: it pays scheduled
 * refunds exactly (each output a scheduled refund's address and amount, or the wallet's own change),
 * spends only the wallet's free coins, and pays a sane fee; then it is recorded and broadcast. Descriptor,
 * multisig and taproot wallets get a PSBT each cosigner can sign alone (spending/wallet-psbt.ts); their
 * partially signed PSBTs are posted together and combined, and finalised once the threshold is met.
 */
import type { Db } from '../db/database.ts';
import { DomainError } from '../core/domain-errors.ts';
import { btcFromSats } from '../money/money.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';
import type { ChainService } from '../chain/chain-service.ts';
import { InsufficientFundsError } from '../spending/spending-errors.ts';
import { buildPaymentPsbt, checkSignedPayment, readPostedTransaction, recordSignedPayment } from '../spending/watch-only-psbt.ts';
import type { Spending } from '../spending/spending.ts';

/** What the watch-only refund operations need. */
export interface WatchOnlyDeps {
  db: Db;
  chains: Pick<ChainService, 'forMode' | 'watch'>;
  spending: Pick<Spending, 'feeRate' | 'recordExternal'>;
  clock: () => number;
  /** Largest fee accepted on a posted refund transaction, satoshis (besides 5% of the amount). */
  feeCapSats: bigint;
}

function watchOnly(wallet: WalletRow): void {
  if (wallet.seed_sealed !== null) throw new DomainError('invalid', 'Wrong or missing argument: this wallet is held by the service, which signs and sends its refunds itself');
}

async function scheduled(db: Db, walletId: bigint) {
  return db.kysely
    .selectFrom('refunds')
    .select(['id', 'address', 'script_hex', 'amount_sats'])
    .where('wallet_id', '=', walletId)
    .where('state', '=', 'scheduled')
    .where('spend_id', 'is', null)
    .where('address', 'is not', null)
    .orderBy('id')
    .execute();
}

/** GET /refunds/psbt: the unsigned PSBT paying every scheduled refund of the wallet. */
export async function refundPsbt(deps: WatchOnlyDeps, wallet: WalletRow) {
  watchOnly(wallet);
  const refunds = await scheduled(deps.db, wallet.id);
  if (refunds.length === 0) throw new DomainError('invalid', 'Wrong or missing argument: this wallet has no scheduled refunds waiting for a transaction');
  const outputs = refunds.map((r) => ({ script: Buffer.from(r.script_hex!, 'hex'), amount: r.amount_sats }));
  let built;
  try {
    built = await buildPaymentPsbt(deps, wallet, outputs);
  } catch (err) {
    if (err instanceof InsufficientFundsError) throw new DomainError('invalid', `Wrong or missing argument: the wallet cannot pay its scheduled refunds: ${err.message}`);
    throw err;
  }
  return {
    psbt: built.psbt,
    fee: btcFromSats(built.fee),
    fee_rate: Number(built.feeRate),
    refunds: refunds.map((r) => ({ refund_id: r.id.toString(), refund_addr: r.address!, refund_amount: btcFromSats(r.amount_sats) })),
  };
}

/** POST /refunds/signed: verifies, records and broadcasts a signed refund transaction of the wallet. */
export async function submitSignedRefund(deps: WatchOnlyDeps, wallet: WalletRow, signedText: unknown) {
  watchOnly(wallet);
  const refuse = (why: string): never => {
    throw new DomainError('invalid', `Wrong or missing argument: ${why}`);
  };
  // A text that is no transaction is refused before anything is read.
  readPostedTransaction(signedText, refuse);
  // Every output is a distinct scheduled refund (address and amount) or change to the wallet's own key.
  const open = await scheduled(deps.db, wallet.id);
  const paid: typeof open = [];
  const take = (o: { script: Uint8Array; amount: bigint }) => {
    const hex = Buffer.from(o.script).toString('hex');
    const at = open.findIndex((r) => r.script_hex === hex && r.amount_sats === o.amount);
    if (at < 0) return false;
    paid.push(open.splice(at, 1)[0]!);
    return true;
  };
  const checked = await checkSignedPayment(deps, wallet, signedText, { take, what: 'a scheduled refund' }, refuse);
  if (paid.length === 0) refuse('the transaction pays none of the scheduled refunds');
  const fee = checked.fee;
  const refundTotal = paid.reduce((s, r) => s + r.amount_sats, 0n);
  if (fee * 100n > refundTotal * 5n) refuse(`the fee of ${btcFromSats(fee)} BTC is more than 5% of the refunds it pays (${btcFromSats(refundTotal)} BTC)`);
  if (fee > deps.feeCapSats) refuse(`the fee of ${btcFromSats(fee)} BTC is above the configured cap of ${btcFromSats(deps.feeCapSats)} BTC`);

  const ids = paid.map((r) => r.id);
  const record = await recordSignedPayment(deps, wallet, checked, { purpose: 'refund', reference: `refunds:${ids.join(',')}` }, async (trx, spend) => {
    const linked = await trx.updateTable('refunds').set({ spend_id: spend.id }).where('id', 'in', ids).where('spend_id', 'is', null).executeTakeFirst();
    if (linked.numUpdatedRows !== BigInt(ids.length)) throw new DomainError('invalid', 'Wrong or missing argument: a refund of this transaction was sent meanwhile');
  }, refuse);
  return { tx_id: record.txid, refunds: ids.map(String), fee: btcFromSats(fee) };
}
