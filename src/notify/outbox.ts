import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { plainJson } from '../money/plain-json.ts';

/** One notification to deliver: a webhook POST of `payload`, or an e-mail built from it. */
export interface OutboxEntry {
  kind: 'webhook' | 'email';
  /** URL for webhooks, address for e-mails. */
  target: string;
  /** The webhook body (for e-mail: the same event, rendered into a message by the mail worker). */
  payload: Record<string, unknown>;
  walletId: bigint | null;
  paymentId: bigint | null;
  /** The payment form ('form') or set_addr order ('address') the event is about, for listing deliveries. */
  order?: { kind: 'form' | 'address'; id: bigint };
  /**
   * A Greenfield webhook delivery: the payload is the exact body (it carries its own `deliveryId`, which becomes
   * the event id), signed with that webhook's secret as BTCPay does (`BTCPay-Sig`).
   */
  greenfield?: { webhookId: bigint; deliveryId: string };
}

/**
 * Writes notifications in the caller's transaction, so they exist exactly when the change that caused
 * them committed; workers deliver them later and survive restarts. Returns the event ids.
 */
export async function enqueueNotifications(trx: Transaction<Database>, entries: OutboxEntry[], now: number): Promise<string[]> {
  const ids: string[] = [];
  for (const e of entries) {
    const eventId = e.greenfield?.deliveryId ?? `evt_${randomUUID().replace(/-/g, '')}`;
    ids.push(eventId);
    await trx
      .insertInto('outbox')
      .values({
        event_id: eventId,
        kind: e.kind,
        wallet_id: e.walletId,
        payment_id: e.paymentId,
        target: e.target,
        payload_json: plainJson(e.greenfield ? e.payload : { ...e.payload, event_id: eventId }),
        state: 'pending',
        next_attempt_at: BigInt(now),
        created_at: BigInt(now),
        locked_until: null,
        last_error: null,
        delivered_at: null,
        order_kind: e.order?.kind ?? null,
        order_id: e.order?.id ?? null,
        greenfield_webhook_id: e.greenfield?.webhookId ?? null,
      })
      .execute();
  }
  return ids;
}
