import { DomainError } from '../core/domain-errors.ts';
import { isoUtc } from '../core/clock.ts';
import { jsonNumber } from '../money/json-number.ts';
import type { MasterKey } from '../security/master-key.ts';
import { btcFromSats, fiatToSats, satsToFiat } from '../money/money.ts';
import { isIso4217 } from '../money/currencies.ts';
import { findWalletByKeyText } from './wallet-lookup.ts';
import { sealBalancePayload } from './payload-box.ts';
import { AddressActivity, confirmations, type CreditRow, type DebitRow } from './address-activity.ts';
import type { WalletRepository, WalletRow, AddressRow } from './wallet-repository.ts';

/** Operations 5, 9 and 10: what the chain shows for an issued address or a whole wallet. */
export class WalletMonitor {
  constructor(
    private readonly repo: WalletRepository,
    private readonly activity: AddressActivity,
    private readonly masterKey: MasterKey,
  ) {}

  /** Operation 9: balance, reduced transactions (null until one is confirmed) and the sealed order result. */
  async balance(addressText: string) {
    const { address, wallet } = await this.issued(addressText);
    const [credits, debits, tip] = await Promise.all([
      this.activity.credits({ addressId: address.id }),
      this.activity.debits({ addressId: address.id }),
      this.activity.tipHeight(wallet.mode),
    ]);
    const required = Number(wallet.required_confirmations);
    const isConfirmed = (row: { state: string; blockHeight: number | null }) => confirmations(row.state, row.blockHeight, tip) >= required;
    const sum = (rows: Array<{ value: bigint }>) => rows.reduce((s, r) => s + r.value, 0n);
    const confirmed = sum(credits.filter(isConfirmed)) - sum(debits.filter(isConfirmed));
    const unconfirmed = sum(credits.filter((r) => !isConfirmed(r))) - sum(debits.filter((r) => !isConfirmed(r)));
    const anyConfirmed = credits.some(isConfirmed) || debits.some(isConfirmed);
    const reduced = [...credits.map((c) => reducedTx(c, c.value)), ...debits.map((d) => reducedTx(d, -d.value))];
    return {
      balance: { confirmed: signedBtc(confirmed), unconfirmed: signedBtc(unconfirmed) },
      tx: anyConfirmed ? reduced : null,
      payload: await this.orderResult(wallet, address, credits, tip, required),
    };
  }

  /** Operation 10: outputs of the address not spent by any known transaction. */
  async unspent(addressText: string) {
    const { address } = await this.issued(addressText);
    const [credits, debits] = await Promise.all([
      this.activity.credits({ addressId: address.id }),
      this.activity.debits({ addressId: address.id }),
    ]);
    const spent = new Set(debits.map((d) => d.outputId));
    return credits
      .filter((c) => !spent.has(c.outputId))
      .map((c) => ({ tx_pos: c.vout, value: Number(c.value), tx_hash: c.txid, height: c.state === 'block' ? (c.blockHeight ?? 0) : 0 }));
  }

  /** Operation 5: every transaction of the wallet registered with this public key (or descriptor, in any accepted form). */
  async walletTransactions(pub: string) {
    const wallet = await findWalletByKeyText(this.repo, pub);
    if (!wallet) return [];
    const [credits, debits, tip, orders] = await Promise.all([
      this.activity.credits({ walletId: wallet.id }),
      this.activity.debits({ walletId: wallet.id }),
      this.activity.tipHeight(wallet.mode),
      this.activity.walletOrders(wallet.id),
    ]);
    // The order a transaction belongs to: the latest one that reserved its address before it was seen.
    const orderFor = (addressId: bigint, seenAt: number) =>
      orders.filter((o) => o.address_id === addressId && Number(o.created_at) <= seenAt).at(-1) ??
      orders.find((o) => o.address_id === addressId);
    const entries = [
      ...credits.map((c) => ({ row: c as CreditRow | DebitRow, id: c.outputId * 2n, value: c.value, debit: 0, n: c.vout })),
      ...debits.map((d) => ({ row: d as CreditRow | DebitRow, id: d.spendId * 2n + 1n, value: -d.value, debit: 1, n: d.vin })),
    ].sort((a, b) => a.row.firstSeenAt - b.row.firstSeenAt || Number(a.id - b.id));
    return entries.map(({ row, id, value, debit, n }) => {
      const conf = row.state === 'block' ? confirmations(row.state, row.blockHeight, tip) : null;
      const order = orderFor(row.addressId, row.firstSeenAt);
      return {
        id: Number(id),
        locktime: row.locktime,
        value: signedBtc(value),
        txid: row.txid,
        address: row.address,
        confirmation: conf,
        blocktime: row.blockTime,
        time: Math.floor(row.firstSeenAt / 1000),
        created: Math.floor(row.firstSeenAt / 1000),
        debit,
        client_txid: order?.client_txid ?? null,
        local_currency: order?.local_currency ?? null,
        rate: order ? jsonNumber(order.exchange_rate) : null,
        rate_datetime: order ? Math.floor(Number(order.exchange_rate_at) / 1000) : null,
        locked_rate_expired: order ? row.firstSeenAt > Number(order.rate_lock_expires_at) : null,
        n,
        processed: conf !== null && conf >= Number(wallet.required_confirmations) ? 1 : 0,
        vin: debit ? n : null,
        dbtime: isoUtc(row.firstSeenAt),
      };
    });
  }

