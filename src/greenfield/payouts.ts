// Greenfield pull payments in general and their payouts (BTCPay's swagger.template.pull-payments.json): the store
// sets a limit in BTC, the payee claims payouts to addresses of their own against it (the public routes), the
// merchant approves or cancels each. An approved payout of a service-held wallet is paid through the spending
// capability (signed and stored before broadcast, coins reserved, bumpable) and then follows its spend: InProgress
// once the node has it, Completed once confirmed, AwaitingPayment again if the chain took its coins elsewhere. A
// watch-only wallet cannot sign here: its approved payouts stay AwaitingPayment until the merchant signs the PSBT
// paying them (payout-psbt.ts; they then follow that spend the same way) or pays them elsewhere and marks them
// paid. Refund pull payments (the WooCommerce plugin's, pull-payments.ts) are listed beside these (refund-pulls.ts)
// but are paid through their refund.
import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database, GreenfieldPayoutsTable, GreenfieldPullsTable } from '../db/schema.ts';
import type { Spending } from '../spending/spending.ts';
import type { SpendRow } from '../spending/spend-store.ts';
import type { OutboxEntry } from '../notify/outbox.ts';
import { enqueueNotifications } from '../notify/outbox.ts';
import { lockRow } from '../db/row-locks.ts';
import { btcFromSats, satsFromBtc } from '../money/money.ts';
import { isDecimal } from '../money/decimal.ts';
import { decodeAddressFor, InvalidAddressError } from '../bitcoin/address.ts';
import type { Network } from '../bitcoin/networks.ts';
import { MAX_DUST_THRESHOLD } from '../spending/tx-size.ts';
import { GreenfieldError, GreenfieldValidationError, type GreenfieldFieldError } from './errors.ts';
import { authorizedEventsOf, newPublicId } from './webhook-store.ts';
import { ONCHAIN_PAYMENT_METHOD_ID, wants } from './webhook-events.ts';
import type { RefundPulls } from './refund-pulls.ts';

type Trx = Transaction<Database>;
type PullRow = Selectable<GreenfieldPullsTable>;
type PayoutRow = Selectable<GreenfieldPayoutsTable>;

/** BTCPay's payout states. */
export type PayoutState = 'AwaitingApproval' | 'AwaitingPayment' | 'InProgress' | 'Completed' | 'Cancelled';

/** The payout webhook events, in BTCPay's names. */
export const GREENFIELD_PAYOUT_EVENTS = ['PayoutCreated', 'PayoutApproved', 'PayoutUpdated'] as const;
type PayoutEvent = (typeof GREENFIELD_PAYOUT_EVENTS)[number];

/** The on-chain bitcoin method in the spellings clients of both generations send. */
const ONCHAIN_SPELLINGS = new Set(['BTC', 'BTC-CHAIN', 'BTC_CHAIN', 'BTC-ONCHAIN', 'BTC_ONCHAIN', 'ONCHAIN']);

/** POST …/stores/{storeId}/pull-payments, shape-checked by the route. */
export interface PullRequest {
  name?: string | null;
  description?: string | null;
  amount: string;
  currency: string;
  autoApproveClaims?: boolean | null;
  startsAt?: number | null;
  expiresAt?: number | null;
  payoutMethods?: string[] | null;
  paymentMethods?: string[] | null;
}

/** POST /api/v1/pull-payments/{id}/payouts, shape-checked by the route. */
export interface PayoutRequest {
  destination: string;
  amount?: string | null;
  payoutMethodId?: string | null;
  paymentMethod?: string | null;
}

/** POST …/stores/{storeId}/payouts: the claim made by the store itself (BTCPay's CreatePayoutThroughStoreRequest). */
export interface StorePayoutRequest extends PayoutRequest {
  pullPaymentId?: string | null;
  approved?: boolean | null;
  metadata?: Record<string, unknown> | null;
}

/** POST …/stores/{storeId}/payouts/{payoutId}. */
export interface ApproveRequest {
  revision?: number | null;
  rateRule?: string | null;
}

