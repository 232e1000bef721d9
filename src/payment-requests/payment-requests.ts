// Payment requests (issue 36): an amount owed in fiat or BTC, paid in one or several parts. Each part is an
// ordinary payment of payment API v1, created through the payments capability's one creation path (its own rate
// lock at the moment it is asked for, its own address and statuses); the request only links them. Its status is
// derived from its parts and its due date every time it is read, so it cannot drift from the payments.
import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database, PaymentRequestsTable, WalletsTable } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import { DomainError, type FieldProblem } from '../core/domain-errors.ts';
import { PAYMENT_STATUS_GROUPS } from '../core/payment-statuses.ts';
import type { Payments } from '../payments/payments.ts';
import { pagePaymentRequest } from '../payments/payment-record.ts';
import { cryptoCurrencyOf } from '../payments/payment-request.ts';
import { addDecimals, compareDecimals, parseDecimal, trimDecimal, unitsToString } from '../money/decimal.ts';
import { btcFromSats } from '../money/money.ts';
import { isIso4217, orderMinorUnits } from '../money/currencies.ts';
import { amountRangeProblem } from '../money/amount-bounds.ts';
import { isEmail } from '../wallets/field-rules.ts';
import type { Transaction } from 'kysely';
import type { MasterKey } from '../security/master-key.ts';
import type { ChainChange } from '../chain/chain-events.ts';
import { enqueueNotifications } from '../notify/outbox.ts';
import { sealedMailPayload } from '../notify/sealed-mail.ts';
import { mailLanguage, mailMessagesFor } from '../i18n/mail-messages.ts';

export type RequestRow = Selectable<PaymentRequestsTable>;
type WalletRow = Selectable<WalletsTable>;

/** The three statuses of a request (BTCPay's names). */
export type RequestStatus = 'Pending' | 'Completed' | 'Expired';

export const MAX_TITLE = 200;
export const MAX_DESCRIPTION = 5000;

/** A new unguessable request id: `req_` and 24 base32 characters (120 random bits). */
export function newRequestId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let out = 'req_';
  for (const b of randomBytes(24)) out += alphabet[b & 31];
  return out;
}

/** The fields of a request as a face read them (amount as decimal text, due date in epoch ms). */
export interface RequestFields {
  amount: string | null;
  currency: string | null;
  title: string | null;
  description: string | null;
  dueAt: number | null;
  payerEmail: string | null;
  allowPartial: boolean;
}

/** A checked request: currency upper-case, amount without superfluous zeros. */
export interface CheckedFields extends RequestFields {
  amount: string;
  currency: string;
  title: string;
}

/** Checks the fields; every problem at once, named by the field names of {@link RequestFields}. */
export function checkRequestFields(f: RequestFields, hasRate: (code: string) => boolean): { ok: true; fields: CheckedFields } | { ok: false; errors: FieldProblem[] } {
  const errors: FieldProblem[] = [];
  const bad = (field: string, message: string) => errors.push({ field, message });
  let currency: string | null = null;
  if (f.currency === null || f.currency === '') bad('currency', 'is required');
  else {
    const upper = f.currency.toUpperCase();
    if (upper === 'BTC') currency = upper;
    else if (!/^[A-Z]{3}$/.test(upper) || !isIso4217(upper)) bad('currency', 'must be BTC or a 3-letter ISO 4217 currency code');
    else if (!hasRate(upper)) bad('currency', `${upper} has no exchange rate on this server`);
    else currency = upper;
  }
  let amount: string | null = null;
  if (f.amount === null || f.amount === '') bad('amount', 'is required');
  else {
    const problem = amountProblem(f.amount, currency);
    if (problem !== null) bad('amount', problem);
    else amount = stripZeros(f.amount);
  }
  const title = f.title?.trim() ?? '';
  if (title === '') bad('title', 'is required');
  else if (title.length > MAX_TITLE) bad('title', `must be at most ${MAX_TITLE} characters`);
  if (f.description !== null && f.description.length > MAX_DESCRIPTION) bad('description', `must be at most ${MAX_DESCRIPTION} characters`);
  if (f.dueAt !== null && (!Number.isSafeInteger(f.dueAt) || f.dueAt <= 0)) bad('dueAt', 'must be a date');
  if (f.payerEmail !== null && f.payerEmail !== '' && !isEmail(f.payerEmail)) bad('payerEmail', 'must be an e-mail address');
  if (errors.length > 0 || amount === null || currency === null) return { ok: false, errors };
  return {
    ok: true,
    fields: {
      amount,
      currency,
      title,
      description: f.description === null || f.description.trim() === '' ? null : f.description,
      dueAt: f.dueAt,
      payerEmail: f.payerEmail === null || f.payerEmail === '' ? null : f.payerEmail,
      allowPartial: f.allowPartial,
    },
  };
}

