// Point of sale apps (issue 36, item 1): a wallet's counter app, its items, and the charges it makes. A charge is an
// ordinary payment of payment API v1 made through the payments capability's one creation path (insertPayment: its
// rate lock, an address within the gap limit, its statuses, outbox and hosted page); the app only prices the cart
// (pos-cart.ts) and links the payment. Stock leaves the count in the chain transaction that first sees the payment
// paid in full (onChainChange), never at creation.
import { randomBytes } from 'node:crypto';
import type { Selectable, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database, PaymentsTable, PosAppsTable, PosItemsTable, WalletsTable } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import { DomainError } from '../core/domain-errors.ts';
import { PAYMENT_STATUS_GROUPS } from '../core/payment-statuses.ts';
import type { ChainChange } from '../chain/chain-events.ts';
import type { Limit, RateLimiter } from '../security/rate-limiter.ts';
import type { PaymentService } from '../payments/payment-service.ts';
import { cryptoCurrencyOf } from '../payments/payment-request.ts';
import { pagePaymentRequest } from '../payments/payment-record.ts';
import { checkApp, type AppInput, type CheckedApp } from './pos-fields.ts';
import { priceCart, type ChargeInput, type PricedCart } from './pos-cart.ts';

export type PosAppRow = Selectable<PosAppsTable>;
export type PosItemRow = Selectable<PosItemsTable>;
type WalletRow = Selectable<WalletsTable>;
type PaymentRow = Selectable<PaymentsTable>;
type Trx = Transaction<Database>;

/** An app with its items (in their order) and its wallet's store id. */
export interface PosView {
  app: PosAppRow;
  items: PosItemRow[];
  storeId: string;
}

/** What creation without a login may spend: charges per window from one IP and through one app; 0 turns one off. */
export interface ChargeBudgets {
  perIp: number;
  perApp: number;
  windowMs: number;
}

/**
 * A busy counter charges a few times a minute; a conference's many tablets may share one IP behind a NAT, so the
 * per-IP budget is generous and the gap limit stays the last guard.
 */
export const DEFAULT_CHARGE_BUDGETS: ChargeBudgets = { perIp: 60, perApp: 120, windowMs: 60_000 };

/** Runs in a charge's creating transaction (Greenfield makes it an invoice there). */
export type ChargeListener = (trx: Trx, charge: { wallet: WalletRow; payment: PaymentRow; view: PosView; cart: PricedCart }) => Promise<void>;

export interface PosDeps {
  db: Db;
  clock: Clock;
  payments: PaymentService;
  limiter: RateLimiter;
  isSupportedCurrency(code: string): boolean;
  budgets?: Partial<ChargeBudgets>;
}

const ID = /^pos_[a-z2-7]{24}$/;

/** A new unguessable app id: `pos_` and 24 base32 characters (120 random bits from the CSPRNG). */
export function newPosId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let out = 'pos_';
  for (const b of randomBytes(24)) out += alphabet[b & 31];
  return out;
}

/** A new Greenfield app id: 24 characters of an unambiguous alphabet (BTCPay's ids look alike). Not a key. */
export function newAppId(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  let out = '';
  for (const b of randomBytes(24)) out += alphabet[b & 31];
  return out;
}

const notFound = () => new DomainError('not-found', 'No point of sale with this id: check the link.');

export class PosApps {
  private readonly budgets: ChargeBudgets;
  private readonly chargeListeners: ChargeListener[] = [];

  constructor(private readonly deps: PosDeps) {
    this.budgets = { ...DEFAULT_CHARGE_BUDGETS, ...deps.budgets };
  }

  onCharge(listener: ChargeListener): void {
    this.chargeListeners.push(listener);
  }

  /** Checks an app's fields; the refusal lists every bad field and nothing is stored. */
  check(input: AppInput): CheckedApp {
    const checked = checkApp(input, (code) => this.deps.isSupportedCurrency(code));
    if (!checked.ok) throw new DomainError('invalid-fields', 'The point of sale has invalid fields.', checked.errors);
    return checked.app;
  }

