// Greenfield invoices over payment API v1: creating one creates a payment through the payments capability's one
// creation path (rate lock, address issuance, creation transition) and the invoice row in the same transaction;
// reading one derives its Greenfield status from the payment by the one mapping (status-map.ts).
import { randomBytes } from 'node:crypto';
import type { Selectable, Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database, WalletsTable } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import type { Payments } from '../payments/payments.ts';
import type { PaymentRow, StoredRequest } from '../payments/payment-record.ts';
import type { PaymentStatus } from '../core/payment-statuses.ts';
import { isJsonObject, JsonNumber, type JsonObject, type JsonValue } from '../money/exact-json.ts';
import { canonicalJson } from '../money/canonical-json.ts';
import { compareDecimals, addDecimals, multiplyDecimals } from '../money/decimal.ts';
import { isEmail } from '../wallets/field-rules.ts';
import { confirmations } from '../wallets/address-activity.ts';
import { cryptoCurrencyOf } from '../payments/payment-request.ts';
import { checkInvoiceRequest, DEFAULT_EXPIRATION_MINUTES, SPEED_POLICIES, type InvoiceRequest, type SpeedPolicy } from './invoice-request.ts';
import { invoiceJson, paymentMethodJson, type InvoiceOutput, type InvoiceRow, type StoredCheckout } from './invoice-json.ts';
import { greenfieldStatus, type GreenfieldStatusPair, type StatusFacts } from './status-map.ts';
import { GreenfieldError, GreenfieldValidationError, invoiceNotFound } from './errors.ts';

type Trx = Transaction<Database>;
type WalletRow = Selectable<WalletsTable>;

/** A new opaque invoice id: 24 characters of an unambiguous 32-letter alphabet (120 random bits). */
export function newInvoiceId(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  let out = '';
  for (const b of randomBytes(24)) out += alphabet[b & 31];
  return out;
}

/** The speed policy a wallet's own confirmation count corresponds to (the store's default). */
export function speedPolicyOf(confirmationsNeeded: number): SpeedPolicy {
  if (confirmationsNeeded <= 0) return 'HighSpeed';
  if (confirmationsNeeded === 1) return 'MediumSpeed';
  if (confirmationsNeeded < 6) return 'LowMediumSpeed';
  return 'LowSpeed';
}

/** Everything about one invoice that its answers are written from. */
export interface InvoiceView {
  invoice: InvoiceRow;
  payment: PaymentRow;
  wallet: WalletRow;
  address: string;
  outputs: InvoiceOutput[];
  required: number;
  facts: StatusFacts;
  status: GreenfieldStatusPair;
}

/** What the invoices need. */
export interface GreenfieldInvoicesDeps {
  db: Db;
  clock: Clock;
  config: { publicUrl: string; monitorWindowMs: number };
  payments: Payments;
  isSupportedCurrency(code: string): boolean;
}

/** Listing filters of GET …/invoices. */
export interface InvoiceListQuery {
  orderIds: string[];
  statuses: string[];
  skip: number;
  take: number | null;
  startDate: number | null;
  endDate: number | null;
  /** Whether archived invoices are listed too (BTCPay's includeArchived; default false). */
  includeArchived: boolean;
}

/** Greenfield invoices of the stores. */
export class GreenfieldInvoices {
  constructor(private readonly deps: GreenfieldInvoicesDeps) {}