  /** The order's result (INTERFACE.md 2.4), sealed to the client's key; null without a client key. */
  private async orderResult(wallet: WalletRow, address: AddressRow, credits: CreditRow[], tip: number | null, required: number) {
    const order = await this.activity.latestOrder(address.id);
    if (!order || !order.client_public_key) return null;
    const currency = order.local_currency.toUpperCase();
    const isConfirmed = (c: CreditRow) => confirmations(c.state, c.blockHeight, tip) >= required;
    const paidConf = credits.filter(isConfirmed).reduce((s, c) => s + c.value, 0n);
    const paidUnconf = credits.filter((c) => !isConfirmed(c)).reduce((s, c) => s + c.value, 0n);
    const paid = paidConf + paidUnconf;
    const fiat = isIso4217(currency);
    const cryptoAmount = order.order_amount && fiat ? fiatToSats(order.order_amount, order.exchange_rate) : null;
    const txids = [...new Set(credits.map((c) => c.txid))];
    const result = {
      api_id: wallet.api_id,
      local_currency: order.local_currency,
      order_amount: order.order_amount ?? '',
      exchange_rate: order.exchange_rate,
      exchange_rate_datetime: isoUtc(Number(order.exchange_rate_at)),
      crypto_amount: cryptoAmount === null ? '' : btcFromSats(cryptoAmount),
      order_status: paid > 0n && (cryptoAmount === null || paid >= cryptoAmount) ? 'paid' : 'failed',
      amount_paid: fiat ? satsToFiat(paid, order.exchange_rate, currency) : '',
      crypto_amount_paid_conf: btcFromSats(paidConf),
      crypto_amount_paid_unconf: btcFromSats(paidUnconf),
      tx_status: credits.length > 0 && credits.every(isConfirmed) ? 'confirmed' : 'unconfirmed',
      tx: txids.map((txid) => {
        const mine = credits.filter((c) => c.txid === txid);
        const first = mine[0]!;
        return {
          txid,
          created: isoUtc(first.firstSeenAt),
          confirmed_paid: btcFromSats(mine.filter(isConfirmed).reduce((s, c) => s + c.value, 0n)),
          unconfirmed_paid: btcFromSats(mine.filter((c) => !isConfirmed(c)).reduce((s, c) => s + c.value, 0n)),
          confirmations: confirmations(first.state, first.blockHeight, tip),
        };
      }),
    };
    try {
      return sealBalancePayload(
        result,
        order.client_public_key,
        this.masterKey.unseal(wallet.box_secret_sealed),
        this.masterKey.unseal(wallet.sign_secret_sealed),
      );
    } catch {
      // A client key that was accepted but is not a valid X25519 key cannot be sealed to.
      return null;
    }
  }

  private async issued(addressText: string): Promise<{ address: AddressRow; wallet: WalletRow }> {
    const address = await this.repo.findAddress(addressText);
    if (!address) throw new DomainError('invalid', 'Wrong or missing argument: this address was not issued by this service');
    const wallet = await this.repo.findById(address.wallet_id);
    return { address, wallet: wallet! };
  }
}

function reducedTx(row: CreditRow | DebitRow, value: bigint) {
  return {
    locktime: row.locktime,
    value: signedBtc(value),
    txid: row.txid,
    blocktime: row.blockTime,
    time: Math.floor(row.firstSeenAt / 1000),
  };
}

/** Satoshis as a BTC decimal string, keeping the sign of debits. */
export function signedBtc(sats: bigint): string {
  return sats < 0n ? `-${btcFromSats(-sats)}` : btcFromSats(sats);
}
