// The payment status machine wired to the chain: every change the watcher commits (blocks, mempool
// sightings, reorgs, withdrawals) re-derives the status of the payments it can affect, in the watcher's
// own transaction; a sweeper applies the clock-driven transition to `invalid`. Each transition is
// stored with its cause and time, and written to the outbox (webhook and e-mail) in the same transaction.
import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import type { Rates, SpotRate } from '../rates/rates-port.ts';
import { spotAtFirstSight } from '../rates/spot-at-first-sight.ts';
import type { ChainChange } from '../chain/chain-events.ts';
import { orderMinorUnits } from '../money/currencies.ts';
import { lockRow } from '../db/row-locks.ts';
import { recordTransition } from '../notify/status-transition.ts';
import { confirmations } from '../wallets/address-activity.ts';
import { derivePaymentStatus, type DetectedOutput } from './payment-status.ts';
import type { PaymentRow } from './payment-record.ts';
import { paymentEventType, paymentNotifications } from './payment-events.ts';
import { PeriodicTask } from '../core/periodic-task.ts';

type Trx = Transaction<Database>;

/** Why a status was (re-)derived: a chain change, the monitoring window, or a status read. */
export type TransitionCause = ChainChange['cause'] | 'created' | 'monitor-window';

/** The most confirmations a single payment may ask for (Greenfield's LowSpeed). */
export const MAX_PAYMENT_CONFIRMATIONS = 6;


/** How often the sweeper looks for payments past their monitoring window. */
export const SWEEP_INTERVAL_MS = 5_000;

/** What the status machine needs. */
export interface StatusMachineDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  rates: Rates;
  publicUrl: string;
  sweepIntervalMs?: number;
}

/** Keeps stored payment statuses equal to what `derivePaymentStatus` says, transition by transition. */
export class PaymentStatusMachine {
  private readonly sweeper: PeriodicTask;

