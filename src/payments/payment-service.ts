// Payment API v1 operations over the database: create a payment request (op 26, with idempotency),
// read it (27), draw its QR code (28), quote an indicative rate (29), and the hosted page's lookup.
import { randomBytes } from 'node:crypto';
import type { Selectable, Transaction } from 'kysely';
import type { Database, WalletsTable } from '../db/schema.ts';
import { isoUtc } from '../core/clock.ts';
import { DomainError, isRefusal, type FieldProblem } from '../core/domain-errors.ts';
import type { RateLock } from '../rates/rates-port.ts';
import type { ChainId } from '../chain/chain-id.ts';
import type { JsonValue } from '../money/exact-json.ts';
import { createPaymentFromPool, createsFromPool, insertPaymentRow } from '../db/payment-insert.ts';
import { refusedWebhookTarget } from '../notify/webhook-target.ts';
import type { HostedPageRecord } from '../pages/routes.ts';
import { btcFromSats, fiatToSats } from '../money/money.ts';
import { satsRangeProblem } from '../money/amount-bounds.ts';
import { bodyHash, exactNumber } from '../money/canonical-json.ts';
import { plainJson } from '../money/plain-json.ts';
import { checkPaymentRequest } from './payment-request.ts';
import { pageData, paymentRecord, type PaymentRow, type RecordContext, type StoredRequest } from './payment-record.ts';
import type { PaymentStatusMachine } from './status-machine.ts';
import type { LookedUpWallet, OAuthClients } from './oauth.ts';
import type { PaymentsDeps } from './payments.ts';
import { IdempotencyError, type IdempotencyStore } from '../db/idempotency-store.ts';
import { recordTransition } from '../notify/status-transition.ts';
import { PAYMENT_CREATED } from '../db/transitions.ts';
import { paymentUri, renderQrPng } from './qr-code.ts';
import { StatusBodyCache, statusValuesOf } from './status-read.ts';
import { readPaymentStatusRow } from '../db/payment-status-read.ts';

/** An HTTP answer the route writes as is. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  replayed: boolean;
}

/** What the payment service needs: the capability's dependencies and its sibling services. */
export interface PaymentServiceDeps extends PaymentsDeps {
  oauth: OAuthClients;
  machine: PaymentStatusMachine;
  idempotency: IdempotencyStore;
}

/** A new unguessable payment reference: `pay_` and 24 base32 characters (120 random bits). */
export function newPaymentReference(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = randomBytes(24);
  let out = 'pay_';
  for (const b of bytes) out += alphabet[b & 31];
  return out;
}

/** What {@link PaymentService.insertPayment} needs. */
export interface NewPayment {
  wallet: Selectable<WalletsTable>;
  clientRowId: bigint | null;
  type: 'custom' | 'hosted';
  cryptoCurrency: string;
  orderCurrency: string;
  orderAmount: string;
  stored: StoredRequest;
  now: number;
  /** Rate guarantee from creation; default the rate lock's own. */
  expiresInMs?: number;
  /** End of the monitoring window (epoch ms); default creation + the configured window. */
  monitorUntil?: number;
  /** Confirmations this payment needs; default the wallet's. */
  requiredConfirmations?: number;
  /** A creation without a login (pay buttons): the address only within the wallet's gap limit (GapLimitError past it). */
  withinGapLimit?: boolean;
}

const notFound = (reference: string) => new DomainError('not-found', `No payment with reference ${JSON.stringify(reference)}.`);

/** Payment API v1, operations 26 to 29. */
export class PaymentService {
  private readonly statusBodies = new StatusBodyCache();

  constructor(private readonly deps: PaymentServiceDeps) {}

