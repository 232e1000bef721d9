// Approved payouts of a watch-only wallet as a PSBT to sign (satgate's addition beside BTCPay's payout routes; the
// refunds' flow, spending/watch-only-psbt.ts): GET gives one unsigned PSBT paying every approved, unpaid payout
// of the wallet; the merchant signs it (Electrum, Sparrow, a hardware wallet) and posts it back. What is posted
// must pay approved payouts exactly (each output one payout's destination and amount, or the wallet's change),
// spend only the wallet's free coins and pay a sane fee; it is stored with the payouts' link to it, then
// broadcast. The payouts then follow that spend as service-held wallets' do: InProgress, Completed.
import type { Db } from '../db/database.ts';
import { btcFromSats } from '../money/money.ts';
import { decodeAddressFor } from '../bitcoin/address.ts';
import type { Network } from '../bitcoin/networks.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';
import { InsufficientFundsError } from '../spending/spending-errors.ts';
import { buildPaymentPsbt, checkSignedPayment, recordSignedPayment, type WatchOnlyPsbtDeps } from '../spending/watch-only-psbt.ts';
import { GreenfieldError } from './errors.ts';

/** What the payout PSBT flow needs. */
export interface PayoutPsbtDeps extends WatchOnlyPsbtDeps {
  /** Largest fee accepted on a posted transaction, satoshis (besides 5% of what it pays); the refunds' cap. */
  feeCapSats: bigint;
  /** Wakes the outbox worker after the payouts' events were queued. */
  wake(): void;
}

const refused = (why: string): never => {
  throw new GreenfieldError(400, 'invalid-psbt', why);
};

/** The payouts of a watch-only wallet's PSBT flow. */
export class GreenfieldPayoutPsbts {
  constructor(private readonly deps: PayoutPsbtDeps) {}

  /** The unsigned PSBT paying every approved, unpaid payout of the watch-only wallet. */
  async psbt(walletId: bigint): Promise<Record<string, unknown>> {
    const wallet = await this.watchOnlyWallet(walletId);
    const due = await this.due(walletId);
    if (due.length === 0) throw new GreenfieldError(400, 'no-payouts-due', 'No approved payout of this store is waiting for a transaction');
    const network = wallet.network as Network;
    const outputs = due.map((p) => ({ script: decodeAddressFor(p.destination, network).script, amount: p.amount_sats }));
    let built;
    try {
      built = await buildPaymentPsbt(this.deps, wallet, outputs);
    } catch (err) {
      if (err instanceof InsufficientFundsError) throw new GreenfieldError(400, 'insufficient-funds', `The wallet cannot pay its approved payouts: ${err.message}`);
      throw err;
    }
    return {
      psbt: built.psbt,
      fee: btcFromSats(built.fee),
      feeRate: Number(built.feeRate),
      payouts: due.map((p) => ({ id: p.public_id, destination: p.destination, amount: btcFromSats(p.amount_sats) })),
    };
  }

  /** Checks, stores and broadcasts the signed transaction; answers the payouts it pays and the txid. */
  async submit(walletId: bigint, posted: unknown): Promise<Record<string, unknown>> {
    const wallet = await this.watchOnlyWallet(walletId);
    const network = wallet.network as Network;
    const open = (await this.due(walletId)).map((p) => ({ ...p, scriptHex: Buffer.from(decodeAddressFor(p.destination, network).script).toString('hex') }));
    const paid: typeof open = [];
    const take = (o: { script: Uint8Array; amount: bigint }) => {
      const hex = Buffer.from(o.script).toString('hex');
      const at = open.findIndex((p) => p.scriptHex === hex && p.amount_sats === o.amount);
      if (at < 0) return false;
      paid.push(open.splice(at, 1)[0]!);
      return true;
    };
    const checked = await checkSignedPayment(this.deps, wallet, posted, { take, what: 'an approved payout' }, refused);
    if (paid.length === 0) refused('the transaction pays none of the approved payouts');
    const total = paid.reduce((s, p) => s + p.amount_sats, 0n);
    if (checked.fee * 100n > total * 5n) refused(`the fee of ${btcFromSats(checked.fee)} BTC is more than 5% of the payouts it pays (${btcFromSats(total)} BTC)`);
    if (checked.fee > this.deps.feeCapSats) refused(`the fee of ${btcFromSats(checked.fee)} BTC is above the configured cap of ${btcFromSats(this.deps.feeCapSats)} BTC`);
    const ids = paid.map((p) => p.id);
    const spend = await recordSignedPayment(this.deps, wallet, checked, { purpose: 'payout', reference: `psbt:${checked.txid}` }, async (trx, row) => {
      const linked = await trx
        .updateTable('greenfield_payouts')
        .set({ spend_id: row.id, last_error: null, updated_at: BigInt(this.deps.clock()) })
        .where('id', 'in', ids)
        .where('state', '=', 'AwaitingPayment')
        .where('spend_id', 'is', null)
        .executeTakeFirst();
      if (linked.numUpdatedRows !== BigInt(ids.length)) refused('a payout of this transaction was cancelled or paid meanwhile');
    }, refused);
    this.deps.wake();
    return { transactionId: spend.txid, fee: btcFromSats(checked.fee), payouts: paid.map((p) => p.public_id) };
  }

  private async watchOnlyWallet(walletId: bigint): Promise<WalletRow> {
    const wallet = (await this.deps.db.kysely.selectFrom('wallets').selectAll().where('id', '=', walletId).executeTakeFirstOrThrow()) as WalletRow;
    if (wallet.seed_sealed !== null) throw new GreenfieldError(400, 'not-watch-only', 'This wallet is held by the service, which signs and sends its approved payouts itself');
    return wallet;
  }

  /** Approved payouts of the wallet no transaction pays yet, oldest first (what the PSBT pays; the console lists them). */
  due(walletId: bigint) {
    return dueOf(this.deps.db, walletId);
  }
}

/** Approved payouts of the wallet no transaction pays yet, oldest first. */
function dueOf(db: Db, walletId: bigint) {
  return db.kysely
    .selectFrom('greenfield_payouts')
    .select(['id', 'public_id', 'destination', 'amount_sats'])
    .where('wallet_id', '=', walletId)
    .where('state', '=', 'AwaitingPayment')
    .where('spend_id', 'is', null)
    .orderBy('id')
    .execute();
}
