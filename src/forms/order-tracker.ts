// Keeps the order state of payment forms and set_addr orders equal to what `deriveOrderState` says.
// Hooked into the chain like the payment status machine: every change the watcher commits re-derives
// the orders it can affect, in the watcher's own transaction; a sweeper applies the clock-driven
// change (a lock running out with nothing paid: `failed`). Changes go through applyOrderChange.
import type { Selectable, Transaction } from 'kysely';
import { lockRow } from '../db/row-locks.ts';
import type { Rates } from '../rates/rates-port.ts';
import { spotAtFirstSight } from '../rates/spot-at-first-sight.ts';
import { PeriodicTask } from '../core/periodic-task.ts';
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Database, WalletsTable } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import type { ChainChange } from '../chain/chain-events.ts';
import { enqueueNotifications, type OutboxEntry } from '../notify/outbox.ts';
import { sealedMailPayload } from '../notify/sealed-mail.ts';
import { btcFromSats } from '../money/money.ts';
import { PAYER_RECEIPT_EVENT, renderPayerReceipt } from './payer-receipt.ts';
import { minorUnits } from '../money/currencies.ts';
import { confirmations } from '../wallets/address-activity.ts';
import { deriveOrderState, type OrderLock, type OrderOutput, type OrderState, type OrderStatus } from './order-state.ts';
import { paymentUpdateBody, triggersOf, type OrderFacts } from './notification-body.ts';
import { applyOrderChange, type OrderKind } from './order-change.ts';
import type { UserField } from './form-request.ts';
import { ensureWebhookSecret, newWebhookSecret } from '../payments/webhook-secrets.ts';

type Trx = Transaction<Database>;

/** How often the sweeper looks for orders whose lock ran out. */
export const ORDER_SWEEP_INTERVAL_MS = 5_000;

/** What the tracker needs. */
export interface OrderTrackerDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  masterKey: MasterKey;
  rates: Rates;
  sweepIntervalMs?: number;
}

/** An order as the tracker reads it, whichever table it lives in. */
interface Tracked {
  kind: OrderKind;
  id: bigint;
  wallet: Selectable<WalletsTable>;
  addressId: bigint;
  address: string;
  createdAt: number;
  locks: OrderLock[];
  closesAt?: number;
  orderStatus: string | null;
  paymentStatus: string | null;
  snapshot: Record<string, boolean>;
  facts: OrderFacts;
  webhook: string | null;
  email: string | null;
  /** A payment form whose payer asked for a receipt and has none queued yet; null otherwise. */
  receipt: { to: string; linkSealed: string; shopName: string; language: string | null } | null;
}

/** Re-derives order states on chain changes and on the clock. */
export class OrderTracker {
  private readonly sweeper: PeriodicTask;