  /**
   * Operation 26 for an authenticated client: validates, then creates the payment (or replays an idempotent answer).
   * `looked`: the wallet the bearer check found for the body's API ID, if it looked.
   */
  async create(clientRowId: bigint, body: JsonValue | undefined, idempotencyKey: string | undefined, looked?: LookedUpWallet): Promise<Answer> {
    const { deps } = this;
    const checked = checkPaymentRequest(body, (code) => deps.isSupportedCurrency(code));
    const errors: FieldProblem[] = checked.ok ? [] : checked.errors;
    if (checked.ok && checked.request.notify_url !== null) {
      const refused = await refusedWebhookTarget(checked.request.notify_url, { allowPrivate: deps.config.allowPrivateWebhooks });
      if (refused !== null) errors.push({ field: 'notify_url', message: `is not allowed: ${refused}` });
    }
    if (!checked.ok || errors.length > 0) throw new DomainError('invalid-fields', 'The payment request has invalid fields.', errors);
    const input = checked.request;

    // The bearer check has usually looked the wallet up already (one query for both); otherwise ask now.
    const found = looked?.apiId === input.api_id ? looked.found : await deps.oauth.walletFor(clientRowId, input.api_id);
    if (!found) throw new DomainError('not-found', `No wallet with API ID ${JSON.stringify(input.api_id)}.`);
    const { wallet } = found;
    if (!found.bound) {
      throw new DomainError('forbidden', 'This client is not allowed to create payments for that API ID.');
    }

    // The body's hash serves the idempotency record only (canonical JSON and SHA-256 of every body cost ~20 µs).
    const hash = idempotencyKey === undefined || body === undefined ? '' : bodyHash(body);
    const now = deps.clock();
    const scope = `oauth-client:${clientRowId}`;
    if (idempotencyKey !== undefined) {
      const replay = await idempotent(deps.idempotency.replay(scope, idempotencyKey, hash, now));
      if (replay) return { ...replay, replayed: true };
    }
    const chain = deps.chains.forMode(wallet.mode as ChainId);
    // Checked before the transaction: pricing must fail cleanly (503) rather than wait inside it.
    await this.spotOrProblem(input.order_currency);

    const stored: StoredRequest = {
      notify_email: input.notify_email,
      notify_url: input.notify_url,
      webhook_data_json: input.webhook_data_json,
      cart_json: input.cart_json,
      success_url: input.success_url,
      cancel_url: input.cancel_url,
      payer_id: input.payer_id,
      payer_name: input.payer_name,
      payer_email: input.payer_email,
      payer_phone: input.payer_phone,
      payer_ip: input.payer_ip,
    };

    // No Idempotency-Key and a pooled address: the whole creation is one statement on PostgreSQL (one round
    // trip, atomic by itself), one synchronous transaction of prepared statements on SQLite (db/payment-insert.ts).
    // Otherwise, or when the pool is empty, the transaction below.
    if (idempotencyKey === undefined && createsFromPool(deps.db) && deps.issuer.pooled) {
      let lock: Omit<RateLock, 'id'>;
      try {
        lock = await deps.rates.planLock('payment_request', input.order_currency);
      } catch (err) {
        throw toProblem(err);
      }
      const created = await createPaymentFromPool(deps.db, {
        walletId: wallet.id,
        scriptType: wallet.script_type,
        clientId: clientRowId,
        now,
        lock,
        payment: {
          reference: newPaymentReference(),
          type: input.type,
          cryptoCurrency: input.crypto_currency,
          cryptoSats: orderSats(input.order_amount, lock.rate),
          orderCurrency: input.order_currency,
          orderAmount: input.order_amount,
          monitorUntil: now + deps.config.monitorWindowMs,
          requestJson: JSON.stringify(stored),
        },
      });
      deps.issuer.noteClaimed(
        wallet,
        created ? { index: Number(created.issued_index), lastFunded: created.last_funded === null ? -1 : Number(created.last_funded) } : undefined,
      );
      if (created) {
        const { issued_address, issued_script_hex, issued_index: _index, last_funded: _funded, ...row } = created;
        deps.chains.watch(chain.id, Buffer.from(issued_script_hex, 'hex'), { addressId: row.address_id, walletId: wallet.id });
        return { status: 200, body: paymentRecord(row, this.recordContext(wallet, issued_address)), replayed: false };
      }
    }

    const result = await deps.db.kysely.transaction().execute(async (trx): Promise<Answer & { script?: string; addressId?: bigint }> => {
      if (idempotencyKey !== undefined) {
        const replay = await idempotent(deps.idempotency.claim(trx, scope, idempotencyKey, hash, now));
        if (replay) return { ...replay, replayed: true };
      }
      const { row, address } = await this.insertPayment(trx, {
        wallet,
        clientRowId,
        type: input.type,
        cryptoCurrency: input.crypto_currency,
        orderCurrency: input.order_currency,
        orderAmount: input.order_amount,
        stored,
        now,
      });
      const answer: Answer = { status: 200, body: paymentRecord(row, this.recordContext(wallet, address.address)), replayed: false };
      if (idempotencyKey !== undefined) await deps.idempotency.complete(trx, scope, idempotencyKey, { status: answer.status, body: answer.body });
      return { ...answer, script: address.script_hex, addressId: address.id };
    });
    if (result.script !== undefined && result.addressId !== undefined) {
      deps.chains.watch(chain.id, Buffer.from(result.script, 'hex'), { addressId: result.addressId, walletId: wallet.id });
    }
    return { status: result.status, body: result.body, replayed: result.replayed };
  }

