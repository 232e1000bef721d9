// Pay buttons (issue 36, item 3): the merchant's buttons, and the payment a payer asks for on one. A button is a
// public entry point (a plain HTML form on any page), so creation has no login: the amount is checked strictly, a
// per-IP and a per-button budget count each creation (nothing is counted or written for a refused one), and the
// address comes only from within the wallet's gap limit. The payment itself is the payment API's (insertPayment):
// the same rates, statuses, outbox and hosted page.
import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { PayButtonsTable } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import { DomainError, type FieldProblem } from '../core/domain-errors.ts';
import { compareDecimals } from '../money/decimal.ts';
import { amountRangeProblem } from '../money/amount-bounds.ts';
import { BTC_DECIMALS, isIso4217, minorUnits } from '../money/currencies.ts';
import type { Limit, RateLimiter } from '../security/rate-limiter.ts';
import type { WalletRepository } from '../wallets/wallet-repository.ts';
import type { PaymentService } from '../payments/payment-service.ts';
import { cryptoCurrencyOf } from '../payments/payment-request.ts';
import { pagePaymentRequest } from '../payments/payment-record.ts';

export type PayButtonRow = Selectable<PayButtonsTable>;

/** The budgets of creation without a login; 0 turns one off. */
export interface ButtonBudgets {
  /** Payments one IP address may create through any button, per window. */
  perIp: number;
  /** Payments one button may create, per window (from everyone). */
  perButton: number;
  windowMs: number;
}

/**
 * Generous for a real shopper (a few tries a minute), far below what fills a wallet's gap limit window quickly;
 * the gap limit itself is the last guard.
 */
export const DEFAULT_BUTTON_BUDGETS: ButtonBudgets = { perIp: 6, perButton: 30, windowMs: 60_000 };

export interface ButtonServiceDeps {
  db: Db;
  clock: Clock;
  repo: WalletRepository;
  payments: PaymentService;
  limiter: RateLimiter;
  isSupportedCurrency(code: string): boolean;
  budgets?: Partial<ButtonBudgets>;
}

/** What the merchant gives to define a button (form fields as text, checked strictly). */
export interface ButtonInput {
  label: string | undefined;
  description: string | undefined;
  currency: string | undefined;
  /** 'fixed' or 'custom' (the payer chooses between min and max). */
  kind: string | undefined;
  amount: string | undefined;
  min_amount: string | undefined;
  max_amount: string | undefined;
}

/** What the payer's page and the snippet show of a button. */
export interface PublicButton {
  publicId: string;
  label: string;
  description: string | null;
  currency: string;
  amount: string | null;
  min: string | null;
  max: string | null;
}

const PLAIN_DECIMAL = /^(0|[1-9][0-9]{0,20})(\.[0-9]{1,8})?$/;
const MAX_LABEL = 100;
const MAX_DESCRIPTION = 500;

/** A new unguessable public id: `btn_` and 24 base32 characters (120 random bits). */
export function newButtonId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let out = 'btn_';
  for (const b of randomBytes(24)) out += alphabet[b & 31];
  return out;
}

/** Decimals allowed for an amount in `currency` (BTC 8, a fiat its minor units). */
function decimalsOf(currency: string): number {
  return currency === 'BTC' ? BTC_DECIMALS : minorUnits(currency);
}

/** Why `text` is no positive amount in `currency`, or null. */
export function amountProblem(text: string, currency: string): string | null {
  if (!PLAIN_DECIMAL.test(text)) return 'must be a positive decimal number written with digits and a point, such as 12.50';
  if (/^0(\.0*)?$/.test(text)) return 'must be more than zero';
  const range = amountRangeProblem(text, currency);
  if (range !== null) return range;
  const places = decimalsOf(currency);
  const frac = text.split('.')[1] ?? '';
  if (frac.length > places) return places === 0 ? `must be a whole number for ${currency}` : `must have at most ${places} decimal places for ${currency}`;
  return null;
}

const unknownButton = () => new DomainError('not-found', 'No pay button with this id: check the link, or ask the site for its current button.');

