/** Operation 24: a merchant asks for a refund of (part of) a credit to one of their wallets. */
import type { Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { lockRow } from '../db/row-locks.ts';
import { DomainError } from '../core/domain-errors.ts';
import { btcFromSats, satsFromBtc } from '../money/money.ts';
import { amountRangeProblem } from '../money/amount-bounds.ts';
import { hashToken, newToken } from '../security/tokens.ts';
import type { MasterKey } from '../security/master-key.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';
import { MAX_DUST_THRESHOLD } from '../spending/tx-size.ts';
import { transitionRefund, type RefundRow } from './refund-transitions.ts';

type Trx = Transaction<Database>;

/** What op 24 answers. */
export interface RefundForm {
  refund_form_token: string;
  refund_form_url: string;
}

/** The validated body of op 24. */
export interface RefundRequestInput {
  tx_id: unknown;
  refund_amount: unknown;
}

const TXID = /^[0-9a-fA-F]{64}$/;

/** Parses `refund_amount`: a BTC decimal string, positive, at most 8 decimals, not below the largest dust threshold. */
export function parseRefundAmount(value: unknown): bigint {
  if (typeof value !== 'string') throw new DomainError('invalid', 'Wrong or missing argument: refund_amount must be a string holding a BTC amount, e.g. "0.0005"');
  const range = amountRangeProblem(value, 'BTC');
  if (range !== null) throw new DomainError('invalid', `Wrong or missing argument: refund_amount ${range}`);
  let sats: bigint;
  try {
    sats = satsFromBtc(value);
  } catch {
    throw new DomainError('invalid', 'Wrong or missing argument: refund_amount must be a decimal BTC amount with at most 8 decimals');
  }
  if (sats <= 0n) throw new DomainError('invalid', 'Wrong or missing argument: refund_amount must be positive');
  if (sats < MAX_DUST_THRESHOLD) throw new DomainError('invalid', `Wrong or missing argument: refund_amount must be at least ${btcFromSats(MAX_DUST_THRESHOLD)} BTC (smaller outputs are dust the network does not relay)`);
  return sats;
}

/** Creates a refund (or answers the one this idempotency key already made). */
export async function requestRefund(
  deps: { db: Db; masterKey: MasterKey; clock: () => number; publicUrl: string; profileWallets(profileId: bigint, trx: Trx): Promise<WalletRow[]> },
  profileId: bigint,
  input: RefundRequestInput,
  idempotencyKey: string | undefined,
): Promise<RefundForm> {
  if (typeof input.tx_id !== 'string' || !TXID.test(input.tx_id)) throw new DomainError('invalid', 'Wrong or missing argument: tx_id must be a 64-character transaction id');
  const txid = input.tx_id.toLowerCase();
  const amount = parseRefundAmount(input.refund_amount);
  const form = (token: string): RefundForm => ({ refund_form_token: token, refund_form_url: `${deps.publicUrl}/refund/${token}` });

  return deps.db.kysely.transaction().execute(async (trx) => {
    if (idempotencyKey !== undefined) {
      const again = await findByKey(trx, profileId, txid, idempotencyKey);
      if (again) return againOrConflict(again, amount, deps.masterKey, form);
    }
    const wallets = await deps.profileWallets(profileId, trx);
    const credits = wallets.length
      ? await trx
          .selectFrom('chain_outputs as o')
          .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
          .innerJoin('addresses as a', 'a.id', 'o.address_id')
          .select(['a.wallet_id', 'a.id as address_id', 'o.value_sats', 't.state'])
          .where('t.txid', '=', txid)
          .where('t.state', '!=', 'withdrawn')
          .where('a.purpose', '!=', 'change')
          .where('a.wallet_id', 'in', wallets.map((w) => w.id))
          .execute()
      : [];
    // Someone else's transaction and an unknown one read the same: nothing about other wallets leaks.
    if (credits.length === 0) throw new DomainError('invalid', 'Wrong or missing argument: tx_id is not a payment received by one of your wallets');
    const walletId = credits[0]!.wallet_id;
    const mine = credits.filter((c) => c.wallet_id === walletId);
    if (mine.some((c) => c.state !== 'block')) throw new DomainError('invalid', 'Wrong or missing argument: this payment is not confirmed yet; ask for the refund once it is');
    await lockRow(trx, deps.db, 'wallets', walletId);
    if (idempotencyKey !== undefined) {
      const again = await findByKey(trx, profileId, txid, idempotencyKey);
      if (again) return againOrConflict(again, amount, deps.masterKey, form);
    }
    const paid = mine.reduce((s, c) => s + c.value_sats, 0n);
    const requested = await refundedSats(trx, walletId, txid);
    if (amount > paid - requested) {
      throw new DomainError('invalid',
        `Wrong or missing argument: refund_amount ${btcFromSats(amount)} BTC is more than what is left to refund of this payment (${btcFromSats(paid - requested)} BTC of ${btcFromSats(paid)} BTC)`,
      );
    }
    const { token } = await insertRefund(trx, deps, { walletId, profileId, txid, amountSats: amount, idempotencyKey: idempotencyKey ?? null, addressIds: mine.map((c) => c.address_id) });
    return form(token);
  });
}

/** What {@link insertRefund} creates: a refund of `amountSats` of the credit `txid` to one wallet. */
export interface NewRefund {
  walletId: bigint;
  /** The dashboard profile that asked; 0 for a refund asked through the Greenfield API (see greenfield_pull_payments). */
  profileId: bigint;
  txid: string;
  amountSats: bigint;
  idempotencyKey: string | null;
  /** The addresses the credit paid, where the payer's e-mail is looked up. */
  addressIds: bigint[];
  /** The refunded payment (a Greenfield invoice), when known: its own payer is the only one mailed. */
  paymentId?: bigint;
}

/**
 * Inserts a refund awaiting the payer's address, records its creation (mailing the payer the form link when an
 * e-mail is known) and answers its form token and URL. The caller has checked ownership and the refundable
 * amount, and holds the wallet's row lock.
 */
export async function insertRefund(
  trx: Trx,
  deps: { masterKey: MasterKey; clock: () => number; publicUrl: string },
  spec: NewRefund,
): Promise<{ token: string; url: string; row: RefundRow }> {
  const token = newToken(24);
  const url = `${deps.publicUrl}/refund/${token}`;
  const now = deps.clock();
  const row = await trx
    .insertInto('refunds')
    .values({
      wallet_id: spec.walletId,
      profile_id: spec.profileId,
      credit_txid: spec.txid,
      amount_sats: spec.amountSats,
      token_hash: hashToken(token),
      token_sealed: deps.masterKey.seal(token),
      idempotency_key: spec.idempotencyKey,
      payer_email: await payerEmail(trx, spec),
      address: null,
      script_hex: null,
      state: 'awaiting_address',
      spend_id: null,
      last_error: null,
      created_at: BigInt(now),
      updated_at: BigInt(now),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await transitionRefund(trx, row, 'awaiting_address', 'requested', now, { formUrl: url, masterKey: deps.masterKey });
  return { token, url, row };
}

/** Satoshis of a credit transaction to a wallet already asked back by refunds. */
export async function refundedSats(trx: Trx, walletId: bigint, txid: string): Promise<bigint> {
  const already = await trx
    .selectFrom('refunds')
    .select((eb) => eb.fn.sum<bigint | string | null>('amount_sats').as('total'))
    .where('wallet_id', '=', walletId)
    .where('credit_txid', '=', txid)
    .executeTakeFirst();
  return already?.total === null || already?.total === undefined ? 0n : BigInt(already.total);
}

async function findByKey(trx: Trx, profileId: bigint, txid: string, key: string): Promise<RefundRow | undefined> {
  return trx.selectFrom('refunds').selectAll().where('profile_id', '=', profileId).where('credit_txid', '=', txid).where('idempotency_key', '=', key).executeTakeFirst();
}

function againOrConflict(row: RefundRow, amount: bigint, masterKey: MasterKey, form: (t: string) => RefundForm): RefundForm {
  if (row.amount_sats !== amount) throw new DomainError('invalid', 'Wrong or missing argument: this Idempotency-Key was already used for a refund of another amount');
  return form(masterKey.unseal(row.token_sealed).toString('utf8'));
}

/**
 * Who is mailed the refund link (whoever holds it chooses where the refund goes): the refunded payment's own payer
 * when the refund names one; otherwise the one e-mail that every payment, form and order on the credit's addresses
 * agrees on. A credit whose addresses serve more than one buyer (a batched payment of two invoices, an order address
 * reused after expiry) names no single payer, so nobody is mailed and the merchant hands the link over.
 */
async function payerEmail(trx: Trx, spec: Pick<NewRefund, 'addressIds' | 'paymentId' | 'txid'>): Promise<string | null> {
  if (spec.paymentId !== undefined) {
    const own = await trx.selectFrom('payments').select('request_json').where('id', '=', spec.paymentId).executeTakeFirst();
    return own ? storedPayerEmail(own.request_json) : null;
  }
  const ids = spec.addressIds;
  if (ids.length === 0) return null;
  const emails = new Set<string | null>();
  for (const p of await trx.selectFrom('payments').select('request_json').where('address_id', 'in', ids).execute()) emails.add(storedPayerEmail(p.request_json));
  // A payment form's payer gave (or the merchant prefilled) user_email; a set_addr order its return_email. Where an
  // address served several of them, those whose last report named this transaction are the ones it paid.
  const forms = await trx.selectFrom('payment_forms').select(['user_email as email', 'tx_snapshot_json']).where('address_id', 'in', ids).execute();
  const orders = await trx.selectFrom('address_orders').select(['return_email as email', 'tx_snapshot_json']).where('address_id', 'in', ids).execute();
  for (const group of [forms, orders]) {
    const reported = group.filter((o) => snapshotNames(o.tx_snapshot_json, spec.txid));
    for (const o of reported.length > 0 ? reported : group) emails.add(o.email);
  }
  return emails.size === 1 ? ([...emails][0] ?? null) : null;
}

/** The payer e-mail of a stored payment request, if it gave one. */
function storedPayerEmail(requestJson: string): string | null {
  try {
    const req = JSON.parse(requestJson) as { payer_email?: unknown };
    return typeof req.payer_email === 'string' && req.payer_email.includes('@') ? req.payer_email : null;
  } catch {
    // An unreadable stored request has no e-mail to offer.
    return null;
  }
}

/** Whether an order's last reported transactions (txid → confirmed) include the txid. */
function snapshotNames(snapshotJson: string | null, txid: string): boolean {
  if (snapshotJson === null) return false;
  try {
    const snapshot = JSON.parse(snapshotJson) as unknown;
    return typeof snapshot === 'object' && snapshot !== null && !Array.isArray(snapshot) && Object.hasOwn(snapshot, txid);
  } catch {
    return false;
  }
}