  /**
   * The one creation path inside a transaction: rate lock (none for a BTC-denominated payment, whose rate is 1),
   * address issuance, the payment row and its creation transition. Greenfield invoices (src/greenfield) come
   * through here too, with their own expiry, monitoring window and confirmations.
   */
  async insertPayment(trx: Transaction<Database>, spec: NewPayment): Promise<{ row: PaymentRow; address: { id: bigint; address: string; script_hex: string } }> {
    const { deps } = this;
    const { wallet, now } = spec;
    let lock: { id: bigint | null; rate: string; expiresAt: number };
    if (spec.orderCurrency === 'BTC') {
      lock = { id: null, rate: '1', expiresAt: now + (spec.expiresInMs ?? deps.config.monitorWindowMs) };
    } else {
      try {
        lock = await deps.rates.lock('payment_request', spec.orderCurrency, trx);
      } catch (err) {
        throw toProblem(err);
      }
    }
    // Priced before an address is issued: an amount beyond the bound is refused with nothing claimed.
    const cryptoSats = orderSats(spec.orderAmount, lock.rate);
    const address = spec.withinGapLimit ? await deps.issuer.issueForPaymentWithinGap(trx, wallet, now) : await deps.issuer.issueForPayment(trx, wallet, now);
    const expiryAt = spec.expiresInMs === undefined ? lock.expiresAt : now + spec.expiresInMs;
    const row = await insertPaymentRow(trx, {
      reference: newPaymentReference(),
      wallet_id: wallet.id,
      address_id: address.id,
      client_id: spec.clientRowId,
      type: spec.type,
      crypto_currency: spec.cryptoCurrency,
      crypto_sats: cryptoSats,
      order_currency: spec.orderCurrency,
      order_amount: spec.orderAmount,
      exchange_rate: lock.rate,
      rate_lock_id: lock.id,
      expiry_at: BigInt(expiryAt),
      monitor_until: BigInt(spec.monitorUntil ?? now + deps.config.monitorWindowMs),
      status: 'unpaid',
      status_at: BigInt(now),
      request_json: JSON.stringify(spec.stored),
      created_at: BigInt(now),
      required_confirmations: spec.requiredConfirmations === undefined ? null : BigInt(spec.requiredConfirmations),
    });
    // Creation is a transition like any other; it notifies no one (the shop has the answer in hand).
    await recordTransition(trx, { table: 'payment_transitions', recordId: row.id, ...PAYMENT_CREATED, at: now }, []);
    return { row, address };
  }

  /** Starts watching a created payment's address (after its transaction committed). */
  watchCreated(walletId: bigint, mode: string, address: { id: bigint; script_hex: string }): void {
    const chain = this.deps.chains.forMode(mode as ChainId);
    this.deps.chains.watch(chain.id, Buffer.from(address.script_hex, 'hex'), { addressId: address.id, walletId });
  }

  private async spotOrProblem(currency: string) {
    try {
      return await this.deps.rates.spot(currency);
    } catch (err) {
      throw toProblem(err);
    }
  }

  recordContext(wallet: RecordContext['wallet'], address: string): RecordContext {
    return { wallet, address, publicUrl: this.deps.config.publicUrl };
  }

  /** The payment with its wallet and address; an unpaid one past its monitoring window is invalidated first. */
  async load(reference: string): Promise<{ row: PaymentRow; ctx: RecordContext; values?: readonly unknown[] } | undefined> {
    const { db, clock, machine } = this.deps;
    // One hand-written statement for the hot path (status polling), see db/payment-status-read.ts.
    const read = await readPaymentStatusRow(db, reference);
    if (!read) return undefined;
    const joined = read.row;
    const ctx = this.recordContext({ api_id: joined.wallet_api_id, account_name: joined.wallet_account_name }, joined.payment_address);
    const now = clock();
    if (joined.status === 'unpaid' && now >= Number(joined.monitor_until)) {
      const id = joined.id;
      // The re-derived row is not the one read, so it has no values to keep its answer by.
      return { row: await db.kysely.transaction().execute((trx) => machine.rederive(trx, id, 'monitor-window', now)), ctx };
    }
    // The joined row serves as the payment row as it is (its three extra fields are never read from it): copying
    // ~30 columns out with a rest pattern cost about 10 µs per status read.
    return { row: joined, ctx, values: read.raw ?? statusValuesOf(joined) };
  }

