// Payment forms over the database: create one (operation 14, with Idempotency-Key), its session view
// (operation 13), and what the form page needs: its state, the payer's fields, a rate refresh, the QR code.
import type { Selectable } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { PaymentFormsTable } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import { isoUtc } from '../core/clock.ts';
import { DomainError, type DomainErrorKind } from '../core/domain-errors.ts';
import type { MasterKey } from '../security/master-key.ts';
import { hashToken, newToken } from '../security/tokens.ts';
import type { Rates } from '../rates/rates-port.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { ChainId } from '../chain/chain-id.ts';
import type { AddressIssuer } from '../wallets/address-issuer.ts';
import type { WalletRepository } from '../wallets/wallet-repository.ts';
import { isJsonObject, type JsonValue } from '../money/exact-json.ts';
import { checkUrlAllowed } from '../notify/ssrf-guard.ts';
import { btcFromSats, fiatToSats } from '../money/money.ts';
import { satsRangeProblem } from '../money/amount-bounds.ts';
import { bodyHash, exactNumber } from '../money/canonical-json.ts';
import { ensureWebhookSecret, newWebhookSecret } from '../payments/webhook-secrets.ts';
import { paymentUri, renderQrPng } from '../payments/qr-code.ts';
import { checkFormRequest, checkSubmittedFields, type FormProblem, type UserField } from './form-request.ts';
import type { OrderTracker } from './order-tracker.ts';
import { IdempotencyError, type IdempotencyStore } from '../db/idempotency-store.ts';
import type { OrderState } from './order-state.ts';
import { applyOrderChange } from './order-change.ts';
import type { FormPageView } from '../pages/form-page.ts';

/** Idempotency failures in the wallet API's words (code 201). */
async function idempotent<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof IdempotencyError) throw new DomainError('invalid', `Wrong or missing argument: ${err.message}`);
    throw err;
  }
}

/** What the form service needs. */
export interface FormServiceDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  rates: Rates;
  chains: ChainService;
  issuer: AddressIssuer;
  repo: WalletRepository;
  masterKey: MasterKey;
  tracker: OrderTracker;
  idempotency: IdempotencyStore;
  publicUrl: string;
  allowPrivateWebhooks: boolean;
  isSupportedCurrency(code: string): boolean;
}

/** What the form page shows (its view), derived now, with what the state API adds; `complete_url` only once paid. */
export interface FormPageState extends FormPageView {
  expires_at: string;
  paid_crypto: string;
  transactions: number;
  user_fields: UserField[];
  user_email: string | null;
}

type FormRow = Selectable<PaymentFormsTable>;

/** The refusal of each kind of form problem, with the words its message starts with. */
const PROBLEM_KIND = {
  '201': ['invalid', 'Wrong or missing argument'],
  '308': ['invalid-email', 'Invalid e-mail address'],
  '101': ['invalid-currency', 'Currency is not valid'],
  '103': ['unsupported-currency', 'Currency is not supported'],
} as const satisfies Record<FormProblem['code'], readonly [DomainErrorKind, string]>;

/** The refusal of a list of problems: the most specific kind when all agree, else a wrong argument. */
export function problemsError(problems: FormProblem[]): DomainError {
  const codes = new Set(problems.map((p) => p.code));
  const [kind, prefix] = PROBLEM_KIND[codes.size === 1 ? [...codes][0]! : '201'];
  const detail = problems.map((p) => `${p.field} ${p.message}`).join('; ');
  return new DomainError(kind, `${prefix}: ${detail}`);
}

/** The payer's "E-mail me a receipt" box: `receipt` is true or false when given, absent meaning no (strict, never coerced). */
export function receiptConsent(body: JsonValue | undefined): { ok: true; receipt: boolean } | { ok: false; problem: FormProblem } {
  const value = isJsonObject(body) ? body.receipt : undefined;
  if (value === undefined || value === false) return { ok: true, receipt: false };
  if (value === true) return { ok: true, receipt: true };
  return { ok: false, problem: { field: 'receipt', message: 'must be true or false', code: '201' } };
}

const unknownForm = () => new DomainError('invalid', 'Wrong or missing argument: no payment form with this token (check the link, or ask the shop for a new one)');

/** Payment forms: operations 13 and 14 and the form page's operations. */
export class FormService {
  constructor(private readonly deps: FormServiceDeps) {}