/** What payouts need. */
export interface PayoutsDeps {
  db: Db;
  clock: () => number;
  log: Logger;
  spending: Pick<Spending, 'spend' | 'onStatus'>;
  publicUrl: string;
  /** Wakes the outbox worker after a transaction that queued deliveries committed. */
  wake(): void;
  /** The refunds' pull payments, listed and answered beside the general ones as BTCPay does. */
  refunds: RefundPulls;
}

const pullNotFound = () => new GreenfieldError(404, 'pullpayment-not-found', 'The pull payment was not found');
const payoutNotFound = () => new GreenfieldError(404, 'payout-not-found', 'The payout was not found');
const invalidState = (state: string) => new GreenfieldError(400, 'invalid-state', `The payout is ${state}, which this action does not apply to`);

/** Spend status → payout state of a payout paid by that spend. */
const SPEND_TO_PAYOUT: Record<string, PayoutState> = { broadcast: 'InProgress', confirmed: 'Completed', failed: 'AwaitingPayment' };

/** Greenfield pull payments and payouts of service-held and watch-only wallets. */
export class GreenfieldPayouts {
  constructor(private readonly deps: PayoutsDeps) {
    // A payout follows the spend that pays it; a failed spend (its coins spent elsewhere) unlinks it to be paid again.
    deps.spending.onStatus(async (trx: Trx, spend: SpendRow, _from: string, to: string) => {
      if (spend.purpose !== 'payout') return;
      const next = SPEND_TO_PAYOUT[to];
      if (!next) return;
      const rows = await trx.selectFrom('greenfield_payouts').selectAll().where('spend_id', '=', spend.id).execute();
      for (const row of rows) {
        if (row.state === 'Cancelled') continue;
        const extra = to === 'failed' ? { spend_id: null, last_error: spend.last_error } : {};
        await this.transition(trx, row, next, extra);
      }
    });
  }

  /** Creates a general pull payment (BTC only: satgate has no payout rate rules). */
  async createPull(walletId: bigint, req: PullRequest, mayAutoApprove: boolean): Promise<Record<string, unknown>> {
    const errors: GreenfieldFieldError[] = [];
    const methods = req.payoutMethods ?? req.paymentMethods ?? null;
    if (methods !== null && (methods.length === 0 || !methods.every((m) => ONCHAIN_SPELLINGS.has(m.toUpperCase())))) {
      errors.push({ path: 'payoutMethods', message: 'satgate pays out on-chain bitcoin only: BTC-CHAIN (or leave the list out)' });
    }
    if (req.currency.toUpperCase() !== 'BTC') errors.push({ path: 'currency', message: 'must be BTC: satgate pull payments are in bitcoin' });
    const sats = btcAmount(req.amount, 'amount', errors);
    if (sats !== null && sats < MAX_DUST_THRESHOLD) errors.push({ path: 'amount', message: `must be at least ${btcFromSats(MAX_DUST_THRESHOLD)} BTC` });
    const now = this.deps.clock();
    const startsAt = req.startsAt ?? Math.floor(now / 1000);
    const expiresAt = req.expiresAt ?? null;
    if (startsAt < 0) errors.push({ path: 'startsAt', message: 'must be a unix time in seconds' });
    if (expiresAt !== null && expiresAt <= startsAt) errors.push({ path: 'expiresAt', message: 'must be after startsAt' });
    if (req.autoApproveClaims === true && !mayAutoApprove) {
      errors.push({ path: 'autoApproveClaims', message: 'needs the btcpay.store.cancreatepullpayments permission' });
    }
    if (errors.length > 0 || sats === null) throw new GreenfieldValidationError(errors);
    const row = await this.deps.db.kysely
      .insertInto('greenfield_pulls')
      .values({
        public_id: newPublicId(),
        wallet_id: walletId,
        name: req.name ?? '',
        description: req.description ?? '',
        amount_sats: sats,
        auto_approve: req.autoApproveClaims === true ? 1 : 0,
        starts_at: BigInt(startsAt),
        expires_at: expiresAt === null ? null : BigInt(expiresAt),
        archived_at: null,
        created_at: BigInt(now),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.pullData(row);
  }

  /** The store's pull payments, refunds' included (as BTCPay lists them), oldest first. */
  async listPulls(walletId: bigint, includeArchived: boolean): Promise<Record<string, unknown>[]> {
    let q = this.deps.db.kysely.selectFrom('greenfield_pulls').selectAll().where('wallet_id', '=', walletId);
    if (!includeArchived) q = q.where('archived_at', 'is', null);
    const general = (await q.orderBy('id').execute()).map((r) => ({ createdAt: r.created_at, data: this.pullData(r) }));
    const all = [...general, ...(await this.deps.refunds.list(walletId))];
    // A stable sort: ties keep each kind's own order.
    return all.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0)).map((p) => p.data);
  }

