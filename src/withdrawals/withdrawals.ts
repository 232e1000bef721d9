// Withdrawals (INTERFACE.md ops 15 to 17): a quote fixes rate and crypto amount for 15 minutes after checking
// the wallet may withdraw it; confirming the quote makes it `pending` (the balance is checked again under
// the wallet's lock, so two withdrawals can never together exceed it); the sender then pays the partner's
// settlement address, and the chain decides `success`.
import { randomBytes } from 'node:crypto';
import type { Selectable, Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database, WithdrawalsTable } from '../db/schema.ts';
import { isoUtc, type Clock } from '../core/clock.ts';
import { DomainError } from '../core/domain-errors.ts';
import { lockRow } from '../db/row-locks.ts';
import type { Rates } from '../rates/rates-port.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { ChainId } from '../chain/chain-id.ts';
import { JsonNumber } from '../money/exact-json.ts';
import { btcFromSats, ConversionError, parseFiatAmount, fiatToSats } from '../money/money.ts';
import { DecimalError } from '../money/decimal.ts';
import { amountRangeProblem, satsRangeProblem } from '../money/amount-bounds.ts';
import { jsonNumber } from '../money/json-number.ts';
import { exactNumber } from '../money/canonical-json.ts';
import type { Fields } from '../partners/fields.ts';
import { onlyKnown } from '../partners/fields.ts';
import { canWithdraw, walletEventFields, type PartnerMerchant, type PartnerWallets } from '../partners/partner-wallets.ts';
import { recordCreated, type WebhookTarget } from '../partners/transitions.ts';
import { transitionWithdrawal } from './transitions.ts';
import { estimateFee, inputsNeeded, withdrawableBalance } from './withdrawable-balance.ts';

/** A withdrawal row as stored. */
export type WithdrawalRow = Selectable<WithdrawalsTable>;
type Trx = Transaction<Database>;

/** How long a quote holds (INTERFACE.md section 8). */
export const QUOTE_TTL_MS = 15 * 60_000;
/** Blocks the fee estimate aims at. */
const FEE_TARGET_BLOCKS = 6;

/** What the withdrawal service needs. */
export interface WithdrawalDeps {
  db: Db;
  clock: Clock;
  rates: Rates;
  chains: ChainService;
  wallets: PartnerWallets;
}

/** What a quote answers (op 15). */
export interface QuoteAnswer {
  exchange_rate: number | string;
  crypto_amount: number | string;
  merchant_api_id: string;
  withdrawal_id: string;
  amount: number | string;
  local_currency: string;
  expires_at: string;
}

/** What confirmation and status answer (ops 16, 17). */
export interface StatusAnswer {
  withdrawal_id: string;
  withdrawal_status: string;
  crypto_amount: number | string;
  tx_id: string;
  reason?: string;
}

/** A new unguessable withdrawal ID: `wd_` and 32 hex characters (128 random bits). */
function newWithdrawalId(): string {
  return `wd_${randomBytes(16).toString('hex')}`;
}

/** Quotes, confirms and reports withdrawals; derives `success` from the chain. */
export class Withdrawals {
  constructor(private readonly deps: WithdrawalDeps) {}

