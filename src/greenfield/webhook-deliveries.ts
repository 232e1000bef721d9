// A Greenfield webhook's deliveries are its outbox rows: listed newest first with the outcome of their last
// attempt, read back as the exact body sent, and redelivered as a new row whose body points at the first delivery.
import type { Db } from '../db/database.ts';
import { enqueueNotifications } from '../notify/outbox.ts';
import type { WebhookRow } from './webhook-store.ts';
import { newPublicId } from './webhook-store.ts';
import { redeliveryBody } from './webhook-events.ts';

/** A delivery as Greenfield answers it (WebhookDeliveryData). */
export interface DeliveryData {
  id: string;
  /** Unix seconds when the delivery was created. */
  timestamp: number;
  /** Unix seconds of its last attempt (its creation before the first). */
  deliveryTime: number;
  /** The last HTTP status received; 0 when none was (the PHP client reads an int). */
  httpCode: number;
  /** Why the last attempt failed; "" when it did not (the PHP client reads a string). */
  errorMessage: string;
  /** `HttpSuccess`, `HttpError` (an HTTP answer other than 2xx), `Failed` (no answer), or `Pending` before the first attempt. */
  status: 'HttpSuccess' | 'HttpError' | 'Failed' | 'Pending';
}

/** The most deliveries one listing answers. */
export const MAX_DELIVERIES_LISTED = 1000;

/** Deliveries of webhooks, read from the outbox. */
export class WebhookDeliveries {
  constructor(
    private readonly db: Db,
    private readonly clock: () => number,
  ) {}

  /** The latest `count` deliveries of the webhook, newest first. */
  async list(hook: WebhookRow, count: number): Promise<DeliveryData[]> {
    const rows = await this.db.kysely
      .selectFrom('outbox')
      .select(['id', 'event_id', 'state', 'created_at', 'attempts'])
      .where('greenfield_webhook_id', '=', hook.id)
      .orderBy('id', 'desc')
      .limit(Math.min(Math.max(count, 0), MAX_DELIVERIES_LISTED))
      .execute();
    return Promise.all(rows.map((r) => this.data(r)));
  }

  /** One delivery of the webhook, or undefined (another webhook's reads as unknown). */
  async get(hook: WebhookRow, deliveryId: string): Promise<DeliveryData | undefined> {
    const row = await this.row(hook, deliveryId);
    return row ? this.data(row) : undefined;
  }

  /** The exact body the delivery sends, or undefined. */
  async request(hook: WebhookRow, deliveryId: string): Promise<string | undefined> {
    const row = await this.row(hook, deliveryId);
    return row?.payload_json;
  }

  /**
   * Queues the delivery's event again as a new delivery (BTCPay's redeliver): same event, new `deliveryId`,
   * `isRedelivery: true`, `originalDeliveryId` the first delivery's. Answers the new id, or undefined.
   */
  async redeliver(hook: WebhookRow, deliveryId: string): Promise<string | undefined> {
    const row = await this.row(hook, deliveryId);
    if (!row) return undefined;
    const now = this.clock();
    const newId = newPublicId();
    const body = redeliveryBody(JSON.parse(row.payload_json) as Record<string, unknown>, newId, Math.floor(now / 1000));
    await this.db.kysely.transaction().execute((trx) =>
      enqueueNotifications(
        trx,
        [{ kind: 'webhook', target: hook.url, payload: body, walletId: hook.wallet_id, paymentId: row.payment_id, greenfield: { webhookId: hook.id, deliveryId: newId } }],
        now,
      ),
    );
    return newId;
  }

  private async row(hook: WebhookRow, deliveryId: string) {
    return this.db.kysely
      .selectFrom('outbox')
      .select(['id', 'event_id', 'state', 'created_at', 'attempts', 'payload_json', 'payment_id'])
      .where('greenfield_webhook_id', '=', hook.id)
      .where('event_id', '=', deliveryId)
      .executeTakeFirst();
  }

  private async data(r: { id: bigint; event_id: string; state: string; created_at: bigint; attempts: bigint }): Promise<DeliveryData> {
    const last =
      r.attempts > 0n
        ? await this.db.kysely.selectFrom('outbox_attempts').select(['at', 'http_status', 'error']).where('outbox_id', '=', r.id).orderBy('attempt', 'desc').limit(1).executeTakeFirst()
        : undefined;
    const httpCode = last?.http_status === null || last?.http_status === undefined ? 0 : Number(last.http_status);
    const status: DeliveryData['status'] =
      last === undefined ? 'Pending' : r.state === 'delivered' ? 'HttpSuccess' : httpCode !== 0 ? 'HttpError' : 'Failed';
    return {
      id: r.event_id,
      timestamp: Math.floor(Number(r.created_at) / 1000),
      deliveryTime: Math.floor(Number(last?.at ?? r.created_at) / 1000),
      httpCode,
      errorMessage: status === 'HttpSuccess' ? '' : (last?.error ?? ''),
      status,
    };
  }
}