  async create(wallet: WalletRow, input: AppInput): Promise<PosView> {
    const app = this.check(input);
    const now = BigInt(this.deps.clock());
    return this.deps.db.kysely.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('pos_apps')
        .values({ public_id: newPosId(), app_id: newAppId(), wallet_id: wallet.id, ...columns(app), created_at: now, updated_at: now, deleted_at: null })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { app: row, items: await insertItems(trx, row.id, app), storeId: wallet.api_id };
    });
  }

  /** Replaces an app's fields and items (stock counts as given). */
  async update(wallet: WalletRow, publicId: string, input: AppInput): Promise<PosView> {
    const app = this.check(input);
    const current = await this.rowOf(wallet.id, publicId);
    return this.deps.db.kysely.transaction().execute(async (trx) => {
      const row = await trx.updateTable('pos_apps').set({ ...columns(app), updated_at: BigInt(this.deps.clock()) }).where('id', '=', current.id).returningAll().executeTakeFirstOrThrow();
      await trx.deleteFrom('pos_items').where('app_id', '=', row.id).execute();
      return { app: row, items: await insertItems(trx, row.id, app), storeId: wallet.api_id };
    });
  }

  /** Deletes an app: its page answers 404 from now on; its charges and their payments stay. */
  async delete(wallet: WalletRow, publicId: string): Promise<void> {
    const row = await this.rowOf(wallet.id, publicId);
    await this.deps.db.kysely.updateTable('pos_apps').set({ deleted_at: BigInt(this.deps.clock()) }).where('id', '=', row.id).execute();
  }

  /** The apps of these wallets, newest first. */
  async list(wallets: readonly WalletRow[]): Promise<PosView[]> {
    if (wallets.length === 0) return [];
    const storeOf = new Map(wallets.map((w) => [w.id, w.api_id]));
    const rows = await this.deps.db.kysely
      .selectFrom('pos_apps')
      .selectAll()
      .where('wallet_id', 'in', wallets.map((w) => w.id))
      .where('deleted_at', 'is', null)
      .orderBy('id', 'desc')
      .execute();
    const views: PosView[] = [];
    for (const row of rows) views.push({ app: row, items: await this.itemsOf(row.id), storeId: storeOf.get(row.wallet_id)! });
    return views;
  }

  async get(wallet: WalletRow, publicId: string): Promise<PosView> {
    const row = await this.rowOf(wallet.id, publicId);
    return { app: row, items: await this.itemsOf(row.id), storeId: wallet.api_id };
  }

  /** An app by its id alone with its wallet (the public page, Greenfield's /apps/{appId}); deleted ones are not found. */
  async find(publicId: string): Promise<{ view: PosView; wallet: WalletRow }> {
    if (!ID.test(publicId)) throw notFound();
    const row = await this.deps.db.kysely.selectFrom('pos_apps').selectAll().where('public_id', '=', publicId).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row) throw notFound();
    const wallet = await this.deps.db.kysely.selectFrom('wallets').selectAll().where('id', '=', row.wallet_id).executeTakeFirstOrThrow();
    return { view: { app: row, items: await this.itemsOf(row.id), storeId: wallet.api_id }, wallet };
  }

  /** An app by its Greenfield id with its wallet (deleted ones are not found). */
  async findByAppId(appId: string): Promise<{ view: PosView; wallet: WalletRow }> {
    const row = await this.deps.db.kysely.selectFrom('pos_apps').selectAll().where('app_id', '=', appId).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row) throw notFound();
    const wallet = await this.deps.db.kysely.selectFrom('wallets').selectAll().where('id', '=', row.wallet_id).executeTakeFirstOrThrow();
    return { view: { app: row, items: await this.itemsOf(row.id), storeId: wallet.api_id }, wallet };
  }

  /**
   * The cashier presses Charge: prices the cart from the stored items (sold out refused), counts the charge against
   * the budgets, creates the payment (an address only within the gap limit) and links it, in one transaction: a
   * refusal writes and counts nothing. Answers the payment's reference.
   */
  async charge(publicId: string, input: ChargeInput, ip: string | null, language: string | null): Promise<string> {
    const { deps } = this;
    const { view, wallet } = await this.find(publicId);
    const cart = priceCart(pricedApp(view), input);
    const now = deps.clock();
    const stored = pagePaymentRequest(`pos:${view.app.public_id}`, { payer_ip: ip });
    const created = await deps.db.kysely.transaction().execute(async (trx) => {
      await deps.limiter.consumeIn(trx, this.limits(view.app, ip), now);
      const { row, address } = await deps.payments.insertPayment(trx, {
        wallet,
        clientRowId: null,
        type: 'hosted',
        cryptoCurrency: cryptoCurrencyOf(wallet.api_id) ?? 'BTC',
        orderCurrency: cart.currency,
        orderAmount: cart.total,
        stored,
        now,
        withinGapLimit: true,
      });
      await trx
        .insertInto('pos_charges')
        .values({ payment_id: row.id, app_id: view.app.id, cart_json: JSON.stringify(cart), language, stock_applied_at: null, receipt_mail_at: null, created_at: BigInt(now) })
        .execute();
      for (const listener of this.chargeListeners) await listener(trx, { wallet, payment: row, view, cart });
      return { reference: row.reference, address };
    });
    deps.payments.watchCreated(wallet.id, wallet.mode, created.address);
    return created.reference;
  }

  /** A charge of this app (its cart and payment id); another app's payment is not found, like an unknown one. */
  async chargeOf(publicId: string, reference: string): Promise<{ cart: PricedCart; paymentId: bigint; status: string; language: string | null; receiptMailAt: bigint | null; view: PosView; wallet: WalletRow }> {
    const { view, wallet } = await this.find(publicId);
    const row = await this.deps.db.kysely
      .selectFrom('pos_charges as c')
      .innerJoin('payments as p', 'p.id', 'c.payment_id')
      .select(['c.cart_json', 'c.payment_id', 'p.status', 'c.language', 'c.receipt_mail_at'])
      .where('c.app_id', '=', view.app.id)
      .where('p.reference', '=', reference)
      .executeTakeFirst();
    if (!row) throw new DomainError('not-found', 'No charge of this point of sale with this reference.');
    return { cart: JSON.parse(row.cart_json) as PricedCart, paymentId: row.payment_id, status: row.status, language: row.language, receiptMailAt: row.receipt_mail_at, view, wallet };
  }

  /**
   * Chain listener, after the payments' status machine in the same transaction: a charge whose payment is now paid
   * in full takes its items out of the stock, once (a count never goes below zero).
   */
  readonly onChainChange = async (trx: Trx, change: ChainChange): Promise<void> => {
    if (change.addressIds.size === 0) return;
    const rows = await trx
      .selectFrom('pos_charges as c')
      .innerJoin('payments as p', 'p.id', 'c.payment_id')
      .select(['c.payment_id', 'c.app_id', 'c.cart_json'])
      .where('p.address_id', 'in', [...change.addressIds])
      .where('p.status', 'in', [...PAYMENT_STATUS_GROUPS.paidInFull])
      .where('c.stock_applied_at', 'is', null)
      .execute();
    for (const row of rows) await applyStock(trx, row, change.now);
    // The chain is the truth: a paid charge it took back (a reorganisation, a double spend) gives its items back,
    // and takes them again if it is paid again.
    const undone = await trx
      .selectFrom('pos_charges as c')
      .innerJoin('payments as p', 'p.id', 'c.payment_id')
      .select(['c.payment_id', 'c.app_id', 'c.stock_taken_json'])
      .where('p.address_id', 'in', [...change.addressIds])
      .where('p.status', 'not in', [...PAYMENT_STATUS_GROUPS.paidInFull])
      .where('c.stock_applied_at', 'is not', null)
      .execute();
    for (const row of undone) await restoreStock(trx, row);
  };

  private limits(app: PosAppRow, ip: string | null): Limit[] {
    const { perIp, perApp, windowMs } = this.budgets;
    const per = windowMs % 60_000 === 0 ? `${windowMs / 60_000} min` : `${Math.ceil(windowMs / 1000)} s`;
    const limits: Limit[] = [];
    if (ip !== null && perIp > 0) limits.push({ key: `pos:ip:${ip}`, max: perIp, windowMs, describe: `${perIp} charges every ${per} from one IP address` });
    if (perApp > 0) limits.push({ key: `pos:app:${app.id}`, max: perApp, windowMs, describe: `${perApp} charges of one point of sale every ${per}` });
    return limits;
  }

  private async itemsOf(appId: bigint): Promise<PosItemRow[]> {
    return this.deps.db.kysely.selectFrom('pos_items').selectAll().where('app_id', '=', appId).orderBy('position').execute();
  }

  private async rowOf(walletId: bigint, publicId: string): Promise<PosAppRow> {
    if (!ID.test(publicId)) throw notFound();
    const row = await this.deps.db.kysely.selectFrom('pos_apps').selectAll().where('public_id', '=', publicId).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row || row.wallet_id !== walletId) throw notFound();
    return row;
  }
}