  /** Operation 15 for an authenticated merchant (withdrawal key already checked). */
  async quote(merchant: PartnerMerchant, fields: Fields, amountFromQuery: boolean): Promise<QuoteAnswer> {
    onlyKnown(fields, ['merchant_api_id', 'withdrawal_auth_key', 'amount']);
    const currency = merchant.wallet.local_currency.toUpperCase();
    const amount = readAmount(fields.amount, amountFromQuery, currency);
    if (!canWithdraw(merchant.pw.wallet_status)) {
      throw new DomainError('invalid', `Wrong or missing argument: the wallet is ${merchant.pw.wallet_status}, not active; withdrawals need an approved KYC review`);
    }
    const chain = this.deps.chains.forMode(merchant.wallet.mode as ChainId);
    const feeRate = await chain.source.estimateFee(FEE_TARGET_BLOCKS);
    const now = this.deps.clock();
    const { db } = this.deps;
    const row = await db.kysely.transaction().execute(async (trx) => {
      await lockRow(trx, db, 'wallets', merchant.wallet.id);
      const lock = await this.deps.rates.lock('withdrawal_quote', currency, trx);
      const sats = fiatToSats(amount, lock.rate);
      const range = satsRangeProblem(sats);
      if (range !== null) throw new DomainError('invalid', `Wrong or missing argument: amount ${range}`);
      if (sats <= 0n) throw new DomainError('invalid', 'Wrong or missing argument: amount is worth less than one satoshi');
      const balance = await withdrawableBalance(trx, merchant.wallet);
      const fee = estimateFee(feeRate, inputsNeeded(balance.coinValues, sats));
      if (balance.available < sats + fee) throw insufficient(balance.available, sats, fee);
      const inserted = await trx
        .insertInto('withdrawals')
        .values({
          withdrawal_id: newWithdrawalId(),
          partner_wallet_id: merchant.pw.id,
          wallet_id: merchant.wallet.id,
          currency,
          amount,
          exchange_rate: lock.rate,
          crypto_sats: sats,
          fee_estimate_sats: fee,
          rate_lock_id: lock.id,
          expires_at: BigInt(Math.min(lock.expiresAt, now + QUOTE_TTL_MS)),
          status: 'quoted',
          status_at: BigInt(now),
          failure_reason: null,
          settlement_address: merchant.partner.settlement_address,
          txid: null,
          confirmed_at: null,
          created_at: BigInt(now),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordCreated(trx, 'withdrawal_transitions', inserted.id, 'quoted', now);
      return inserted;
    });
    return {
      exchange_rate: exactNumber(row.exchange_rate),
      crypto_amount: jsonNumber(btcFromSats(row.crypto_sats)),
      merchant_api_id: merchant.wallet.api_id,
      withdrawal_id: row.withdrawal_id,
      amount: exactNumber(row.amount),
      local_currency: currency,
      expires_at: isoUtc(Number(row.expires_at)),
    };
  }

  /** The withdrawal and its merchant when `key` is the merchant's withdrawal key; undefined otherwise (indistinguishably). */
  async authenticate(withdrawalId: string, key: string): Promise<{ row: WithdrawalRow; merchant: PartnerMerchant } | undefined> {
    const row = withdrawalId.length <= 100
      ? await this.deps.db.kysely.selectFrom('withdrawals').selectAll().where('withdrawal_id', '=', withdrawalId).executeTakeFirst()
      : undefined;
    const apiId = row
      ? (await this.deps.db.kysely.selectFrom('wallets').select('api_id').where('id', '=', row.wallet_id).executeTakeFirstOrThrow()).api_id
      : '';
    // Always compare a key, so an unknown ID takes as long as a wrong key.
    const merchant = await this.deps.wallets.authenticate(apiId, key, 'withdrawal');
    if (!row || !merchant) return undefined;
    return { row, merchant };
  }

  /**
   * Operation 16: confirms a live quote. Confirming again answers the current status; an expired quote or a
   * balance no longer covering it is refused and changes nothing.
   */
  async confirm(withdrawal: WithdrawalRow, merchant: PartnerMerchant): Promise<StatusAnswer> {
    const { db } = this.deps;
    const now = this.deps.clock();
    const row = await db.kysely.transaction().execute(async (trx) => {
      await lockRow(trx, db, 'wallets', merchant.wallet.id);
      const current = await trx.selectFrom('withdrawals').selectAll().where('id', '=', withdrawal.id).executeTakeFirstOrThrow();
      if (current.status !== 'quoted') return current;
      if (now >= Number(current.expires_at)) {
        throw new DomainError('invalid', `Wrong or missing argument: the quote expired at ${isoUtc(Number(current.expires_at))}; ask for a new quote`);
      }
      const pw = await trx.selectFrom('partner_wallets').select('wallet_status').where('id', '=', merchant.pw.id).executeTakeFirstOrThrow();
      if (!canWithdraw(pw.wallet_status)) {
        throw new DomainError('invalid', `Wrong or missing argument: the wallet is ${pw.wallet_status}, not active`);
      }
      const balance = await withdrawableBalance(trx, merchant.wallet, current.id);
      if (balance.available < current.crypto_sats + current.fee_estimate_sats) {
        throw insufficient(balance.available, current.crypto_sats, current.fee_estimate_sats);
      }
      await transitionWithdrawal(trx, current.id, 'pending', 'confirmed by the partner', now, this.event(merchant, current), {
        confirmed_at: BigInt(now),
      });
      return trx.selectFrom('withdrawals').selectAll().where('id', '=', current.id).executeTakeFirstOrThrow();
    });
    return this.answer(row, now);
  }

  /** Operation 17: the withdrawal's status, re-derived from the chain first. Undefined for an unknown ID. */
  async status(withdrawalId: string): Promise<StatusAnswer | undefined> {
    if (withdrawalId.length > 100) return undefined;
    const { db } = this.deps;
    const found = await db.kysely.selectFrom('withdrawals').select('id').where('withdrawal_id', '=', withdrawalId).executeTakeFirst();
    if (!found) return undefined;
    const now = this.deps.clock();
    await db.kysely.transaction().execute((trx) => this.derive(trx, found.id, now));
    const row = await db.kysely.selectFrom('withdrawals').selectAll().where('id', '=', found.id).executeTakeFirstOrThrow();
    return this.answer(row, now);
  }

  /** Re-derives the sent withdrawals of a chain (inside the watcher's transaction). */
  async deriveForChain(trx: Trx, chain: ChainId, now: number): Promise<void> {
    const rows = await trx
      .selectFrom('withdrawals as w')
      .innerJoin('wallets as wa', 'wa.id', 'w.wallet_id')
      .select('w.id')
      .where('wa.mode', '=', chain)
      .where('w.spend_id', 'is not', null)
      .where('w.status', 'in', ['pending', 'success'])
      .execute();
    for (const r of rows) await this.derive(trx, r.id, now);
  }

  /** Re-derives the withdrawal a spend pays, if any (inside the spending capability's transaction). */
  async deriveForSpend(trx: Trx, spendId: bigint, now: number): Promise<void> {
    const row = await trx.selectFrom('withdrawals').select('id').where('spend_id', '=', spendId).executeTakeFirst();
    if (row) await this.derive(trx, row.id, now);
  }

  /**
   * `success` once the spend's transaction has the wallet's required confirmations, back to `pending` if a
   * reorg takes them away, `failed` when the spend failed (its coins were spent elsewhere). A fee bump
   * changes the transaction: `tx_id` follows it.
   */
  private async derive(trx: Trx, id: bigint, now: number): Promise<void> {
    const w = await trx.selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    if (w.spend_id === null || (w.status !== 'pending' && w.status !== 'success')) return;
    const spend = await trx.selectFrom('spends').select(['txid', 'status', 'last_error']).where('id', '=', w.spend_id).executeTakeFirstOrThrow();
    if (spend.txid !== w.txid) await trx.updateTable('withdrawals').set({ txid: spend.txid }).where('id', '=', w.id).execute();
    const wallet = await trx.selectFrom('wallets').select(['api_id', 'mode', 'required_confirmations']).where('id', '=', w.wallet_id).executeTakeFirstOrThrow();
    const merchant = await this.deps.wallets.load(wallet.api_id, trx);
    const current = { ...w, txid: spend.txid };
    const event = merchant ? this.event(merchant, current) : { webhook: { url: null, walletId: w.wallet_id }, payload: { withdrawal_id: w.withdrawal_id } };
    if (spend.status === 'failed') {
      const reason = `the settlement transaction failed: ${spend.last_error ?? 'its coins were spent by another transaction'}`;
      await transitionWithdrawal(trx, w.id, 'failed', reason, now, { ...event, payload: { ...event.payload, reason } }, { failure_reason: reason });
      return;
    }
    const tx = await trx
      .selectFrom('chain_txs')
      .select(['state', 'block_height'])
      .where('chain', '=', wallet.mode)
      .where('txid', '=', spend.txid)
      .executeTakeFirst();
    const tip = await trx.selectFrom('chain_tips').select('tip_height').where('chain', '=', wallet.mode).executeTakeFirst();
    const confs = tx && tx.state === 'block' && tx.block_height !== null && tip ? tip.tip_height - tx.block_height + 1n : 0n;
    const to = confs >= wallet.required_confirmations ? 'success' : 'pending';
    if (to === w.status) return;
    const cause = to === 'success' ? `transaction ${spend.txid} has ${confs} confirmation(s)` : `transaction ${spend.txid} lost its confirmations (reorg)`;
    await transitionWithdrawal(trx, w.id, to, cause, now, event);
  }

  /** Ends a confirmed withdrawal whose transaction cannot be made (funds gone, address refused) as `failed`. */
  async fail(id: bigint, reason: string): Promise<void> {
    const now = this.deps.clock();
    await this.deps.db.kysely.transaction().execute(async (trx) => {
      const w = await trx.selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      if (w.status !== 'pending' || w.spend_id !== null) return;
      const wallet = await trx.selectFrom('wallets').select('api_id').where('id', '=', w.wallet_id).executeTakeFirstOrThrow();
      const merchant = await this.deps.wallets.load(wallet.api_id, trx);
      const event = merchant ? this.event(merchant, w) : { webhook: { url: null, walletId: w.wallet_id }, payload: { withdrawal_id: w.withdrawal_id } };
      await transitionWithdrawal(trx, w.id, 'failed', reason, now, { ...event, payload: { ...event.payload, reason } }, { failure_reason: reason });
    });
  }

  /** The webhook target and payload of a withdrawal event. */
  event(merchant: PartnerMerchant, w: WithdrawalRow): { webhook: WebhookTarget; payload: Record<string, unknown> } {
    return { webhook: { url: merchant.partner.webhook_url, walletId: merchant.wallet.id }, payload: this.eventPayload(merchant, w) };
  }

  private eventPayload(merchant: PartnerMerchant, w: WithdrawalRow): Record<string, unknown> {
    return {
      ...walletEventFields(merchant),
      withdrawal_id: w.withdrawal_id,
      amount: exactNumber(w.amount),
      local_currency: w.currency,
      crypto_amount: jsonNumber(btcFromSats(w.crypto_sats)),
      settlement_address: w.settlement_address,
      tx_id: w.txid ?? '',
    };
  }

  private answer(row: WithdrawalRow, now: number): StatusAnswer {
    const status = row.status === 'quoted' && now >= Number(row.expires_at) ? 'expired' : row.status;
    return {
      withdrawal_id: row.withdrawal_id,
      withdrawal_status: status,
      crypto_amount: jsonNumber(btcFromSats(row.crypto_sats)),
      tx_id: row.txid ?? '',
      ...(row.failure_reason ? { reason: row.failure_reason } : {}),
    };
  }
}

/** Reads `amount`: a JSON number (exact), or a decimal string only when it came from the query string. */
function readAmount(value: unknown, fromQuery: boolean, currency: string): string {
  let text: string;
  if (value instanceof JsonNumber) text = numberText(value);
  else if (fromQuery && typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)) text = value;
  else if (value === undefined) throw new DomainError('invalid', 'Wrong or missing argument: amount is required');
  else throw new DomainError('invalid', 'Wrong or missing argument: amount must be a number');
  const range = amountRangeProblem(text, currency);
  if (range !== null) throw new DomainError('invalid', `Wrong or missing argument: amount ${range}`);
  let amount: string;
  try {
    amount = parseFiatAmount(text, currency);
  } catch (err) {
    if (err instanceof DecimalError || err instanceof RangeError || err instanceof ConversionError) {
      throw new DomainError('invalid', `Wrong or missing argument: amount ${text} is not a valid ${currency} amount (${err.message})`);
    }
    throw err;
  }
  if (!/[1-9]/.test(amount) || amount.startsWith('-')) throw new DomainError('invalid', 'Wrong or missing argument: amount must be positive');
  return amount;
}

/** A JSON number's plain decimal; an exponent too large to expand (1e999) is out of range, the caller's mistake. */
function numberText(value: JsonNumber): string {
  try {
    return value.toDecimal();
  } catch {
    throw new DomainError('invalid', `Wrong or missing argument: amount ${value.text.slice(0, 40)} is out of range`);
  }
}

function insufficient(available: bigint, sats: bigint, fee: bigint): DomainError {
  const avail = available < 0n ? 0n : available;
  return new DomainError(
    'invalid',
    `Wrong or missing argument: insufficient balance: ${btcFromSats(avail)} BTC confirmed and not committed to other withdrawals; ` +
      `${btcFromSats(sats + fee)} BTC needed (${btcFromSats(sats)} BTC and an estimated network fee of ${btcFromSats(fee)} BTC)`,
  );
}