  constructor(private readonly deps: OrderTrackerDeps) {
    this.sweeper = new PeriodicTask(() => this.sweep(), {
      everyMs: deps.sweepIntervalMs ?? ORDER_SWEEP_INTERVAL_MS,
      firstDelayMs: deps.sweepIntervalMs ?? ORDER_SWEEP_INTERVAL_MS,
      onError: (err) => deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'order sweep failed; will retry'),
    });
  }

  /** The chain listener: orders on touched addresses and, on blocks and reorgs, those with transactions awaiting confirmation. */
  readonly onChainChange = async (trx: Trx, change: ChainChange): Promise<void> => {
    const keys = new Map<string, { kind: OrderKind; id: bigint }>();
    const add = (kind: OrderKind, id: bigint) => keys.set(`${kind}:${id}`, { kind, id });
    if (change.addressIds.size > 0) {
      const ids = [...change.addressIds];
      for (const r of await trx.selectFrom('payment_forms').select('id').where('address_id', 'in', ids).execute()) add('form', r.id);
      for (const r of await trx.selectFrom('address_orders').select('id').where('address_id', 'in', ids).execute()) add('address', r.id);
    }
    if (change.cause === 'block' || change.cause === 'tip' || change.cause === 'reorg') {
      for (const r of await trx.selectFrom('payment_forms').select('id').where('open_txs', '>', 0n).execute()) add('form', r.id);
      for (const r of await trx.selectFrom('address_orders').select('id').where('open_txs', '>', 0n).execute()) add('address', r.id);
    }
    for (const { kind, id } of keys.values()) await this.rederive(trx, kind, id, change.cause, change.now);
  };

  /** Derives one order's state now and stores it through applyOrderChange; answers the state. */
  async rederive(trx: Trx, kind: OrderKind, id: bigint, cause: string, now: number): Promise<OrderState> {
    await lockRow(trx, this.deps.db, kind === 'form' ? 'payment_forms' : 'address_orders', id);
    const order = kind === 'form' ? await this.loadForm(trx, id) : await this.loadAddressOrder(trx, id);
    const tipRow = await trx.selectFrom('chain_tips').select('tip_height').where('chain', '=', order.wallet.mode).executeTakeFirst();
    const tip = tipRow ? Number(tipRow.tip_height) : null;
    const outputs = await this.withLateRates(trx, order, await this.outputsOf(trx, order, tip), now);
    const state = deriveOrderState(
      {
        orderAmount: order.facts.orderAmount,
        locks: order.locks,
        outputs,
        now,
        requiredConfirmations: Number(order.wallet.required_confirmations),
        ...(order.closesAt !== undefined ? { closesAt: order.closesAt } : {}),
      },
      minorUnits(order.facts.orderCurrency),
    );
    const snapshot = Object.fromEntries(state.transactions.map((t) => [t.txid, t.confirmed]));
    const openTxs = state.transactions.filter((t) => !t.confirmed).length;
    const statusChanged = state.orderStatus !== (order.orderStatus ?? 'pending') || state.paymentStatus !== (order.paymentStatus ?? 'unconfirmed');
    const triggers = triggersOf(order.snapshot, state, statusChanged);
    const changed = statusChanged || JSON.stringify(snapshot) !== JSON.stringify(order.snapshot) || order.orderStatus === null;
    // Outside the `changed` test: a payer who consents after the order was already paid and confirmed still gets it.
    if (order.receipt && (state.orderStatus === 'paid' || state.orderStatus === 'paid_too_much') && state.paymentStatus === 'confirmed') {
      await this.queueReceipt(trx, order, order.receipt, state, now);
    }
    if (!changed) return state;
    const notifications: OutboxEntry[] = [];
    if (triggers.length > 0) {
      const body = paymentUpdateBody({ ...order.facts, exchangeRate: order.locks[order.locks.length - 1]!.rate }, state, triggers);
      const common = { payload: body, walletId: order.wallet.id, paymentId: null, order: { kind, id } };
      if (order.webhook) {
        // Every webhook is signed: a wallet that has no secret yet gets one (the operator reads it with `satgate webhook-secret rotate`).
        await ensureWebhookSecret(trx, this.deps.masterKey, order.wallet.id, newWebhookSecret(), now);
        notifications.push({ kind: 'webhook', target: order.webhook, ...common });
      }
      if (order.email) notifications.push({ kind: 'email', target: order.email, ...common });
    }
    await applyOrderChange(trx, {
      kind,
      id,
      from: order.orderStatus,
      to: state.orderStatus,
      paymentStatus: state.paymentStatus,
      cause,
      at: now,
      snapshot,
      openTxs,
      notifications,
    });
    if (state.orderStatus !== order.orderStatus) this.deps.log.info({ kind, id: String(id), from: order.orderStatus, to: state.orderStatus, cause }, 'order status changed');
    return state;
  }

  /** Queues the payer's receipt (sealed: it links to the order page) and marks it queued, in the caller's transaction. */
  private async queueReceipt(trx: Trx, order: Tracked, receipt: NonNullable<Tracked['receipt']>, state: OrderState, now: number): Promise<void> {
    const { masterKey } = this.deps;
    const message = renderPayerReceipt({
      shopName: receipt.shopName,
      orderId: order.facts.orderId,
      orderAmount: order.facts.orderAmount ?? '0',
      orderCurrency: order.facts.orderCurrency,
      paidCrypto: btcFromSats(state.confirmedSats + state.unconfirmedSats),
      cryptoCurrency: order.facts.cryptoCurrency,
      txids: state.transactions.map((t) => t.txid),
      orderPageUrl: masterKey.unseal(receipt.linkSealed).toString('utf8'),
      language: receipt.language,
    });
    const entry: OutboxEntry = {
      kind: 'email',
      target: receipt.to,
      payload: sealedMailPayload(masterKey, PAYER_RECEIPT_EVENT, message),
      walletId: order.wallet.id,
      paymentId: null,
      order: { kind: order.kind, id: order.id },
    };
    await enqueueNotifications(trx, [entry], now);
    await trx.updateTable('payment_forms').set({ receipt_queued_at: BigInt(now) }).where('id', '=', order.id).execute();
  }

  /**
   * Gives outputs first seen after the lock in force had run out their spot rate at first sight: read back when
   * recorded, else fetched now and recorded (kept by txid and index, so a reorg does not change it).
   */
  private async withLateRates(trx: Trx, order: Tracked, outputs: OrderOutput[], now: number): Promise<OrderOutput[]> {
    const lockAt = (at: number) => [...order.locks].reverse().find((l) => l.lockedAt <= at) ?? order.locks[0]!;
    const late = outputs.filter((o) => o.firstSeenAt >= lockAt(o.firstSeenAt).expiresAt);
    if (late.length === 0) return outputs;
    const stored = await trx.selectFrom('order_output_rates').selectAll().where('order_kind', '=', order.kind).where('order_id', '=', order.id).execute();
    const rates = new Map(stored.map((r) => [`${r.txid}:${r.vout}`, r.rate]));
    for (const o of late) {
      const key = `${o.txid}:${o.vout}`;
      if (rates.has(key)) continue;
      const spot = await spotAtFirstSight(this.deps.rates, this.deps.log, order.facts.orderCurrency);
      const rate = spot?.rate ?? lockAt(o.firstSeenAt).rate;
      await trx
        .insertInto('order_output_rates')
        .values({ order_kind: order.kind, order_id: order.id, txid: o.txid, vout: BigInt(o.vout), rate, rate_at: BigInt(spot?.at ?? now), source: spot ? 'spot' : 'locked', created_at: BigInt(now) })
        .execute();
      rates.set(key, rate);
    }
    return outputs.map((o) => (rates.has(`${o.txid}:${o.vout}`) ? { ...o, spotRate: rates.get(`${o.txid}:${o.vout}`)! } : o));
  }

  /** Outputs paying the order's address, not withdrawn, first seen before a later order took the address. */
  private async outputsOf(trx: Trx, order: Tracked, tip: number | null): Promise<OrderOutput[]> {
    const later = (
      await Promise.all([
        trx.selectFrom('payment_forms').select('created_at').where('address_id', '=', order.addressId).where('created_at', '>', BigInt(order.createdAt)).execute(),
        trx.selectFrom('address_orders').select('created_at').where('address_id', '=', order.addressId).where('created_at', '>', BigInt(order.createdAt)).execute(),
      ])
    )
      .flat()
      .map((r) => Number(r.created_at));
    const until = later.length > 0 ? Math.min(...later) : Number.POSITIVE_INFINITY;
    const rows = await trx
      .selectFrom('chain_outputs as o')
      .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
      .select(['o.vout', 'o.value_sats', 't.txid', 't.state', 't.block_height', 't.first_seen_at'])
      .where('o.address_id', '=', order.addressId)
      .where('t.state', '!=', 'withdrawn')
      .orderBy('t.first_seen_at')
      .orderBy('o.id')
      .execute();
    return rows
      .filter((r) => Number(r.first_seen_at) < until)
      .map((r) => ({
        txid: r.txid,
        vout: Number(r.vout),
        sats: r.value_sats,
        firstSeenAt: Number(r.first_seen_at),
        confirmations: confirmations(r.state, r.block_height === null ? null : Number(r.block_height), tip),
      }));
  }

  private async loadForm(trx: Trx, id: bigint): Promise<Tracked> {
    const f = await trx.selectFrom('payment_forms').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const wallet = await trx.selectFrom('wallets').selectAll().where('id', '=', f.wallet_id).executeTakeFirstOrThrow();
    const address = await trx.selectFrom('addresses').select('address').where('id', '=', f.address_id).executeTakeFirstOrThrow();
    const locks = await trx.selectFrom('form_rate_locks').selectAll().where('form_id', '=', id).orderBy('id').execute();
    return {
      kind: 'form',
      id,
      wallet,
      addressId: f.address_id,
      address: address.address,
      createdAt: Number(f.created_at),
      locks: locks.map((l) => ({ rate: l.rate, lockedAt: Number(l.locked_at), expiresAt: Number(l.expires_at) })),
      orderStatus: f.order_status,
      paymentStatus: f.payment_status,
      snapshot: JSON.parse(f.tx_snapshot_json) as Record<string, boolean>,
      facts: {
        apiId: wallet.api_id,
        orderId: f.order_id,
        orderAmount: f.order_amount,
        orderCurrency: f.order_currency,
        userId: f.user_id,
        userEmail: f.user_email,
        userFields: JSON.parse(f.user_fields_json) as UserField[],
        authToken: this.deps.masterKey.unseal(f.auth_token_sealed).toString('utf8'),
        address: address.address,
        cryptoCurrency: wallet.mode === 'live' ? 'BTC' : 'testBTC',
        exchangeRate: '',
        source: 'form',
      },
      webhook: f.payment_update_url,
      email: wallet.notification_email,
      receipt:
        f.receipt_requested_at !== null && f.receipt_queued_at === null && f.receipt_link_sealed !== null && f.user_email !== null
          ? {
              to: f.user_email,
              linkSealed: f.receipt_link_sealed,
              shopName: f.site_name.trim() || (wallet.account_name ?? ''),
              // Recorded when the payer asked; a receipt asked for before languages were recorded takes the wallet's default.
              language: f.receipt_language ?? wallet.default_language ?? null,
            }
          : null,
    };
  }

  private async loadAddressOrder(trx: Trx, id: bigint): Promise<Tracked> {
    const o = await trx.selectFrom('address_orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const wallet = await trx.selectFrom('wallets').selectAll().where('id', '=', o.wallet_id).executeTakeFirstOrThrow();
    const address = await trx.selectFrom('addresses').select('address').where('id', '=', o.address_id).executeTakeFirstOrThrow();
    return {
      kind: 'address',
      id,
      wallet,
      addressId: o.address_id,
      address: address.address,
      createdAt: Number(o.created_at),
      // A set_addr order's rate is locked for 15 minutes at creation; with nothing paid it fails when its reservation ends.
      locks: [{ rate: o.exchange_rate, lockedAt: Number(o.created_at), expiresAt: Number(o.rate_lock_expires_at) }],
      closesAt: Number(o.reserved_until),
      orderStatus: o.order_status,
      paymentStatus: o.payment_status,
      snapshot: o.tx_snapshot_json === null ? {} : (JSON.parse(o.tx_snapshot_json) as Record<string, boolean>),
      facts: {
        apiId: wallet.api_id,
        orderId: o.client_txid ?? '',
        orderAmount: o.order_amount,
        orderCurrency: o.local_currency.toUpperCase(),
        userId: null,
        userEmail: o.return_email,
        userFields: [],
        authToken: o.auth_token_sealed === null ? '' : this.deps.masterKey.unseal(o.auth_token_sealed).toString('utf8'),
        address: address.address,
        cryptoCurrency: wallet.mode === 'live' ? 'BTC' : 'testBTC',
        exchangeRate: '',
        source: 'set_addr',
      },
      webhook: wallet.return_url,
      email: o.return_email ?? wallet.notification_email,
      receipt: null,
    };
  }

  /** Applies clock-driven changes: pending orders whose lock (form) or reservation (set_addr) ended. */
  async sweep(): Promise<number> {
    const now = this.deps.clock();
    const k = this.deps.db.kysely;
    const forms = await k.selectFrom('payment_forms').select('id').where('order_status', '=', 'pending').where('lock_expires_at', '<=', BigInt(now)).limit(500).execute();
    const orders = await k.selectFrom('address_orders').select('id').where('order_status', '=', 'pending').where('reserved_until', '<=', BigInt(now)).limit(500).execute();
    let changed = 0;
    const due: Array<[OrderKind, bigint]> = [...forms.map((r): [OrderKind, bigint] => ['form', r.id]), ...orders.map((r): [OrderKind, bigint] => ['address', r.id])];
    for (const [kind, id] of due) {
      const state = await k.transaction().execute((trx) => this.rederive(trx, kind, id, 'lock-expired', now));
      if ((state.orderStatus as OrderStatus) !== 'pending') changed++;
    }
    return changed;
  }

  /** Starts the sweeper. */
  start(): void {
    this.sweeper.start();
  }

  /** Stops the sweeper, waiting for a sweep in progress. */
  async stop(): Promise<void> {
    await this.sweeper.stop();
  }
}