  constructor(private readonly deps: StatusMachineDeps) {
    const every = deps.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
    this.sweeper = new PeriodicTask(() => this.sweep(), {
      everyMs: every,
      firstDelayMs: every,
      onError: (err) => this.deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'payment sweep failed; will retry'),
    });
  }

  /** The chain listener: re-derives payments on touched addresses and, on blocks, those not yet settled. */
  readonly onChainChange = async (trx: Trx, change: ChainChange): Promise<void> => {
    const ids = new Set<bigint>();
    if (change.addressIds.size > 0) {
      const rows = await trx.selectFrom('payments').select('id').where('address_id', 'in', [...change.addressIds]).execute();
      for (const r of rows) ids.add(r.id);
    }
    if (change.cause === 'block' || change.cause === 'tip' || change.cause === 'reorg') {
      for (const id of await this.unsettled(trx, change)) ids.add(id);
    }
    for (const id of [...ids].sort((a, b) => (a < b ? -1 : 1))) {
      await this.rederive(trx, id, change.cause, change.now, { chain: change.chain, height: change.tipHeight });
    }
  };

  /** Payments with funds whose confirmation count can still change their status at this tip. */
  private async unsettled(trx: Trx, change: ChainChange): Promise<bigint[]> {
    const maxRequired = await trx.selectFrom('wallets').select((eb) => eb.fn.max('required_confirmations').as('m')).executeTakeFirst();
    // A payment may ask for more confirmations than its wallet (Greenfield's LowSpeed: 6), so the window covers those too.
    const window = BigInt(Math.max(1, MAX_PAYMENT_CONFIRMATIONS, Number(maxRequired?.m ?? 1)) + 1);
    const rows = await trx
      .selectFrom('payments as p')
      .innerJoin('chain_outputs as o', 'o.address_id', 'p.address_id')
      .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
      .select('p.id')
      .distinct()
      .where('t.chain', '=', change.chain)
      .where((eb) =>
        eb.or([eb('t.state', '=', 'mempool'), eb.and([eb('t.state', '=', 'block'), eb('t.block_height', '>', BigInt(change.tipHeight) - window)])]),
      )
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Derives one payment's status now and stores it; on a change, records the transition and queues its
   * webhook and e-mail. Returns the payment as stored afterwards.
   */
  async rederive(trx: Trx, paymentId: bigint, cause: TransitionCause, now: number, tip?: { chain: string; height: number }): Promise<PaymentRow> {
    await lockRow(trx, this.deps.db, 'payments', paymentId);
    const p = await trx.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
    const wallet = await trx.selectFrom('wallets').selectAll().where('id', '=', p.wallet_id).executeTakeFirstOrThrow();
    const tipHeight =
      tip && tip.chain === wallet.mode
        ? tip.height
        : Number((await trx.selectFrom('chain_tips').select('tip_height').where('chain', '=', wallet.mode).executeTakeFirst())?.tip_height ?? 0);
    const outputs = await this.outputsOf(trx, p, tipHeight, now);
    const d = derivePaymentStatus({
      orderAmount: p.order_amount,
      orderCurrency: p.order_currency,
      minorUnits: orderMinorUnits(p.order_currency),
      lockedRate: p.exchange_rate,
      expiryMs: Number(p.expiry_at),
      createdMs: Number(p.created_at),
      monitoringWindowMs: Number(p.monitor_until) - Number(p.created_at),
      outputs,
      now,
      requiredConfirmations: Number(p.required_confirmations ?? wallet.required_confirmations),
    });
    const changed = d.status !== p.status;
    const amountsChanged =
      d.confirmedSats !== p.confirmed_sats ||
      d.unconfirmedSats !== p.unconfirmed_sats ||
      d.confirmedOrderAmount !== p.confirmed_order_amount ||
      d.unconfirmedOrderAmount !== p.unconfirmed_order_amount;
    if (!changed && !amountsChanged) return p;

    const updated = await trx
      .updateTable('payments')
      .set({
        status: d.status,
        ...(changed ? { status_at: BigInt(now) } : {}),
        confirmed_sats: d.confirmedSats,
        unconfirmed_sats: d.unconfirmedSats,
        confirmed_order_amount: d.confirmedOrderAmount,
        unconfirmed_order_amount: d.unconfirmedOrderAmount,
      })
      .where('id', '=', p.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (!changed) return updated;

    const address = await trx.selectFrom('addresses').select('address').where('id', '=', p.address_id).executeTakeFirstOrThrow();
    const notifications = paymentNotifications(updated, wallet, address.address, this.deps.publicUrl, paymentEventType(p.status, d.status));
    await recordTransition(trx, { table: 'payment_transitions', recordId: p.id, from: p.status, to: d.status, cause, at: now }, notifications);
    this.deps.log.info({ payment: p.reference, from: p.status, to: d.status, cause }, 'payment status changed');
    return updated;
  }

  /** The payment's live outputs, with confirmations and, for those first seen after expiry, their recorded spot rate. */
  private async outputsOf(trx: Trx, p: PaymentRow, tipHeight: number, now: number): Promise<DetectedOutput[]> {
    const credits = await trx
      .selectFrom('chain_outputs as o')
      .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
      .select(['o.vout', 'o.value_sats', 't.txid', 't.state', 't.block_height', 't.first_seen_at'])
      .where('o.address_id', '=', p.address_id)
      .where('t.state', '!=', 'withdrawn')
      .orderBy('o.id')
      .execute();
    const late = credits.filter((c) => Number(c.first_seen_at) >= Number(p.expiry_at));
    const rates = new Map<string, string>();
    if (late.length > 0) {
      const stored = await trx.selectFrom('payment_output_rates').selectAll().where('payment_id', '=', p.id).execute();
      for (const r of stored) rates.set(`${r.txid}:${r.vout}`, r.rate);
      for (const c of late) {
        const key = `${c.txid}:${c.vout}`;
        if (rates.has(key)) continue;
        const spot = await this.spotAtFirstSight(p.order_currency);
        const rate = spot?.rate ?? p.exchange_rate;
        await trx
          .insertInto('payment_output_rates')
          .values({ payment_id: p.id, txid: c.txid, vout: c.vout, rate, rate_at: BigInt(spot?.at ?? now), source: spot ? 'spot' : 'locked', created_at: BigInt(now) })
          .execute();
        rates.set(key, rate);
      }
    }
    return credits.map((c) => ({
      sats: c.value_sats,
      firstSeenAt: Number(c.first_seen_at),
      confirmations: confirmations(c.state, c.block_height === null ? null : Number(c.block_height), tipHeight),
      ...(rates.has(`${c.txid}:${c.vout}`) ? { spotRate: rates.get(`${c.txid}:${c.vout}`)! } : {}),
    }));
  }

  /**
   * The spot rate for funds seen after the guarantee ended, or undefined when none is available in time
   * (rates stale or down): the funds are then valued at the locked rate rather than holding up the chain.
   */
  private async spotAtFirstSight(currency: string): Promise<SpotRate | undefined> {
    // A BTC-denominated payment is worth its satoshis whenever they come: its rate is 1, never looked up.
    if (currency === 'BTC') return { currency, rate: '1', at: this.deps.clock() };
    return spotAtFirstSight(this.deps.rates, this.deps.log, currency);
  }

  /** Applies clock-driven transitions: unpaid payments past their monitoring window become invalid. */
  async sweep(): Promise<number> {
    const now = this.deps.clock();
    const due = await this.deps.db.kysely
      .selectFrom('payments')
      .select('id')
      .where('status', '=', 'unpaid')
      .where('monitor_until', '<=', BigInt(now))
      .limit(500)
      .execute();
    let changed = 0;
    for (const { id } of due) {
      const row = await this.deps.db.kysely.transaction().execute((trx) => this.rederive(trx, id, 'monitor-window', now));
      if (row.status !== 'unpaid') changed++;
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
