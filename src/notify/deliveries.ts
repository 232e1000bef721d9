// The delivery record of notifications (webhooks and e-mails) and redelivery on demand: one place for the
// CLI (`satgate webhook deliveries`), the dashboard API and the merchant console.
import type { Db } from '../db/database.ts';

/** One delivery attempt of an event. */
export interface DeliveryAttempt {
  attempt: number;
  at: number;
  /** The HTTP status the receiver answered, null when none came (timeout, refused connection, mail). */
  http_status: number | null;
  error: string | null;
  duration_ms: number;
}

/** One queued event with its attempts. */
export interface Delivery {
  event_id: string;
  kind: 'webhook' | 'email';
  target: string;
  state: 'pending' | 'delivered' | 'failed';
  /** The status the event reports (payload `status` or `order_status`), when it has one. */
  status: string | null;
  created_at: number;
  next_attempt_at: number | null;
  attempts: DeliveryAttempt[];
}

/** Which events: those of a payment request, or of a payment form / set_addr order. */
export type DeliveryFilter = { paymentId: bigint } | { orderKind: 'form' | 'address'; orderId: bigint } | { outboxIds: bigint[] };

async function outboxIds(db: Db, filter: DeliveryFilter): Promise<bigint[]> {
  if ('outboxIds' in filter) return filter.outboxIds;
  let q = db.kysely.selectFrom('outbox').select('id');
  q = 'paymentId' in filter ? q.where('payment_id', '=', filter.paymentId) : q.where('order_kind', '=', filter.orderKind).where('order_id', '=', filter.orderId);
  return (await q.execute()).map((r) => r.id);
}

function reportedStatus(payloadJson: string): string | null {
  const payload = JSON.parse(payloadJson) as { status?: unknown; order_status?: unknown };
  if (typeof payload.order_status === 'string') return payload.order_status;
  return typeof payload.status === 'string' ? payload.status : null;
}

/** The events of a payment or order, oldest first, each with its attempts. */
export async function listDeliveries(db: Db, filter: DeliveryFilter): Promise<Delivery[]> {
  const ids = await outboxIds(db, filter);
  if (ids.length === 0) return [];
  const events = await db.kysely.selectFrom('outbox').selectAll().where('id', 'in', ids).orderBy('id').execute();
  const attempts = await db.kysely.selectFrom('outbox_attempts').selectAll().where('outbox_id', 'in', ids).orderBy('id').execute();
  return events.map((e) => ({
    event_id: e.event_id,
    kind: e.kind,
    target: e.target,
    state: e.state,
    status: reportedStatus(e.payload_json),
    created_at: Number(e.created_at),
    next_attempt_at: e.state === 'pending' ? Number(e.next_attempt_at) : null,
    attempts: attempts
      .filter((a) => a.outbox_id === e.id)
      .map((a) => ({
        attempt: Number(a.attempt),
        at: Number(a.at),
        http_status: a.http_status === null ? null : Number(a.http_status),
        error: a.error,
        duration_ms: Number(a.duration_ms),
      })),
  }));
}

/**
 * Queues events again at once (same event ids, so receivers can de-duplicate): every event of the filter, or
 * only `eventId` among them. Returns how many were queued; the outbox worker sends them on its next round.
 */
export async function redeliver(db: Db, filter: DeliveryFilter, now: number, eventId?: string): Promise<number> {
  const ids = await outboxIds(db, filter);
  if (ids.length === 0) return 0;
  let q = db.kysely.updateTable('outbox').set({ state: 'pending', next_attempt_at: BigInt(now), locked_until: null }).where('id', 'in', ids);
  if (eventId !== undefined) q = q.where('event_id', '=', eventId);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
