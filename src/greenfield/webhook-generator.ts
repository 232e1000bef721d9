// Turns what happens to Greenfield invoices into webhook deliveries, inside the transaction that made it happen:
// after the payment status machine re-derived a payment (chain changes), when an invoice is created or marked by
// hand, and when the clock expires an invoice. Each call compares the invoice as it is now with what was already
// announced (greenfield_event_status, greenfield_event_marks) and queues the difference, so whichever path
// notices a change first announces it, exactly once.
import type { Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { lockRow } from '../db/row-locks.ts';
import { enqueueNotifications, type OutboxEntry } from '../notify/outbox.ts';
import type { ChainChange } from '../chain/chain-events.ts';
import { eventBody, eventsBetween, wants, type GreenfieldStatus, type InvoiceFacts, type InvoiceRef } from './webhook-events.ts';
import { authorizedEventsOf, newPublicId } from './webhook-store.ts';

type Trx = Transaction<Database>;

/** An invoice as the generator reads it, or undefined when the payment is no Greenfield invoice. */
export interface InvoiceSnapshot {
  walletId: bigint;
  ref: InvoiceRef;
  facts: InvoiceFacts;
  /** Epoch ms when the invoice expires (the sweep looks again then). */
  expiryAt: number;
}

/** Reads a payment as a Greenfield invoice, in the caller's transaction, at time `now`. */
export type InvoiceReader = (trx: Trx, paymentId: bigint, now: number) => Promise<InvoiceSnapshot | undefined>;

/** Confirmations after which no Greenfield payment changes any more (LowSpeed's 6, and one more for a reorg). */
const SETTLING_WINDOW = 7n;

/** The generator: a chain listener, an expiry sweep, and the call creation and manual marking make. */
export class WebhookGenerator {
  constructor(
    private readonly db: Db,
    private readonly read: InvoiceReader,
  ) {}

  /**
   * Queues the deliveries that bring the invoice's announcements up to date; returns how many were queued.
   * Safe to call at any time and from any path: nothing new, nothing queued.
   */
  async announce(trx: Trx, paymentId: bigint, now: number): Promise<number> {
    await lockRow(trx, this.db, 'payments', paymentId);
    const invoice = await this.read(trx, paymentId, now);
    if (!invoice) return 0;
    const status = await trx.selectFrom('greenfield_event_status').selectAll().where('payment_id', '=', paymentId).executeTakeFirst();
    const marks = await trx.selectFrom('greenfield_event_marks').select('mark').where('payment_id', '=', paymentId).execute();
    const received = new Set(marks.filter((m) => m.mark.startsWith('received:')).map((m) => m.mark.slice('received:'.length)));
    const settled = new Set(marks.filter((m) => m.mark.startsWith('settled:')).map((m) => m.mark.slice('settled:'.length)));
    const before = { status: (status?.status ?? null) as GreenfieldStatus | null, received, settled };
    const events = eventsBetween(before, invoice.facts);

    if (events.length > 0) {
      const hooks = await trx.selectFrom('greenfield_webhooks').selectAll().where('wallet_id', '=', invoice.walletId).where('enabled', '=', 1).orderBy('id').execute();
      const entries: OutboxEntry[] = [];
      for (const event of events) {
        for (const hook of hooks) {
          if (!wants(authorizedEventsOf(hook), event.type)) continue;
          const deliveryId = newPublicId();
          const delivery = { deliveryId, webhookId: hook.public_id, originalDeliveryId: deliveryId, isRedelivery: false, timestamp: Math.floor(now / 1000) };
          entries.push({
            kind: 'webhook',
            target: hook.url,
            payload: eventBody(delivery, invoice.ref, event),
            walletId: invoice.walletId,
            paymentId,
            greenfield: { webhookId: hook.id, deliveryId },
          });
        }
      }
      // One call keeps the rows in event order (ids ascending): the worker delivers a webhook's rows in that order.
      if (entries.length > 0) await enqueueNotifications(trx, entries, now);
    }

    for (const { payment, settled: isSettled } of invoice.facts.payments) {
      if (!received.has(payment.id)) await trx.insertInto('greenfield_event_marks').values({ payment_id: paymentId, mark: `received:${payment.id}`, at: BigInt(now) }).execute();
      if (isSettled && !settled.has(payment.id)) await trx.insertInto('greenfield_event_marks').values({ payment_id: paymentId, mark: `settled:${payment.id}`, at: BigInt(now) }).execute();
    }
    const next = { status: invoice.facts.status, additional_status: invoice.facts.additionalStatus, expiry_at: BigInt(invoice.expiryAt), updated_at: BigInt(now) };
    if (!status) await trx.insertInto('greenfield_event_status').values({ payment_id: paymentId, ...next }).execute();
    else if (status.status !== next.status || status.additional_status !== next.additional_status || status.expiry_at !== next.expiry_at) {
      await trx.updateTable('greenfield_event_status').set(next).where('payment_id', '=', paymentId).execute();
    }
    return events.length;
  }

  /**
   * The chain listener, registered after the payment status machine's so it reads the re-derived payments:
   * invoices on touched addresses, and on new blocks those whose payments may still be settling.
   */
  readonly onChainChange = async (trx: Trx, change: ChainChange): Promise<void> => {
    const ids = new Set<bigint>();
    if (change.addressIds.size > 0) {
      const rows = await trx
        .selectFrom('payments as p')
        .innerJoin('greenfield_event_status as g', 'g.payment_id', 'p.id')
        .select('p.id')
        .where('p.address_id', 'in', [...change.addressIds])
        .execute();
      for (const r of rows) ids.add(r.id);
    }
    if (change.cause === 'block' || change.cause === 'tip' || change.cause === 'reorg') {
      const rows = await trx
        .selectFrom('greenfield_event_status as g')
        .innerJoin('payments as p', 'p.id', 'g.payment_id')
        .innerJoin('chain_outputs as o', 'o.address_id', 'p.address_id')
        .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
        .select('p.id')
        .distinct()
        .where('t.chain', '=', change.chain)
        .where((eb) => eb.or([eb('t.state', '=', 'mempool'), eb.and([eb('t.state', '=', 'block'), eb('t.block_height', '>', BigInt(change.tipHeight) - SETTLING_WINDOW)])]))
        .execute();
      for (const r of rows) ids.add(r.id);
    }
    for (const id of [...ids].sort((a, b) => (a < b ? -1 : 1))) await this.announce(trx, id, change.now);
  };

  /**
   * The clock's part: invoices announced New whose expiry has passed, and invoices announced Processing whose
   * monitoring window has ended (still unconfirmed: Invalid). Returns how many announced something.
   */
  async sweep(now: number): Promise<number> {
    const expiring = await this.db.kysely
      .selectFrom('greenfield_event_status')
      .select('payment_id')
      .where('status', '=', 'New')
      .where('expiry_at', '<=', BigInt(now))
      .orderBy('payment_id')
      .limit(200)
      .execute();
    const unmonitored = await this.db.kysely
      .selectFrom('greenfield_event_status as g')
      .innerJoin('payments as p', 'p.id', 'g.payment_id')
      .select('g.payment_id')
      .where('g.status', '=', 'Processing')
      .where('p.monitor_until', '<=', BigInt(now))
      .orderBy('g.payment_id')
      .limit(200)
      .execute();
    let changed = 0;
    for (const { payment_id } of [...expiring, ...unmonitored]) {
      const n = await this.db.kysely.transaction().execute((trx) => this.announce(trx, payment_id, now));
      if (n > 0) changed++;
    }
    return changed;
  }
}