  /** One pull payment by its id, a refund's too (public: the id is the payee's capability). */
  async getPull(publicId: string): Promise<Record<string, unknown>> {
    const refund = await this.deps.refunds.get(publicId);
    if (refund) return refund;
    return this.pullData(await this.pullRow(this.deps.db.kysely, publicId));
  }

  /** Archives a pull payment of the store; its payouts not yet paid are cancelled. */
  async archivePull(walletId: bigint, publicId: string): Promise<void> {
    if (await this.deps.refunds.get(publicId, walletId)) {
      throw new GreenfieldError(400, 'refund-not-archivable', "A refund's pull payment is not archived: its page stays open until the refund is paid");
    }
    await this.deps.db.kysely.transaction().execute(async (trx) => {
      const pull = await this.pullRow(trx, publicId, walletId);
      await lockRow(trx, this.deps.db, 'wallets', walletId);
      if (pull.archived_at === null) await trx.updateTable('greenfield_pulls').set({ archived_at: BigInt(this.deps.clock()) }).where('id', '=', pull.id).execute();
      const open = await trx.selectFrom('greenfield_payouts').selectAll().where('pull_id', '=', pull.id).where('state', 'in', ['AwaitingApproval', 'AwaitingPayment']).where('spend_id', 'is', null).execute();
      for (const p of open) await this.transition(trx, p, 'Cancelled');
    });
    this.deps.wake();
  }

  /**
   * The store's own claim on one of its pull payments (satgate's payouts always belong to one), approved at once
   * when asked and allowed.
   */
  async createStorePayout(walletId: bigint, req: StorePayoutRequest, mayApprove: boolean): Promise<Record<string, unknown>> {
    const errors: GreenfieldFieldError[] = [];
    if (req.pullPaymentId === undefined || req.pullPaymentId === null) errors.push({ path: 'pullPaymentId', message: 'is required: satgate payouts belong to a pull payment of the store' });
    if (req.approved === true && !mayApprove) errors.push({ path: 'approved', message: 'needs the btcpay.store.cancreatepullpayments permission' });
    if (errors.length > 0) throw new GreenfieldValidationError(errors);
    await this.pullRow(this.deps.db.kysely, req.pullPaymentId!, walletId);
    return this.createPayout(req.pullPaymentId!, req, { approve: req.approved === true, metadata: req.metadata ?? {} });
  }