  /** Operation 27: the payment record with status and amounts. */
  async status(reference: string): Promise<Record<string, unknown>> {
    const found = await this.load(reference);
    if (!found) throw notFound(reference);
    return paymentRecord(found.row, found.ctx);
  }

  /** Operation 27 as the JSON text the route sends: the same record, built again only when its row changed. */
  async statusJson(reference: string): Promise<string> {
    const found = await this.load(reference);
    if (!found) throw notFound(reference);
    const build = () => plainJson(paymentRecord(found.row, found.ctx));
    // A row just re-derived (its monitoring window closed) has no values read: build it, keep nothing.
    return found.values ? this.statusBodies.body(reference, found.values, build) : build();
  }

  /** Operation 28: PNG of `bitcoin:<address>?amount=<crypto_amount>`; 410 once the request is invalid. */
  async qrCode(reference: string, width: number): Promise<Buffer> {
    const found = await this.load(reference);
    if (!found) throw notFound(reference);
    if (found.row.status === 'invalid') {
      throw new DomainError('gone', 'This payment request is no longer valid and can no longer receive funds; it has no QR code.');
    }
    return renderQrPng(paymentUri(found.ctx.address, btcFromSats(found.row.crypto_sats)), width);
  }

  /** Operation 29: the current indicative rate, 1 crypto unit in the order currency (not guaranteed). */
  async exchangeRate(reference: string): Promise<Record<string, unknown>> {
    const row = await this.deps.db.kysely.selectFrom('payments').select(['crypto_currency', 'order_currency']).where('reference', '=', reference).executeTakeFirst();
    if (!row) throw notFound(reference);
    const spot = await this.spotOrProblem(row.order_currency);
    return {
      from_currency: row.crypto_currency,
      to_currency: row.order_currency,
      exchange_rate: exactNumber(spot.rate),
      exchange_rate_date: isoUtc(spot.at),
    };
  }

  /** The hosted page's view of a payment, or null when there is none (src/pages calls this). */
  async publicRecord(reference: string): Promise<HostedPageRecord | null> {
    const found = await this.load(reference);
    if (!found) return null;
    // The page shows the transactions that paid it; the payment record (operation 27) does not carry them.
    const txs = await this.deps.db.kysely
      .selectFrom('chain_outputs as o')
      .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
      .select('t.txid')
      .where('o.address_id', '=', found.row.address_id)
      .where('t.state', '!=', 'withdrawn')
      .orderBy('o.id')
      .execute();
    // The merchant's language for the page: a Greenfield invoice's checkout.defaultLanguage, else the wallet's default.
    const language = await this.deps.db.kysely
      .selectFrom('wallets as w')
      .leftJoin('greenfield_invoices as gi', (j) => j.on('gi.payment_id', '=', found.row.id))
      .select(['w.default_language as wallet_language', 'gi.default_language as invoice_language'])
      .where('w.id', '=', found.row.wallet_id)
      .executeTakeFirst();
    return {
      ...pageData(found.row, found.ctx),
      txids: [...new Set(txs.map((t) => t.txid))],
      merchantLanguage: language?.invoice_language ?? language?.wallet_language ?? null,
    };
  }
}

/** Idempotency refusals as the catalogue's. */
async function idempotent<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof IdempotencyError) throw new DomainError(err.reason === 'reused' ? 'key-reused' : 'conflict', err.message);
    throw err;
  }
}

/**
 * The order's price in satoshis at the locked rate. A fiat amount within its digits can still be worth more than all
 * the bitcoin there is at a small rate: that is the client's invalid field (Greenfield reports it as `amount`).
 */
function orderSats(orderAmount: string, rate: string): bigint {
  const sats = fiatToSats(orderAmount, rate);
  const problem = satsRangeProblem(sats);
  if (problem !== null) throw new DomainError('invalid-fields', 'The payment request has invalid fields.', [{ field: 'order_amount', message: problem }]);
  return sats;
}

/** A currency the rates refuse is the request's invalid order_currency field; unavailability stays what it is. */
function toProblem(err: unknown): unknown {
  if (isRefusal(err)) {
    return new DomainError('invalid-fields', 'The payment request has invalid fields.', [{ field: 'order_currency', message: err.message }]);
  }
  return err;
}