  /**
   * Operation 14: validates, reserves the address and locks the rate in one transaction; replays a known Idempotency-Key.
   * A call without a login: `ip` counts against the issuing rate limits (wallets/issuing-rules.ts); a replay does not.
   */
  async create(body: JsonValue | undefined, idempotencyKey: string | undefined, ip: string | null): Promise<{ body: Record<string, unknown>; replayed: boolean }> {
    const { deps } = this;
    const checked = checkFormRequest(body, (code) => deps.isSupportedCurrency(code));
    if (!checked.ok) throw problemsError(checked.problems);
    const input = checked.request;
    const verdict = await checkUrlAllowed(input.payment_update_url, { allowPrivate: deps.allowPrivateWebhooks });
    // A name that does not resolve now may later (the send-time check covers it); internal targets are refused now.
    if (!verdict.ok && verdict.code !== 'dns') throw problemsError([{ field: 'payment_update_url', message: `is not allowed: ${verdict.reason}`, code: '201' }]);
    const wallet = await deps.repo.findByApiId(input.api_id);
    if (!wallet) throw new DomainError('invalid', 'Wrong or missing argument: unknown api_id');
    deps.chains.forMode(wallet.mode as ChainId); // 998 when the wallet's network is not followed
    const hash = bodyHash(body!);
    const now = deps.clock();
    // Operation 14 has no authenticated caller: keys are scoped to the receiving wallet.
    const scope = `payment-form-wallet:${wallet.id}`;
    if (idempotencyKey !== undefined) {
      const replay = await idempotent(deps.idempotency.replay(scope, idempotencyKey, hash, now));
      if (replay) return { body: replay.body, replayed: true };
    }
    // Priced before the transaction: a missing or stale rate fails cleanly rather than inside it.
    await deps.rates.spot(input.order_currency);

    // A prefix keeps the token from starting with '-' (the CLI takes it as an argument) and says what it is.
    const token = `frm_${newToken(24)}`;
    const authToken = newToken(24);
    // A light server is asked about an expired address before it is reused, outside the transaction.
    const reuse = await deps.issuer.vetOrderReuse(deps.db.kysely, wallet, now);
    const result = await deps.db.kysely.transaction().execute(async (trx) => {
      if (idempotencyKey !== undefined) {
        const replay = await idempotent(deps.idempotency.claim(trx, scope, idempotencyKey, hash, now));
        if (replay) return { body: replay.body, replayed: true as const, script: null, addressId: null };
      }
      const lock = await deps.rates.lock('payment_form', input.order_currency, trx);
      // Priced before an address is reserved: worth more than all the bitcoin there is, the amount is refused.
      const range = satsRangeProblem(fiatToSats(input.order_amount, lock.rate));
      if (range !== null) throw problemsError([{ field: 'order_amount', message: range, code: '201' }]);
      const address = await deps.issuer.reserveForOrder(trx, wallet, { now, until: lock.expiresAt, reuse, ip });
      const askEmail = input.user_email === null;
      const form = await trx
        .insertInto('payment_forms')
        .values({
          token_hash: hashToken(token),
          wallet_id: wallet.id,
          address_id: address.id,
          order_id: input.order_id,
          order_amount: input.order_amount,
          order_currency: input.order_currency,
          user_id: input.user_id,
          user_email: input.user_email,
          payment_cancel_url: input.payment_cancel_url,
          payment_complete_url: input.payment_complete_url,
          payment_update_url: input.payment_update_url,
          site_name: input.site_name,
          user_fields_json: JSON.stringify(input.user_fields),
          auth_token_sealed: deps.masterKey.seal(authToken),
          auth_token_hash: hashToken(authToken),
          // Nothing to ask the payer: the form goes straight to paying.
          fields_submitted_at: input.user_fields.length === 0 && !askEmail ? BigInt(now) : null,
          lock_expires_at: BigInt(lock.expiresAt),
          order_status: 'pending',
          payment_status: 'unconfirmed',
          status_at: BigInt(now),
          tx_snapshot_json: '{}',
          created_at: BigInt(now),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('form_rate_locks')
        .values({ form_id: form.id, rate_lock_id: lock.id, rate: lock.rate, rate_at: BigInt(lock.rateAt), locked_at: BigInt(lock.lockedAt), expires_at: BigInt(lock.expiresAt) })
        .execute();
      await applyOrderChange(trx, { kind: 'form', id: form.id, from: null, to: 'pending', paymentStatus: 'unconfirmed', cause: 'created', at: now, snapshot: {}, openTxs: 0, notifications: [] });
      await ensureWebhookSecret(trx, deps.masterKey, wallet.id, newWebhookSecret(), now);
      const answer = { return: '0', status: 'OK', payment_page_url: `${deps.publicUrl}/form/${token}`, auth_response_token: authToken };
      if (idempotencyKey !== undefined) await deps.idempotency.complete(trx, scope, idempotencyKey, { status: 200, body: answer });
      return { body: answer as Record<string, unknown>, replayed: false as const, script: address.script_hex, addressId: address.id };
    });
    if (result.script !== null && result.addressId !== null) {
      deps.chains.watch(wallet.mode as ChainId, Buffer.from(result.script, 'hex'), { addressId: result.addressId, walletId: wallet.id });
    }
    return { body: result.body, replayed: result.replayed };
  }

  /** The form of a token, or undefined. */
  private async find(token: string): Promise<FormRow | undefined> {
    if (token.length > 200) return undefined;
    return this.deps.db.kysely.selectFrom('payment_forms').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirst();
  }

  /** The form and its state derived now (stored through the tracker when it changed). */
  private async current(token: string, cause = 'read'): Promise<{ form: FormRow; state: OrderState }> {
    const found = await this.find(token);
    if (!found) throw unknownForm();
    const now = this.deps.clock();
    const state = await this.deps.db.kysely.transaction().execute((trx) => this.deps.tracker.rederive(trx, 'form', found.id, cause, now));
    const form = await this.deps.db.kysely.selectFrom('payment_forms').selectAll().where('id', '=', found.id).executeTakeFirstOrThrow();
    return { form, state };
  }

  private async currentRate(formId: bigint): Promise<{ rate: string; expiresAt: number }> {
    const lock = await this.deps.db.kysely.selectFrom('form_rate_locks').select(['rate', 'expires_at']).where('form_id', '=', formId).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
    return { rate: lock.rate, expiresAt: Number(lock.expires_at) };
  }

  /** Operation 13: the session view of 2.7 (without payment_complete_url). */
  async session(token: string): Promise<Record<string, unknown>> {
    const { form, state } = await this.current(token);
    const wallet = await this.deps.repo.findById(form.wallet_id);
    const lock = await this.currentRate(form.id);
    return {
      return: '0',
      status: 'OK',
      crypto_currency: wallet?.mode === 'live' ? 'BTC' : 'testBTC',
      crypto_amount: btcFromSats(state.lockSats),
      exchange_rate: lock.rate,
      order_id: form.order_id,
      order_amount: exactNumber(form.order_amount),
      order_currency: form.order_currency,
      user_id: form.user_id,
      user_email: form.user_email,
      payment_cancel_url: form.payment_cancel_url,
      site_name: form.site_name,
      user_fields: JSON.parse(form.user_fields_json) as UserField[],
    };
  }

  /** What the form page shows now. */
  async pageState(token: string): Promise<FormPageState> {
    const { form, state } = await this.current(token);
    return this.toPageState(token, form, state);
  }

  private async toPageState(token: string, form: FormRow, state: OrderState): Promise<FormPageState> {
    const wallet = await this.deps.repo.findById(form.wallet_id);
    const address = await this.deps.db.kysely.selectFrom('addresses').select('address').where('id', '=', form.address_id).executeTakeFirstOrThrow();
    const lock = await this.currentRate(form.id);
    const paid = state.orderStatus === 'paid' || state.orderStatus === 'paid_too_much';
    const phase: FormPageState['phase'] = paid
      ? 'paid'
      : form.fields_submitted_at === null && state.orderStatus === 'pending' && !state.expired
        ? 'fields'
        : state.orderStatus === 'failed_paid_too_little'
          ? state.expired
            ? 'partly-expired'
            : 'partly'
          : state.expired
            ? 'expired'
            : 'pay';
    return {
      token,
      phase,
      order_status: state.orderStatus,
      payment_status: state.paymentStatus,
      site_name: form.site_name,
      order_id: form.order_id,
      order_amount: form.order_amount,
      order_currency: form.order_currency,
      crypto_currency: wallet?.mode === 'live' ? 'BTC' : 'testBTC',
      address: address.address,
      crypto_amount_due: btcFromSats(state.dueSats),
      exchange_rate: lock.rate,
      expires_at: isoUtc(lock.expiresAt),
      expires_ms: lock.expiresAt,
      remaining_order_amount: state.remainingOrderAmount,
      paid_crypto: btcFromSats(state.confirmedSats + state.unconfirmedSats),
      transactions: state.transactions.length,
      user_fields: JSON.parse(form.user_fields_json) as UserField[],
      ask_email: form.user_email === null,
      user_email: form.user_email,
      cancel_url: form.payment_cancel_url,
      complete_url: paid ? form.payment_complete_url : null,
    };
  }

  /** The merchant's default language of the form's wallet (the form page's choice after the payer's own); null: none. */
  async merchantLanguage(token: string): Promise<string | null> {
    const found = await this.find(token);
    if (!found) return null;
    return this.walletLanguage(found.wallet_id);
  }

  private async walletLanguage(walletId: bigint): Promise<string | null> {
    const row = await this.deps.db.kysely.selectFrom('wallets').select('default_language').where('id', '=', walletId).executeTakeFirst();
    return row?.default_language ?? null;
  }

  /**
   * The payer's field values (and e-mail when the shop gave none), checked again here, stored with the order.
   * `languageOf` gives the language the page was shown in for the wallet's default; a receipt is written in it.
   */
  async submitFields(token: string, body: JsonValue | undefined, languageOf?: (merchantDefault: string | null) => string): Promise<FormPageState> {
    const found = await this.find(token);
    if (!found) throw unknownForm();
    if (found.fields_submitted_at !== null) throw new DomainError('invalid', 'Wrong or missing argument: the fields of this form were already submitted');
    const fields = JSON.parse(found.user_fields_json) as UserField[];
    const checked = checkSubmittedFields(fields, body, found.user_email === null);
    const consent = receiptConsent(body);
    const problems = [...(checked.ok ? [] : checked.problems), ...(consent.ok ? [] : [consent.problem])];
    if (!checked.ok || !consent.ok) throw problemsError(problems);
    const now = this.deps.clock();
    // The receipt links to this page; the token is otherwise kept only hashed, so the link is kept sealed.
    const receipt = consent.receipt
      ? {
          receipt_requested_at: BigInt(now),
          receipt_link_sealed: this.deps.masterKey.seal(`${this.deps.publicUrl}/form/${token}`),
          receipt_language: languageOf ? languageOf(await this.walletLanguage(found.wallet_id)) : await this.walletLanguage(found.wallet_id),
        }
      : {};
    await this.deps.db.kysely
      .updateTable('payment_forms')
      .set({
        user_fields_json: JSON.stringify(checked.fields),
        fields_submitted_at: BigInt(now),
        ...(checked.userEmail !== null ? { user_email: checked.userEmail } : {}),
        ...receipt,
      })
      .where('id', '=', found.id)
      .where('fields_submitted_at', 'is', null)
      .execute();
    return this.pageState(token);
  }

  /** Re-prices what is still due of a partly paid form whose lock ran out, for another 15 minutes. */
  async refresh(token: string): Promise<FormPageState> {
    const found = await this.find(token);
    if (!found) throw unknownForm();
    const now = this.deps.clock();
    await this.deps.rates.spot(found.order_currency);
    const { db, tracker, rates } = this.deps;
    await db.kysely.transaction().execute(async (trx) => {
      const state = await tracker.rederive(trx, 'form', found.id, 'read', now);
      if (!state.canRefresh) {
        throw new DomainError('invalid', 'Wrong or missing argument: only a partly paid form whose rate lock has run out can be refreshed');
      }
      const lock = await rates.lock('payment_form', found.order_currency, trx);
      await trx
        .insertInto('form_rate_locks')
        .values({ form_id: found.id, rate_lock_id: lock.id, rate: lock.rate, rate_at: BigInt(lock.rateAt), locked_at: BigInt(lock.lockedAt), expires_at: BigInt(lock.expiresAt) })
        .execute();
      await trx.updateTable('payment_forms').set({ lock_expires_at: BigInt(lock.expiresAt) }).where('id', '=', found.id).execute();
      await trx.updateTable('addresses').set({ reserved_until: BigInt(lock.expiresAt) }).where('id', '=', found.address_id).execute();
      await tracker.rederive(trx, 'form', found.id, 'refresh', now);
    });
    return this.pageState(token);
  }

  /** PNG of `bitcoin:<address>?amount=<amount due>`; 201 when nothing is due now. */
  async qrCode(token: string, width: number): Promise<Buffer> {
    const page = await this.pageState(token);
    if (page.crypto_amount_due === '0' || page.phase === 'expired' || page.phase === 'partly-expired') {
      throw new DomainError('invalid', 'Wrong or missing argument: nothing is due on this form right now');
    }
    return renderQrPng(paymentUri(page.address, page.crypto_amount_due), width);
  }

  /** The form id of a token (for the CLI and tests), or undefined. */
  async idOf(token: string): Promise<bigint | undefined> {
    return (await this.find(token))?.id;
  }
}