/** Why `text` is not a positive amount of `currency` (null when it is; currency null checks the form only). */
export function amountProblem(text: string, currency: string | null): string | null {
  if (!/^\d+(\.\d+)?$/.test(text)) return 'must be a positive decimal number, like "12.50"';
  if (/^0+(\.0+)?$/.test(text)) return 'must be positive';
  if (currency === null) return null;
  const range = amountRangeProblem(text, currency);
  if (range !== null) return range;
  const decimals = orderMinorUnits(currency);
  const frac = text.split('.')[1] ?? '';
  if (frac.replace(/0+$/, '').length > decimals) return `must have at most ${decimals} decimal places for ${currency}`;
  return null;
}

/** One part of a request as its page and the APIs show it. */
export interface RequestPart {
  reference: string;
  /** What the part asked, in the request's currency. */
  amount: string;
  /** The payment's status (payment API v1). */
  paymentStatus: string;
  /** The rate the part was priced at (order currency per BTC), and its BTC amount. */
  rate: string;
  btc: string;
  createdAt: number;
  /** Whether the part counts as paid (the full amount seen) and as settled (confirmed). */
  paid: boolean;
  settled: boolean;
}

/** A request with its parts and what they add up to. */
export interface RequestView {
  row: RequestRow;
  storeId: string;
  status: RequestStatus;
  parts: RequestPart[];
  /** Sum of the parts whose full amount was seen (confirmed or not). */
  paid: string;
  /** Sum of the confirmed parts (what Completed is decided on). */
  settled: string;
  /** What is left to pay: the amount less what was paid, never below zero. */
  due: string;
}

/** What the service needs. */
export interface PaymentRequestsDeps {
  db: Db;
  clock: Clock;
  payments: Payments;
  isSupportedCurrency(code: string): boolean;
  /** Seals the payer's mail (it holds the request's link, whose id is its only secret). */
  masterKey: MasterKey;
  /** The service's public address (the payer's link). */
  publicUrl: string;
}

/** The outbox event name of the payer's "paid in full" mail. */
export const REQUEST_COMPLETED_MAIL = 'payment_request_completed';

/** Text on one line: no control characters (a subject must not carry a header break). */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

/** The outbox event name of the mail telling the payer about a new request. */
export const REQUEST_CREATED_MAIL = 'payment_request_created';

/** The payer's mail about a new request, plain text in `language` (a supported tag; else English). */
export function renderRequestMail(row: RequestRow, url: string, language: string | null): { subject: string; text: string } {
  const m = mailMessagesFor(mailLanguage(language));
  const line = (text: string) => text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const amount = `${row.currency === 'BTC' ? m.crypto(row.amount) : m.fiat(row.amount, row.currency)} ${row.currency}`;
  const lines = [
    m.t('request.intro', { title: line(row.title) }),
    '',
    ...(row.description !== null ? [row.description, ''] : []),
    m.t('request.amount', { amount }),
    ...(row.due_at !== null ? [m.t('request.dueBy', { date: new Intl.DateTimeFormat(m.lang, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(Number(row.due_at))) })] : []),
    '',
    m.t('request.payHere', { url }),
    '',
    m.t('request.why'),
  ];
  // A subject is one header line whatever a title or a translation holds.
  return { subject: line(m.t('request.subject', { title: line(row.title) })), text: `${lines.join('\n')}\n` };
}

type Trx = Transaction<Database>;
type Listener = (trx: Trx, view: RequestView, event: 'created' | 'completed') => Promise<void>;

const notFound = () => new DomainError('not-found', 'No such payment request.');