export class ButtonService {
  private readonly budgets: ButtonBudgets;

  constructor(private readonly deps: ButtonServiceDeps) {
    this.budgets = { ...DEFAULT_BUTTON_BUDGETS, ...deps.budgets };
  }

  /** Defines a button on a wallet the caller has already shown to be the merchant's. */
  async define(walletApiId: string, input: ButtonInput): Promise<PayButtonRow> {
    const { deps } = this;
    const wallet = await deps.repo.findByApiId(walletApiId);
    if (!wallet) throw new DomainError('not-found', `No wallet with API ID ${JSON.stringify(walletApiId)}.`);
    const errors: FieldProblem[] = [];
    const bad = (field: string, message: string) => {
      errors.push({ field, message });
      return null;
    };
    const label = (input.label ?? '').trim();
    if (label === '') bad('label', 'is required: what the payer pays for, such as "Donation" or "Coffee"');
    else if (label.length > MAX_LABEL) bad('label', `must be at most ${MAX_LABEL} characters`);
    const description = (input.description ?? '').trim();
    if (description.length > MAX_DESCRIPTION) bad('description', `must be at most ${MAX_DESCRIPTION} characters`);
    const currency = (input.currency ?? '').trim().toUpperCase();
    const currencyOk = currency === 'BTC' || (isIso4217(currency) && deps.isSupportedCurrency(currency));
    if (!currencyOk) bad('currency', 'must be BTC or a 3-letter ISO 4217 code with a current exchange rate, such as EUR');
    let amount: string | null = null;
    let min: string | null = null;
    let max: string | null = null;
    const amountOf = (field: string, raw: string | undefined): string | null => {
      const text = (raw ?? '').trim();
      if (text === '') return bad(field, 'is required');
      const problem = currencyOk ? amountProblem(text, currency) : null;
      return problem === null ? text : bad(field, problem);
    };
    if (input.kind === 'fixed') {
      amount = amountOf('amount', input.amount);
    } else if (input.kind === 'custom') {
      min = amountOf('min_amount', input.min_amount);
      max = amountOf('max_amount', input.max_amount);
      if (min !== null && max !== null && compareDecimals(min, max) > 0) bad('max_amount', 'must not be less than the minimum');
    } else {
      bad('kind', 'must be "fixed" (one amount) or "custom" (the payer chooses between a minimum and a maximum)');
    }
    // The console's kind of refusal (a wrong argument), each bad field listed in the message and in `fields`.
    if (errors.length > 0) throw new DomainError('invalid', `Wrong or missing argument: ${errors.map((f) => `${f.field} ${f.message}`).join('; ')}`, errors);
    return deps.db.kysely
      .insertInto('pay_buttons')
      .values({
        public_id: newButtonId(),
        wallet_id: wallet.id,
        label,
        description: description === '' ? null : description,
        currency,
        amount,
        min_amount: min,
        max_amount: max,
        created_at: BigInt(deps.clock()),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** The buttons of these wallets (the merchant's), newest first, with each wallet's API ID. */
  async list(walletApiIds: string[]): Promise<(PayButtonRow & { api_id: string })[]> {
    if (walletApiIds.length === 0) return [];
    return this.deps.db.kysely
      .selectFrom('pay_buttons')
      .innerJoin('wallets', 'wallets.id', 'pay_buttons.wallet_id')
      .selectAll('pay_buttons')
      .select('wallets.api_id')
      .where('wallets.api_id', 'in', walletApiIds)
      .orderBy('pay_buttons.id', 'desc')
      .execute();
  }

  /** A button as the public sees it (a read only: GET /button/<id> writes nothing). */
  async find(publicId: string): Promise<PublicButton> {
    const row = await this.row(publicId);
    return publicView(row);
  }

  /** The merchant's default page language for a button's wallet (null: none), for the button page. */
  async language(publicId: string): Promise<string | null> {
    const row = await this.deps.db.kysely
      .selectFrom('pay_buttons')
      .innerJoin('wallets', 'wallets.id', 'pay_buttons.wallet_id')
      .select('wallets.default_language')
      .where('pay_buttons.public_id', '=', publicId)
      .executeTakeFirst();
    return row?.default_language ?? null;
  }

  /**
   * The payer asked to pay: checks the amount, counts the creation against the IP's and the button's budget
   * (RateLimitedError when one is full), issues an address within the gap limit (GapLimitError when the window is
   * full) and creates the payment, all in one transaction: a refusal writes and counts nothing.
   * Answers the payment's reference (its hosted page is /pay/<reference>).
   */
  async pay(publicId: string, amountText: unknown, ip: string | null): Promise<string> {
    const { deps } = this;
    const row = await this.row(publicId);
    const amount = this.amountAsked(row, amountText);
    const wallet = await deps.repo.findById(row.wallet_id);
    if (!wallet) throw unknownButton();
    const now = deps.clock();
    const stored = pagePaymentRequest(`button:${row.public_id}`, { payer_ip: ip });
    const created = await deps.db.kysely.transaction().execute(async (trx) => {
      await deps.limiter.consumeIn(trx, this.limits(row, ip), now);
      const { row: payment, address } = await deps.payments.insertPayment(trx, {
        wallet,
        clientRowId: null,
        type: 'hosted',
        cryptoCurrency: cryptoCurrencyOf(wallet.api_id) ?? 'BTC',
        orderCurrency: row.currency,
        orderAmount: amount,
        stored,
        now,
        withinGapLimit: true,
      });
      await trx.insertInto('pay_button_payments').values({ payment_id: payment.id, button_id: row.id, created_at: BigInt(now) }).execute();
      return { reference: payment.reference, address };
    });
    deps.payments.watchCreated(wallet.id, wallet.mode, created.address);
    return created.reference;
  }

  private limits(row: PayButtonRow, ip: string | null): Limit[] {
    const { perIp, perButton, windowMs } = this.budgets;
    const per = windowMs % 60_000 === 0 ? `${windowMs / 60_000} min` : `${Math.ceil(windowMs / 1000)} s`;
    const limits: Limit[] = [];
    if (ip !== null && perIp > 0) limits.push({ key: `button:ip:${ip}`, max: perIp, windowMs, describe: `${perIp} payments through pay buttons every ${per} from one IP address` });
    if (perButton > 0) limits.push({ key: `button:id:${row.id}`, max: perButton, windowMs, describe: `${perButton} payments through this pay button every ${per}` });
    return limits;
  }

  /** The amount to charge: the button's fixed one (no amount may be posted), or the payer's within min and max. */
  private amountAsked(row: PayButtonRow, value: unknown): string {
    const invalid = (message: string) => new DomainError('invalid-fields', 'The payment has invalid fields.', [{ field: 'amount', message }]);
    if (row.amount !== null) {
      if (value !== undefined && value !== row.amount) throw invalid(`must be left out: this button charges ${row.amount} ${row.currency}`);
      return row.amount;
    }
    if (value === undefined || value === '') throw invalid(`is required: from ${row.min_amount} to ${row.max_amount} ${row.currency}`);
    if (typeof value !== 'string') throw invalid('must be given once, as a decimal number');
    const text = value.trim();
    const problem = amountProblem(text, row.currency);
    if (problem !== null) throw invalid(problem);
    if (compareDecimals(text, row.min_amount!) < 0 || compareDecimals(text, row.max_amount!) > 0) {
      throw invalid(`must be from ${row.min_amount} to ${row.max_amount} ${row.currency}`);
    }
    return text;
  }

  private async row(publicId: string): Promise<PayButtonRow> {
    if (!/^btn_[a-z2-7]{24}$/.test(publicId)) throw unknownButton();
    const row = await this.deps.db.kysely.selectFrom('pay_buttons').selectAll().where('public_id', '=', publicId).executeTakeFirst();
    if (!row) throw unknownButton();
    return row;
  }
}

function publicView(row: PayButtonRow): PublicButton {
  return { publicId: row.public_id, label: row.label, description: row.description, currency: row.currency, amount: row.amount, min: row.min_amount, max: row.max_amount };
}