/** The stock decrement of one paid charge, and its mark (so it happens once). */
async function applyStock(trx: Trx, row: { payment_id: bigint; app_id: bigint; cart_json: string }, now: number): Promise<void> {
  const cart = JSON.parse(row.cart_json) as PricedCart;
  const taken: Record<string, string> = {};
  for (const line of cart.lines) {
    const item = await trx.selectFrom('pos_items').select('stock').where('app_id', '=', row.app_id).where('item_code', '=', line.code).executeTakeFirst();
    if (!item || item.stock === null) continue;
    // Never below zero (two counters may both have sold the last one): what is taken is at most what was left.
    const stock = BigInt(item.stock);
    const qty = BigInt(line.quantity);
    const take = stock < qty ? stock : qty;
    if (take === 0n) continue;
    await trx.updateTable('pos_items').set({ stock: sql<bigint>`stock - ${take}` }).where('app_id', '=', row.app_id).where('item_code', '=', line.code).execute();
    taken[line.code] = (BigInt(taken[line.code] ?? '0') + take).toString();
  }
  await trx
    .updateTable('pos_charges')
    .set({ stock_applied_at: BigInt(now), stock_taken_json: JSON.stringify(taken) })
    .where('payment_id', '=', row.payment_id)
    .execute();
}

async function restoreStock(trx: Trx, row: { payment_id: bigint; app_id: bigint; stock_taken_json: string | null }): Promise<void> {
  const taken = JSON.parse(row.stock_taken_json ?? '{}') as Record<string, string>;
  for (const [code, amount] of Object.entries(taken)) {
    await trx
      .updateTable('pos_items')
      .set({ stock: sql<bigint>`stock + ${BigInt(amount)}` })
      .where('app_id', '=', row.app_id)
      .where('item_code', '=', code)
      .where('stock', 'is not', null)
      .execute();
  }
  await trx.updateTable('pos_charges').set({ stock_applied_at: null, stock_taken_json: null }).where('payment_id', '=', row.payment_id).execute();
}