  /**
   * POST …/invoices: validates, then creates the payment and the invoice in one transaction (with `inTransaction`'s
   * work, e.g. the part of a payment request it pays).
   */
  async create(
    wallet: WalletRow,
    body: JsonValue | undefined,
    keyId: string | null,
    inTransaction?: (trx: Trx, payment: PaymentRow) => Promise<void>,
  ): Promise<Record<string, unknown>> {
    const { deps } = this;
    const checked = checkInvoiceRequest(body, wallet.local_currency.toUpperCase(), (code) => deps.isSupportedCurrency(code));
    if (!checked.ok) throw new GreenfieldValidationError(checked.errors);
    const req = checked.request;
    const now = deps.clock();
    const walletConfirmations = Number(wallet.required_confirmations);
    const expirationMinutes = req.expirationMinutes ?? DEFAULT_EXPIRATION_MINUTES;
    const expiresInMs = expirationMinutes * 60_000;
    // Monitoring runs from expiry, as in BTCPay; without it, our configured window (never shorter than the expiry).
    const monitorUntil =
      req.monitoringMinutes !== null ? now + expiresInMs + req.monitoringMinutes * 60_000 : Math.max(now + deps.config.monitorWindowMs, now + expiresInMs);
    const checkout: StoredCheckout = {
      speedPolicy: req.speedPolicy ?? speedPolicyOf(walletConfirmations),
      expirationMinutes,
      monitoringMinutes: Math.round((monitorUntil - now - expiresInMs) / 60_000),
      paymentTolerance: req.paymentTolerance ?? '0',
      redirectURL: req.redirectURL,
      redirectAutomatically: req.redirectAutomatically ?? false,
      defaultLanguage: req.defaultLanguage,
      requiresRefundEmail: req.requiresRefundEmail ?? false,
    };
    const invoiceId = newInvoiceId();
    const stored: StoredRequest = {
      notify_email: null,
      notify_url: null,
      webhook_data_json: null,
      cart_json: null,
      success_url: req.redirectURL,
      cancel_url: null,
      payer_id: req.buyerEmail ?? `greenfield:${invoiceId}`,
      payer_name: req.buyerName !== null && req.buyerName.length <= 256 ? req.buyerName : null,
      payer_email: req.buyerEmail !== null && isEmail(req.buyerEmail) ? req.buyerEmail : null,
      payer_phone: null,
      payer_ip: null,
    };
    const crypto = cryptoCurrencyOf(wallet.api_id) ?? 'BTC';
    const service = deps.payments.service;
    const created = await deps.db.kysely.transaction().execute(async (trx) => {
      const { row, address } = await service.insertPayment(trx, {
        wallet,
        clientRowId: null,
        type: 'hosted',
        cryptoCurrency: crypto,
        orderCurrency: req.orderCurrency,
        orderAmount: req.orderAmount,
        stored,
        now,
        expiresInMs,
        monitorUntil,
        ...(req.speedPolicy !== null ? { requiredConfirmations: SPEED_POLICIES[req.speedPolicy] } : {}),
      });
      const invoice = await trx
        .insertInto('greenfield_invoices')
        .values({
          invoice_id: invoiceId,
          payment_id: row.id,
          wallet_id: wallet.id,
          store_id: wallet.api_id,
          order_id: req.orderId,
          amount: req.amount,
          currency: req.currency,
          metadata_json: req.metadataJson,
          checkout_json: JSON.stringify(checkout),
          payment_tolerance: checkout.paymentTolerance,
          manual_status: null,
          manual_at: null,
          created_by_key: keyId,
          created_at: BigInt(now),
          default_language: req.pageLanguage,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (inTransaction) await inTransaction(trx, row);
      for (const listener of this.createdListeners) await listener(trx, invoice, row);
      return { row, address, invoice };
    });
    service.watchCreated(wallet.id, wallet.mode, created.address);
    const view = await this.viewOf(created.invoice, created.row, wallet, created.address.address);
    return this.json(view);
  }

  /**
   * Makes a payment created elsewhere (a point of sale's charge, in its creating transaction) a Greenfield invoice
   * of its store, with BTCPay's app metadata: listed, read and announced (InvoiceCreated, then the status events) as
   * any invoice. The checkout is the store's default; the expiry is the payment's own rate guarantee.
   */
  async recordAppInvoice(trx: Trx, wallet: WalletRow, payment: PaymentRow, metadata: JsonObject): Promise<void> {
    const created = Number(payment.created_at);
    const expirationMinutes = Math.max(1, Math.round((Number(payment.expiry_at) - created) / 60_000));
    const checkout: StoredCheckout = {
      speedPolicy: speedPolicyOf(Number(wallet.required_confirmations)),
      expirationMinutes,
      monitoringMinutes: Math.max(0, Math.round((Number(payment.monitor_until) - Number(payment.expiry_at)) / 60_000)),
      paymentTolerance: '0',
      redirectURL: null,
      redirectAutomatically: false,
      defaultLanguage: null,
      requiresRefundEmail: false,
    };
    const orderId = typeof metadata.orderId === 'string' ? metadata.orderId : null;
    const invoice = await trx
      .insertInto('greenfield_invoices')
      .values({
        invoice_id: newInvoiceId(),
        payment_id: payment.id,
        wallet_id: wallet.id,
        store_id: wallet.api_id,
        order_id: orderId,
        amount: payment.order_amount,
        currency: payment.order_currency,
        metadata_json: canonicalJson(metadata),
        checkout_json: JSON.stringify(checkout),
        payment_tolerance: '0',
        manual_status: null,
        manual_at: null,
        created_by_key: null,
        created_at: BigInt(created),
        default_language: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    for (const listener of this.createdListeners) await listener(trx, invoice, payment);
  }

  private readonly createdListeners: Array<(trx: Trx, invoice: InvoiceRow, payment: PaymentRow) => Promise<void>> = [];

  /** Runs in the creating transaction of every invoice (gf-hooks queues InvoiceCreated there). */
  onCreated(listener: (trx: Trx, invoice: InvoiceRow, payment: PaymentRow) => Promise<void>): void {
    this.createdListeners.push(listener);
  }

  private readonly markedListeners: Array<(trx: Trx, view: InvoiceView, from: GreenfieldStatusPair) => Promise<void>> = [];

  /** Runs in the transaction of every manual marking, with the view after it. */
  onMarked(listener: (trx: Trx, view: InvoiceView, from: GreenfieldStatusPair) => Promise<void>): void {
    this.markedListeners.push(listener);
  }

  /** The invoices paying parts of a payment request (by its row id), newest first. */
  async partInvoices(requestRowId: bigint): Promise<InvoiceRow[]> {
    return this.deps.db.kysely
      .selectFrom('greenfield_invoices as g')
      .innerJoin('payment_request_parts as x', 'x.payment_id', 'g.payment_id')
      .selectAll('g')
      .where('x.request_row_id', '=', requestRowId)
      .orderBy('g.id', 'desc')
      .execute();
  }

  /** The payment reference of an invoice id (the checkout link's redirect), undefined when unknown. */
  async referenceOf(invoiceId: string): Promise<string | undefined> {
    const row = await this.deps.db.kysely
      .selectFrom('greenfield_invoices as g')
      .innerJoin('payments as p', 'p.id', 'g.payment_id')
      .select('p.reference')
      .where('g.invoice_id', '=', invoiceId)
      .executeTakeFirst();
    return row?.reference;
  }

  /** The invoice JSON of a view. */
  json(view: InvoiceView): Record<string, unknown> {
    return invoiceJson(view.invoice, view.payment, view.status, this.deps.config.publicUrl);
  }

  /** The payment-methods JSON of a view (an array of one). */
  paymentMethodsJson(view: InvoiceView): Record<string, unknown>[] {
    return [paymentMethodJson(view.payment, view.address, view.outputs, view.required)];
  }

  /** GET …/invoices/{id} of a store; 404 for an unknown id and for another store's invoice alike. */
  async get(storeId: string, invoiceId: string): Promise<InvoiceView> {
    const row = await this.deps.db.kysely.selectFrom('greenfield_invoices').selectAll().where('invoice_id', '=', invoiceId).executeTakeFirst();
    if (!row || row.store_id !== storeId) throw invoiceNotFound();
    return this.view(row);
  }

  /** The view of an invoice row, reading through the payment service (which applies the monitoring window first). */
  async view(row: InvoiceRow, trx?: Trx): Promise<InvoiceView> {
    const db = trx ?? this.deps.db.kysely;
    const ref = await db.selectFrom('payments').select('reference').where('id', '=', row.payment_id).executeTakeFirstOrThrow();
    let payment: PaymentRow;
    let address: string;
    if (trx) {
      payment = await trx.selectFrom('payments').selectAll().where('id', '=', row.payment_id).executeTakeFirstOrThrow();
      address = (await trx.selectFrom('addresses').select('address').where('id', '=', payment.address_id).executeTakeFirstOrThrow()).address;
    } else {
      const loaded = await this.deps.payments.service.load(ref.reference);
      if (!loaded) throw invoiceNotFound();
      payment = loaded.row;
      address = loaded.ctx.address;
    }
    const wallet = await db.selectFrom('wallets').selectAll().where('id', '=', row.wallet_id).executeTakeFirstOrThrow();
    return this.viewOf(row, payment, wallet, address, trx);
  }

  /** Gathers outputs and facts, and maps the status. */
  async viewOf(invoice: InvoiceRow, payment: PaymentRow, wallet: WalletRow, address: string, trx?: Trx): Promise<InvoiceView> {
    const db = trx ?? this.deps.db.kysely;
    const now = this.deps.clock();
    const tip = await db.selectFrom('chain_tips').select('tip_height').where('chain', '=', wallet.mode).executeTakeFirst();
    const tipHeight = tip ? Number(tip.tip_height) : null;
    const rows = await db
      .selectFrom('chain_outputs as o')
      .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
      .select(['o.vout', 'o.value_sats', 't.txid', 't.state', 't.block_height', 't.first_seen_at'])
      .where('o.address_id', '=', payment.address_id)
      .orderBy('o.id')
      .execute();
    const outputs: InvoiceOutput[] = rows.map((r) => ({
      txid: r.txid,
      vout: Number(r.vout),
      sats: r.value_sats,
      firstSeenAt: Number(r.first_seen_at),
      confirmations: confirmations(r.state, r.block_height === null ? null : Number(r.block_height), tipHeight),
      withdrawn: r.state === 'withdrawn',
    }));
    const required = Number(payment.required_confirmations ?? wallet.required_confirmations);
    const funded = await db
      .selectFrom('payment_transitions')
      .select('id')
      .where('payment_id', '=', payment.id)
      .where('to_status', 'not in', ['unpaid', 'invalid'])
      .limit(1)
      .executeTakeFirst();
    const expiry = Number(payment.expiry_at);
    const live = outputs.filter((o) => !o.withdrawn && o.sats > 0n);
    const facts: StatusFacts = {
      payment: payment.status as PaymentStatus,
      expired: now >= expiry,
      monitoringOver: now >= Number(payment.monitor_until),
      fundsAfterExpiry: live.some((o) => o.firstSeenAt >= expiry),
      withinTolerance: withinTolerance(payment, invoice.payment_tolerance),
      everFunded: funded !== undefined,
      marked: invoice.manual_status,
    };
    return { invoice, payment, wallet, address, outputs, required, facts, status: greenfieldStatus(facts) };
  }

  /** GET …/invoices: newest first, filtered as BTCPay's query parameters say. */
  async list(storeId: string, q: InvoiceListQuery): Promise<InvoiceView[]> {
    let query = this.deps.db.kysely.selectFrom('greenfield_invoices').selectAll().where('store_id', '=', storeId).orderBy('id', 'desc');
    if (q.orderIds.length > 0) query = query.where('order_id', 'in', q.orderIds);
    if (!q.includeArchived) query = query.where('archived_at', 'is', null);
    if (q.startDate !== null) query = query.where('created_at', '>=', BigInt(q.startDate * 1000));
    if (q.endDate !== null) query = query.where('created_at', '<=', BigInt(q.endDate * 1000));
    // Status is derived, so the status filter applies after mapping; without it, paging is done in SQL.
    if (q.statuses.length === 0) {
      if (q.skip > 0) query = query.offset(q.skip);
      if (q.take !== null) query = query.limit(q.take);
      else if (q.skip > 0) query = query.limit(1_000_000);
    }
    const rows = await query.execute();
    const views: InvoiceView[] = [];
    for (const row of rows) views.push(await this.view(row));
    if (q.statuses.length === 0) return views;
    const wanted = new Set(q.statuses);
    const filtered = views.filter((v) => wanted.has(v.status.status));
    return filtered.slice(q.skip, q.take === null ? undefined : q.skip + q.take);
  }

  /** PUT …/invoices/{id}: replaces the metadata (null or absent: an empty object), and with it the searchable orderId. */
  async updateMetadata(storeId: string, invoiceId: string, body: JsonValue | undefined): Promise<InvoiceView> {
    const before = await this.get(storeId, invoiceId);
    const m = isJsonObject(body) ? body.metadata : undefined;
    // metadata is required (the document says so, the PHP client always sends it): a body without it is a
    // mistake, not a request to clear the metadata (null does that).
    if (isJsonObject(body) && m === undefined) throw new GreenfieldValidationError([{ path: 'metadata', message: 'is required' }]);
    if (!isJsonObject(body) || (m !== null && !isJsonObject(m))) {
      throw new GreenfieldValidationError([{ path: isJsonObject(body) ? 'metadata' : '', message: 'must be a JSON object' }]);
    }
    const metadata = isJsonObject(m) ? m : {};
    const orderId = metadata.orderId;
    const orderText = typeof orderId === 'string' && orderId !== '' ? orderId : orderId instanceof JsonNumber ? orderId.toDecimal() : null;
    const updated = await this.deps.db.kysely
      .updateTable('greenfield_invoices')
      .set({ metadata_json: canonicalJson(metadata), order_id: orderText === null ? null : orderText.slice(0, 256) })
      .where('id', '=', before.invoice.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { ...before, invoice: updated };
  }

  /**
   * POST …/status: marks the invoice Settled or Invalid (BTCPay's manual marking). Stored on the invoice with a
   * transition naming its cause; the payment's own status stays what the chain says.
   */
  async mark(storeId: string, invoiceId: string, body: JsonValue | undefined, keyId: string): Promise<InvoiceView> {
    const status = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, JsonValue>).status : undefined;
    if (status !== 'Settled' && status !== 'Invalid') {
      throw new GreenfieldValidationError([{ path: 'status', message: 'must be "Settled" or "Invalid"' }]);
    }
    const before = await this.get(storeId, invoiceId);
    // Marking again as already marked is answered, not refused: a plugin retrying its call is not an error.
    if (before.invoice.manual_status === status) return before;
    if (before.status.status === status) {
      throw new GreenfieldError(400, 'invoice-not-markable', `The invoice is already ${status}.`);
    }
    const now = this.deps.clock();
    return this.deps.db.kysely.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('greenfield_invoices')
        .set({ manual_status: status, manual_at: BigInt(now) })
        .where('id', '=', before.invoice.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('greenfield_invoice_marks')
        .values({
          invoice_row_id: updated.id,
          from_status: `${before.status.status}/${before.status.additionalStatus}`,
          to_status: `${status}/Marked`,
          cause: `marked ${status} by API key ${keyId}`,
          at: BigInt(now),
        })
        .execute();
      const view = await this.viewOf(updated, before.payment, before.wallet, before.address, trx);
      for (const listener of this.markedListeners) await listener(trx, view, before.status);
      return view;
    });
  }
}

/** Whether a short payment is within the invoice's tolerance: paid ≥ amount × (1 − tolerance / 100), exactly. */
function withinTolerance(payment: PaymentRow, tolerance: string): boolean {
  if (compareDecimals(tolerance, '0') <= 0) return false;
  const paid = addDecimals(payment.confirmed_order_amount, payment.unconfirmed_order_amount);
  // paid × 100 + amount × tolerance ≥ amount × 100 (the same inequality, without a negative term)
  const left = addDecimals(multiplyDecimals(paid, '100'), multiplyDecimals(payment.order_amount, tolerance));
  return compareDecimals(left, multiplyDecimals(payment.order_amount, '100')) >= 0;
}

/** Thrown by a store lookup the key may not make. */
export { GreenfieldError };
export type { InvoiceRequest };