  /** The payee's claim: a payout to `destination` of `amount` BTC (default: what is left of the pull payment). */
  async createPayout(pullPublicId: string, req: PayoutRequest, opts: { approve?: boolean; metadata?: Record<string, unknown> } = {}): Promise<Record<string, unknown>> {
    const pull0 = await this.pullRow(this.deps.db.kysely, pullPublicId);
    const wallet = await this.deps.db.kysely.selectFrom('wallets').select(['network', 'seed_sealed']).where('id', '=', pull0.wallet_id).executeTakeFirstOrThrow();
    const errors: GreenfieldFieldError[] = [];
    const method = req.payoutMethodId ?? req.paymentMethod ?? null;
    if (method !== null && !ONCHAIN_SPELLINGS.has(method.toUpperCase())) {
      throw new GreenfieldError(400, 'payment-method-not-supported', `satgate pays out on-chain bitcoin only (${ONCHAIN_PAYMENT_METHOD_ID})`);
    }
    const { address, bip21Amount } = readDestination(req.destination);
    try {
      decodeAddressFor(address, wallet.network as Network);
    } catch (err) {
      if (!(err instanceof InvalidAddressError)) throw err;
      errors.push({ path: 'destination', message: `is not a ${wallet.network} bitcoin address or BIP21 URI: ${err.message}` });
    }
    const amountText = req.amount ?? bip21Amount;
    const asked = amountText === null ? null : btcAmount(amountText, 'amount', errors);
    if (errors.length > 0) throw new GreenfieldValidationError(errors);

    const now = this.deps.clock();
    const created = await this.deps.db.kysely.transaction().execute(async (trx) => {
      await lockRow(trx, this.deps.db, 'wallets', pull0.wallet_id);
      const pull = await this.pullRow(trx, pullPublicId);
      if (pull.archived_at !== null) throw new GreenfieldError(400, 'archived', 'The pull payment is archived');
      const seconds = BigInt(Math.floor(now / 1000));
      if (pull.starts_at > seconds) throw new GreenfieldError(400, 'not-started', 'The pull payment has not started yet');
      if (pull.expires_at !== null && pull.expires_at <= seconds) throw new GreenfieldError(400, 'expired', 'The pull payment has expired');
      const active = await trx.selectFrom('greenfield_payouts').select(['amount_sats', 'destination', 'pull_id', 'state']).where('wallet_id', '=', pull.wallet_id).where('state', '!=', 'Cancelled').execute();
      if (active.some((p) => p.destination === address && p.state !== 'Completed')) {
        throw new GreenfieldError(400, 'duplicate-destination', 'This destination is already used by another payout of the store');
      }
      const claimed = active.filter((p) => p.pull_id === pull.id).reduce((s, p) => s + p.amount_sats, 0n);
      const left = pull.amount_sats - claimed;
      const sats = asked ?? left;
      if (sats > left) throw new GreenfieldError(400, 'overdraft', `The pull payment has ${btcFromSats(left)} BTC left to claim`);
      if (sats < MAX_DUST_THRESHOLD) throw new GreenfieldError(400, 'amount-too-low', `A payout is at least ${btcFromSats(MAX_DUST_THRESHOLD)} BTC`);
      const row = await trx
        .insertInto('greenfield_payouts')
        .values({
          public_id: newPublicId(),
          wallet_id: pull.wallet_id,
          pull_id: pull.id,
          destination: address,
          amount_sats: sats,
          state: 'AwaitingApproval',
          announced_state: 'AwaitingApproval',
          spend_id: null,
          last_error: null,
          metadata_json: JSON.stringify(opts.metadata ?? {}),
          created_at: BigInt(now),
          updated_at: BigInt(now),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await this.announce(trx, row, 'PayoutCreated');
      return Number(pull.auto_approve) === 1 || opts.approve === true ? await this.transition(trx, row, 'AwaitingPayment') : row;
    });
    this.deps.wake();
    if (created.state === 'AwaitingPayment' && wallet.seed_sealed !== null) return this.payoutData(await this.pay(created.id));
    return this.payoutData(created);
  }

  /** Payouts of one pull payment (public) or of the store, oldest first; cancelled ones only when asked. */
  async listPayouts(of: { pullPublicId: string } | { walletId: bigint }, includeCancelled: boolean): Promise<Record<string, unknown>[]> {
    let q = this.deps.db.kysely.selectFrom('greenfield_payouts').selectAll();
    if ('pullPublicId' in of) q = q.where('pull_id', '=', (await this.pullRow(this.deps.db.kysely, of.pullPublicId)).id);
    else q = q.where('wallet_id', '=', of.walletId);
    if (!includeCancelled) q = q.where('state', '!=', 'Cancelled');
    return this.payoutsData(await q.orderBy('id').execute());
  }

  /** One payout of the store, or of the pull payment (public). */
  async getPayout(of: { pullPublicId: string } | { walletId: bigint }, payoutId: string): Promise<Record<string, unknown>> {
    const row = await this.payoutRow(this.deps.db.kysely, payoutId, of);
    return this.payoutData(row);
  }

  /** Approves a payout awaiting approval; pays it at once from a service-held wallet. */
  async approve(walletId: bigint, payoutId: string, req: ApproveRequest): Promise<Record<string, unknown>> {
    const approved = await this.deps.db.kysely.transaction().execute(async (trx) => {
      await lockRow(trx, this.deps.db, 'wallets', walletId);
      const row = await this.payoutRow(trx, payoutId, { walletId });
      // The amount and destination never change after creation here, so every payout is at revision 0.
      if (req.revision !== undefined && req.revision !== null && req.revision !== 0) {
        throw new GreenfieldError(400, 'old-revision', `The payout is at revision 0, not ${req.revision}`);
      }
      if (row.state !== 'AwaitingApproval') throw invalidState(row.state);
      return this.transition(trx, row, 'AwaitingPayment');
    });
    this.deps.wake();
    const wallet = await this.deps.db.kysely.selectFrom('wallets').select('seed_sealed').where('id', '=', walletId).executeTakeFirstOrThrow();
    return this.payoutData(wallet.seed_sealed !== null ? await this.pay(approved.id) : approved);
  }

  /** Cancels a payout not yet sent. */
  async cancel(walletId: bigint, payoutId: string): Promise<void> {
    await this.deps.db.kysely.transaction().execute(async (trx) => {
      await lockRow(trx, this.deps.db, 'wallets', walletId);
      const row = await this.payoutRow(trx, payoutId, { walletId });
      if (row.state === 'Cancelled') return;
      if (!(row.state === 'AwaitingApproval' || row.state === 'AwaitingPayment') || row.spend_id !== null) throw invalidState(row.state);
      await this.transition(trx, row, 'Cancelled');
    });
    this.deps.wake();
  }

  /** The merchant paid an approved payout elsewhere (a watch-only wallet's, typically): Completed. */
  async markPaid(walletId: bigint, payoutId: string): Promise<void> {
    await this.deps.db.kysely.transaction().execute(async (trx) => {
      await lockRow(trx, this.deps.db, 'wallets', walletId);
      const row = await this.payoutRow(trx, payoutId, { walletId });
      if (row.state !== 'AwaitingPayment' || row.spend_id !== null) throw invalidState(row.state);
      await this.transition(trx, row, 'Completed');
    });
    this.deps.wake();
  }

  /** Sends every approved, unpaid payout of service-held wallets (after a failed attempt or a failed spend). */
  async payDue(): Promise<void> {
    const due = await this.deps.db.kysely
      .selectFrom('greenfield_payouts as p')
      .innerJoin('wallets as w', 'w.id', 'p.wallet_id')
      .select('p.id')
      .where('p.state', '=', 'AwaitingPayment')
      .where('p.spend_id', 'is', null)
      .where('w.seed_sealed', 'is not', null)
      .orderBy('p.id')
      .execute();
    for (const p of due) await this.pay(p.id);
  }

  /**
   * Pays one approved payout through the spending capability; the spend and the payout's link to it commit
   * together, so a payout is paid by one stored spend or by none. A failure (funds, fee) is kept as last_error
   * and the payout stays AwaitingPayment for the next attempt.
   */
  private async pay(id: bigint): Promise<PayoutRow> {
    const row = await this.deps.db.kysely.selectFrom('greenfield_payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    if (row.state !== 'AwaitingPayment' || row.spend_id !== null) return row;
    const prefix = `payout:${row.public_id}:`;
    // SQLite's LIKE ignores case and ids are case-sensitive: the prefix is checked exactly here.
    const attempts = (await this.deps.db.kysely.selectFrom('spends').select('reference').where('purpose', '=', 'payout').where('reference', 'like', `${prefix}%`).execute()).filter((s) =>
      s.reference?.startsWith(prefix),
    );
    try {
      await this.deps.spending.spend(
        // A failed spend keeps its reference: the next attempt is a new one.
        { walletId: row.wallet_id, outputs: [{ address: row.destination, amountSats: row.amount_sats }], purpose: 'payout', reference: `${prefix}${attempts.length}` },
        {
          inTransaction: async (trx, spend) => {
            const linked = await trx
              .updateTable('greenfield_payouts')
              .set({ spend_id: spend.id, last_error: null, updated_at: BigInt(this.deps.clock()) })
              .where('id', '=', id)
              .where('state', '=', 'AwaitingPayment')
              .where('spend_id', 'is', null)
              .executeTakeFirst();
            // Cancelled or paid meanwhile: abandon this spend (the transaction rolls back).
            if (linked.numUpdatedRows !== 1n) throw new Error('the payout was cancelled or paid meanwhile');
          },
        },
      );
    } catch (err) {
      this.deps.log.warn({ payout: row.public_id, err: (err as Error).message }, 'payout not sent yet; will retry');
      await this.deps.db.kysely.updateTable('greenfield_payouts').set({ last_error: (err as Error).message.slice(0, 500) }).where('id', '=', id).execute();
    }
    return this.deps.db.kysely.selectFrom('greenfield_payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** Moves a payout to a state and announces it (PayoutApproved on approval, PayoutUpdated otherwise). */
  private async transition(trx: Trx, row: PayoutRow, to: PayoutState, extra: Partial<Pick<PayoutRow, 'spend_id' | 'last_error'>> = {}): Promise<PayoutRow> {
    const updated = await trx
      .updateTable('greenfield_payouts')
      .set({ state: to, announced_state: to, updated_at: BigInt(this.deps.clock()), ...extra })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (row.state !== to) await this.announce(trx, updated, row.state === 'AwaitingApproval' && to === 'AwaitingPayment' ? 'PayoutApproved' : 'PayoutUpdated');
    return updated;
  }

  /** Queues the event for the store's webhooks that want it (BTCPay's WebhookPayoutEvent body). */
  private async announce(trx: Trx, row: PayoutRow, type: PayoutEvent): Promise<void> {
    const hooks = await trx.selectFrom('greenfield_webhooks').selectAll().where('wallet_id', '=', row.wallet_id).where('enabled', '=', 1).orderBy('id').execute();
    if (hooks.length === 0) return;
    const wallet = await trx.selectFrom('wallets').select('api_id').where('id', '=', row.wallet_id).executeTakeFirstOrThrow();
    const pull = await trx.selectFrom('greenfield_pulls').select('public_id').where('id', '=', row.pull_id).executeTakeFirstOrThrow();
    const now = this.deps.clock();
    const entries: OutboxEntry[] = [];
    for (const hook of hooks) {
      if (!wants(authorizedEventsOf(hook), type)) continue;
      const deliveryId = newPublicId();
      entries.push({
        kind: 'webhook',
        target: hook.url,
        payload: {
          deliveryId,
          webhookId: hook.public_id,
          originalDeliveryId: deliveryId,
          isRedelivery: false,
          type,
          timestamp: Math.floor(now / 1000),
          storeId: wallet.api_id,
          payoutId: row.public_id,
          pullPaymentId: pull.public_id,
          payoutState: row.state,
        },
        walletId: row.wallet_id,
        paymentId: null,
        greenfield: { webhookId: hook.id, deliveryId },
      });
    }
    if (entries.length > 0) await enqueueNotifications(trx, entries, now);
  }

  private async pullRow(q: Trx | Db['kysely'], publicId: string, walletId?: bigint): Promise<PullRow> {
    let sel = q.selectFrom('greenfield_pulls').selectAll().where('public_id', '=', publicId);
    if (walletId !== undefined) sel = sel.where('wallet_id', '=', walletId);
    const row = await sel.executeTakeFirst();
    if (!row) throw pullNotFound();
    return row;
  }

  private async payoutRow(q: Trx | Db['kysely'], publicId: string, of: { pullPublicId: string } | { walletId: bigint }): Promise<PayoutRow> {
    let sel = q.selectFrom('greenfield_payouts').selectAll().where('public_id', '=', publicId);
    if ('walletId' in of) sel = sel.where('wallet_id', '=', of.walletId);
    else sel = sel.where('pull_id', '=', (await this.pullRow(q, of.pullPublicId)).id);
    const row = await sel.executeTakeFirst();
    if (!row) throw payoutNotFound();
    return row;
  }

  /** BTCPay's PullPaymentData. */
  private pullData(row: PullRow): Record<string, unknown> {
    return {
      id: row.public_id,
      name: row.name,
      description: row.description,
      currency: 'BTC',
      amount: btcFromSats(row.amount_sats),
      period: null,
      BOLT11Expiration: 30,
      autoApproveClaims: Number(row.auto_approve) === 1,
      archived: row.archived_at !== null,
      viewLink: `${this.deps.publicUrl}/api/v1/pull-payments/${row.public_id}`,
      startsAt: Number(row.starts_at),
      expiresAt: row.expires_at === null ? null : Number(row.expires_at),
      payoutMethods: [ONCHAIN_PAYMENT_METHOD_ID],
    };
  }

  private async payoutsData(rows: PayoutRow[]): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (const r of rows) out.push(await this.payoutData(r));
    return out;
  }

  /** BTCPay's PayoutData, with the 1.x names (paymentMethod, cryptoCode, amount, paymentMethodAmount) beside 2.x's. */
  private async payoutData(row: PayoutRow): Promise<Record<string, unknown>> {
    const pull = await this.deps.db.kysely.selectFrom('greenfield_pulls').select('public_id').where('id', '=', row.pull_id).executeTakeFirstOrThrow();
    const spend = row.spend_id === null ? undefined : await this.deps.db.kysely.selectFrom('spends').select('txid').where('id', '=', row.spend_id).executeTakeFirst();
    const amount = btcFromSats(row.amount_sats);
    const approved = row.state !== 'AwaitingApproval' && row.state !== 'Cancelled';
    return {
      id: row.public_id,
      revision: 0,
      pullPaymentId: pull.public_id,
      date: Math.floor(Number(row.created_at) / 1000),
      destination: row.destination,
      originalCurrency: 'BTC',
      originalAmount: amount,
      payoutCurrency: 'BTC',
      payoutAmount: approved ? amount : null,
      payoutMethodId: ONCHAIN_PAYMENT_METHOD_ID,
      paymentMethod: 'BTC',
      cryptoCode: 'BTC',
      amount,
      paymentMethodAmount: approved ? amount : null,
      state: row.state,
      paymentProof: spend ? { proofType: 'PayoutTransactionOnChainBlob', transactionId: spend.txid, candidates: [spend.txid] } : null,
      metadata: JSON.parse(row.metadata_json) as Record<string, unknown>,
    };
  }
}

/** A BTC amount as exact satoshis; a problem is added to `errors` under `path`. */
function btcAmount(text: string, path: string, errors: GreenfieldFieldError[]): bigint | null {
  if (!isDecimal(text, { maxIntegerDigits: 8, maxFractionDigits: 8 }) || /^0*(\.0*)?$/.test(text)) {
    errors.push({ path, message: 'must be a positive decimal string of BTC with at most 8 decimals, e.g. "0.001"' });
    return null;
  }
  const sats = satsFromBtc(text);
  if (sats > 21_000_000n * 100_000_000n) {
    errors.push({ path, message: 'is more than 21,000,000 BTC' });
    return null;
  }
  return sats;
}

/** The address of a destination (an address or a BIP21 `bitcoin:` URI) and the URI's amount, if any. */
function readDestination(destination: string): { address: string; bip21Amount: string | null } {
  const text = destination.trim();
  if (!/^bitcoin:/i.test(text)) return { address: text, bip21Amount: null };
  const rest = text.slice('bitcoin:'.length);
  const q = rest.indexOf('?');
  const address = q < 0 ? rest : rest.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : rest.slice(q + 1));
  return { address, bip21Amount: params.get('amount') };
}
