// Greenfield webhooks as a delivery kind of the outbox: one lane per webhook, so a shop receives its events one
// after the other in the order they happened (as BTCPay sends them), signed `BTCPay-Sig` with the webhook's secret.
import type { Db } from '../db/database.ts';
import type { MasterKey } from '../security/master-key.ts';
import type { OutboxRow } from '../db/outbox-claims.ts';
import type { DeliveryKind } from '../notify/outbox-worker.ts';
import type { AttemptOutcome, WebhookSender } from '../notify/webhook-sender.ts';
import { BTCPAY_SIGNATURE_HEADER, btcpaySignature } from '../notify/btcpay-signature.ts';

/** The delivery kind of outbox rows that belong to a Greenfield webhook. */
export function greenfieldDelivery(deps: { db: Db; masterKey: MasterKey; webhooks: Pick<WebhookSender, 'post'> }): DeliveryKind {
  return {
    owns: (row: OutboxRow) => row.kind === 'webhook' && row.greenfield_webhook_id !== null,
    lane: (row: OutboxRow) => `greenfield:${row.greenfield_webhook_id}`,
    send: (row: OutboxRow) => sendGreenfield(deps, row.greenfield_webhook_id!, row.payload_json, row.event_id),
  };
}

/**
 * Delivers a Greenfield webhook's event: to the webhook's current URL, signed with its secret (`BTCPay-Sig`).
 * A deleted or disabled webhook fails the delivery for good (BTCPay drops it too), and so does a failure of a
 * webhook without automatic redelivery: its owner redelivers by hand.
 */
async function sendGreenfield(
  deps: { db: Db; masterKey: MasterKey; webhooks: Pick<WebhookSender, 'post'> },
  webhookId: bigint,
  body: string,
  eventId: string,
): Promise<AttemptOutcome> {
  const hook = await deps.db.kysely
    .selectFrom('greenfield_webhooks')
    .select(['url', 'secret_sealed', 'enabled', 'automatic_redelivery'])
    .where('id', '=', webhookId)
    .executeTakeFirst();
  if (!hook) return { ok: false, httpStatus: null, error: 'the webhook was deleted', durationMs: 0, permanent: true };
  if (!hook.enabled) return { ok: false, httpStatus: null, error: 'the webhook is disabled', durationMs: 0, permanent: true };
  const secret = deps.masterKey.unseal(hook.secret_sealed).toString('utf8');
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'satgate-webhooks',
    'x-satgate-event-id': eventId,
    [BTCPAY_SIGNATURE_HEADER.toLowerCase()]: btcpaySignature(body, secret),
  };
  const outcome = await deps.webhooks.post(hook.url, body, headers);
  return !outcome.ok && !hook.automatic_redelivery ? { ...outcome, permanent: true } : outcome;
}