/** The app as pricing reads it. */
export function pricedApp(view: PosView) {
  return {
    currency: view.app.currency,
    keypadOnly: Number(view.app.keypad_only) === 1,
    customAmount: Number(view.app.custom_amount) === 1,
    tipPresets: tipPresetsOf(view.app),
    customTip: Number(view.app.custom_tip) === 1,
    items: view.items.map((i) => ({ code: i.item_code, name: i.name, price: i.price, stock: i.stock === null ? null : BigInt(i.stock) })),
  };
}

export function tipPresetsOf(app: PosAppRow): number[] {
  return JSON.parse(app.tip_presets) as number[];
}

function columns(app: CheckedApp) {
  return {
    app_name: app.appName,
    title: app.title,
    description: app.description,
    currency: app.currency,
    keypad_only: app.keypadOnly ? 1n : 0n,
    custom_amount: app.customAmount ? 1n : 0n,
    tip_presets: JSON.stringify(app.tipPresets),
    custom_tip: app.customTip ? 1n : 0n,
    default_language: app.defaultLanguage,
  };
}

async function insertItems(trx: Trx, appId: bigint, app: CheckedApp): Promise<PosItemRow[]> {
  if (app.items.length === 0) return [];
  return trx
    .insertInto('pos_items')
    .values(app.items.map((i, n) => ({ app_id: appId, item_code: i.code, position: BigInt(n), name: i.name, price: i.price, image_url: i.imageUrl, description: i.description, stock: i.stock })))
    .returningAll()
    .execute();
}