/** Why a request cannot be paid now (archived, expired, paid), or undefined: BTCPay's error codes. */
export function unpayable(view: RequestView): { code: 'archived' | 'expired' | 'already-paid'; message: string } | undefined {
  if (view.row.archived_at !== null) return { code: 'archived', message: 'This payment request was withdrawn and can no longer be paid.' };
  if (view.status === 'Expired') return { code: 'expired', message: 'This payment request has expired and can no longer be paid.' };
  if (view.status === 'Completed' || compareDecimals(view.due, '0') <= 0) return { code: 'already-paid', message: 'This payment request is already paid.' };
  return undefined;
}

/**
 * The part a payer may pay now: `amount` null (or empty) is what is due; otherwise a part, only when partial
 * payments are allowed and never more than what is due. Refused ('gone') when the request cannot be paid.
 */
export function partToPay(view: RequestView, amount: string | null): string {
  const refused = unpayable(view);
  if (refused) throw new DomainError('gone', refused.message);
  if (amount === null || amount === '') return view.due;
  const problem = amountProblem(amount, view.row.currency);
  if (problem !== null) throw new DomainError('invalid-fields', 'The amount is not valid.', [{ field: 'amount', message: problem }]);
  const asked = stripZeros(amount);
  if (compareDecimals(asked, view.due) > 0) throw new DomainError('invalid-fields', 'The amount is not valid.', [{ field: 'amount', message: `must be at most the amount due, ${view.due} ${view.row.currency}` }]);
  if (compareDecimals(asked, view.due) !== 0 && Number(view.row.allow_partial) !== 1) {
    throw new DomainError('invalid-fields', 'The amount is not valid.', [{ field: 'amount', message: 'this request is paid in full only' }]);
  }
  return asked;
}

/** Payment requests of the wallets. */
export class PaymentRequests {
  private readonly listeners: Listener[] = [];

  constructor(private readonly deps: PaymentRequestsDeps) {}

  /** Runs in the transaction that creates a request, and in the one that first reads it Completed (the mails). */
  onEvent(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** Creates a request for a wallet; bad fields are refused with nothing stored. */
  async create(wallet: WalletRow, fields: RequestFields): Promise<RequestView> {
    const checked = this.check(fields);
    const now = this.deps.clock();
    return this.deps.db.kysely.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('payment_requests')
        .values({
          request_id: newRequestId(),
          wallet_id: wallet.id,
          amount: checked.amount,
          currency: checked.currency,
          title: checked.title,
          description: checked.description,
          due_at: checked.dueAt === null ? null : BigInt(checked.dueAt),
          payer_email: checked.payerEmail,
          allow_partial: checked.allowPartial ? 1n : 0n,
          created_at: BigInt(now),
          updated_at: BigInt(now),
          archived_at: null,
          completed_mail_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const view = await this.viewOf(row, wallet.api_id, trx);
      // Durable before visible: the payer's mail is in the outbox exactly when the request exists.
      if (row.payer_email !== null) {
        const url = `${this.deps.publicUrl.replace(/\/$/, '')}/request/${row.request_id}`;
        const message = renderRequestMail(row, url, wallet.default_language ?? null);
        await enqueueNotifications(trx, [{ kind: 'email', target: row.payer_email, payload: sealedMailPayload(this.deps.masterKey, REQUEST_CREATED_MAIL, message), walletId: wallet.id, paymentId: null }], now);
      }
      for (const listener of this.listeners) await listener(trx, view, 'created');
      return view;
    });
  }

  /** Replaces a request's fields. Its currency cannot change once a part was asked for (the parts are in it). */
  async update(wallet: WalletRow, requestId: string, fields: RequestFields): Promise<RequestView> {
    const checked = this.check(fields);
    const row = await this.rowOf(wallet.id, requestId);
    const parts = await this.deps.db.kysely.selectFrom('payment_request_parts').select('payment_id').where('request_row_id', '=', row.id).limit(1).execute();
    if (parts.length > 0 && checked.currency !== row.currency) {
      throw new DomainError('invalid-fields', 'The payment request has invalid fields.', [{ field: 'currency', message: 'cannot change once a part was asked for' }]);
    }
    const updated = await this.deps.db.kysely
      .updateTable('payment_requests')
      .set({
        amount: checked.amount,
        currency: checked.currency,
        title: checked.title,
        description: checked.description,
        due_at: checked.dueAt === null ? null : BigInt(checked.dueAt),
        payer_email: checked.payerEmail,
        allow_partial: checked.allowPartial ? 1n : 0n,
        updated_at: BigInt(this.deps.clock()),
      })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.viewOf(updated, wallet.api_id);
  }

  /** Archives a request: hidden from lists and its page refuses payment; its parts and payments stay. */
  async archive(wallet: WalletRow, requestId: string): Promise<void> {
    const row = await this.rowOf(wallet.id, requestId);
    if (row.archived_at !== null) return;
    await this.deps.db.kysely.updateTable('payment_requests').set({ archived_at: BigInt(this.deps.clock()) }).where('id', '=', row.id).execute();
  }

  /** A wallet's requests, newest first (archived ones only when asked). */
  async list(wallet: WalletRow, includeArchived: boolean): Promise<RequestView[]> {
    let q = this.deps.db.kysely.selectFrom('payment_requests').selectAll().where('wallet_id', '=', wallet.id);
    if (!includeArchived) q = q.where('archived_at', 'is', null);
    const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    const views: RequestView[] = [];
    for (const row of rows) views.push(await this.viewOf(row, wallet.api_id));
    return views;
  }

  /** One request of a wallet; another wallet's request is not found, like an unknown id. */
  async get(wallet: WalletRow, requestId: string): Promise<RequestView> {
    return this.viewOf(await this.rowOf(wallet.id, requestId), wallet.api_id);
  }

  /** A request by its public id (the payer's page), archived ones too (the page says so); undefined when unknown. */
  async publicView(requestId: string): Promise<{ view: RequestView; wallet: WalletRow } | undefined> {
    const row = await this.deps.db.kysely.selectFrom('payment_requests').selectAll().where('request_id', '=', requestId).executeTakeFirst();
    if (!row) return undefined;
    const wallet = await this.deps.db.kysely.selectFrom('wallets').selectAll().where('id', '=', row.wallet_id).executeTakeFirstOrThrow();
    return { view: await this.viewOf(row, wallet.api_id), wallet };
  }

  /**
   * The payer asks to pay: `amount` null pays what is due, otherwise a part (only when partial payments are
   * allowed, and never more than what is due). Creates the part's payment at the rate of this moment and answers
   * its reference (the hosted page). Refused when the request is completed, expired or archived.
   */
  async pay(requestId: string, amount: string | null): Promise<string> {
    const found = await this.publicView(requestId);
    if (!found) throw notFound();
    const { view, wallet } = found;
    const part = partToPay(view, amount);
    const now = this.deps.clock();
    const stored = pagePaymentRequest(`payment-request:${view.row.request_id}`, { payer_email: view.row.payer_email });
    const service = this.deps.payments.service;
    const created = await this.deps.db.kysely.transaction().execute(async (trx) => {
      const { row, address } = await service.insertPayment(trx, {
        wallet,
        clientRowId: null,
        type: 'hosted',
        cryptoCurrency: cryptoCurrencyOf(wallet.api_id) ?? 'BTC',
        orderCurrency: view.row.currency,
        orderAmount: part,
        stored,
        now,
        // The page is public to whoever has its link: a part takes an address only within the wallet's gap limit.
        withinGapLimit: true,
      });
      await trx.insertInto('payment_request_parts').values({ payment_id: row.id, request_row_id: view.row.id, amount: part, created_at: BigInt(now) }).execute();
      return { row, address };
    });
    service.watchCreated(wallet.id, wallet.mode, created.address);
    return created.row.reference;
  }

  /**
   * Chain listener, after the payments' status machine (it reads the statuses just written, in the same
   * transaction): a request whose parts make it Completed queues the payer's "paid in full" mail, once.
   */
  readonly onChainChange = async (trx: Trx, change: ChainChange): Promise<void> => {
    if (change.addressIds.size === 0) return;
    const rows = await trx
      .selectFrom('payment_requests as r')
      .innerJoin('payment_request_parts as x', 'x.request_row_id', 'r.id')
      .innerJoin('payments as p', 'p.id', 'x.payment_id')
      .innerJoin('wallets as w', 'w.id', 'r.wallet_id')
      .selectAll('r')
      .select(['w.api_id as store_id', 'w.default_language as wallet_language'])
      .where('p.address_id', 'in', [...change.addressIds])
      .where('r.completed_mail_at', 'is', null)
      .where('r.payer_email', 'is not', null)
      .execute();
    const seen = new Set<bigint>();
    for (const { store_id, wallet_language, ...row } of rows) {
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      const view = await this.viewOf(row, store_id, trx);
      if (view.status !== 'Completed') continue;
      const m = mailMessagesFor(mailLanguage(wallet_language));
      const title = oneLine(row.title);
      const url = `${this.deps.publicUrl.replace(/\/$/, '')}/request/${row.request_id}`;
      const message = { subject: oneLine(m.t('request.paidSubject', { title })), text: `${m.t('request.paidText', { title })}\n\n${m.t('request.payHere', { url })}\n` };
      await enqueueNotifications(trx, [{ kind: 'email', target: row.payer_email!, payload: sealedMailPayload(this.deps.masterKey, REQUEST_COMPLETED_MAIL, message), walletId: row.wallet_id, paymentId: null }], change.now);
      await trx.updateTable('payment_requests').set({ completed_mail_at: BigInt(change.now) }).where('id', '=', row.id).execute();
      for (const listener of this.listeners) await listener(trx, view, 'completed');
    }
  };

  /** Reads a request's parts and derives its status. */
  async viewOf(row: RequestRow, storeId: string, trx?: Trx): Promise<RequestView> {
    const db = trx ?? this.deps.db.kysely;
    const rows = await db
      .selectFrom('payment_request_parts as r')
      .innerJoin('payments as p', 'p.id', 'r.payment_id')
      .select(['p.reference', 'r.amount', 'p.status', 'p.exchange_rate', 'p.crypto_sats', 'r.created_at'])
      .where('r.request_row_id', '=', row.id)
      .orderBy('r.created_at')
      .orderBy('r.payment_id')
      .execute();
    const paidStatuses: readonly string[] = PAYMENT_STATUS_GROUPS.paidInFull;
    const parts: RequestPart[] = rows.map((r) => ({
      reference: r.reference,
      amount: r.amount,
      paymentStatus: r.status,
      rate: r.exchange_rate,
      btc: btcFromSats(BigInt(r.crypto_sats)),
      createdAt: Number(r.created_at),
      paid: paidStatuses.includes(r.status),
      settled: r.status === 'confirmed' || r.status === 'confirmed-more',
    }));
    const paid = parts.filter((p) => p.paid).reduce((sum, p) => addDecimals(sum, p.amount), '0');
    const settled = parts.filter((p) => p.settled).reduce((sum, p) => addDecimals(sum, p.amount), '0');
    const due = compareDecimals(paid, row.amount) >= 0 ? '0' : subtract(row.amount, paid);
    const completed = compareDecimals(settled, row.amount) >= 0;
    const expired = !completed && row.due_at !== null && this.deps.clock() >= Number(row.due_at);
    return { row, storeId, status: completed ? 'Completed' : expired ? 'Expired' : 'Pending', parts, paid, settled, due: stripZeros(due) };
  }

  private check(fields: RequestFields): CheckedFields {
    const checked = checkRequestFields(fields, (code) => this.deps.isSupportedCurrency(code));
    if (!checked.ok) throw new DomainError('invalid-fields', 'The payment request has invalid fields.', checked.errors);
    return checked.fields;
  }

  private async rowOf(walletId: bigint, requestId: string): Promise<RequestRow> {
    const row = await this.deps.db.kysely.selectFrom('payment_requests').selectAll().where('request_id', '=', requestId).executeTakeFirst();
    if (!row || row.wallet_id !== walletId) throw notFound();
    return row;
  }
}

/** a − b for decimal strings with a ≥ b (both non-negative), exactly. */
function subtract(a: string, b: string): string {
  const limits = { maxIntegerDigits: 60, maxFractionDigits: 60 };
  const x = parseDecimal(a, limits);
  const y = parseDecimal(b, limits);
  const scale = Math.max(x.scale, y.scale);
  return trimDecimal(unitsToString(x.units * 10n ** BigInt(scale - x.scale) - y.units * 10n ** BigInt(scale - y.scale), scale));
}

/** "12.500" → "12.5", "10.00" → "10", "007" → "7". */
function stripZeros(text: string): string {
  let [i = '0', f = ''] = text.split('.');
  i = i.replace(/^0+(?=\d)/, '');
  f = f.replace(/0+$/, '');
  return f === '' ? i : `${i}.${f}`;
}
