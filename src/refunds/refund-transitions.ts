/**
 * The one place a refund changes state: checks the move against the refund state machine, then stores it
 * and queues its notifications through the shared transition function (notify/status-transition.ts).
 */
import type { Selectable, Transaction } from 'kysely';
import type { Database, RefundsTable } from '../db/schema.ts';
import type { OutboxEntry } from '../notify/outbox.ts';
import { recordTransition } from '../notify/status-transition.ts';
import { btcFromSats } from '../money/money.ts';
import { sealedMailPayload } from '../notify/sealed-mail.ts';
import { renderRefundMail } from '../notify/refund-mail.ts';
import type { MasterKey } from '../security/master-key.ts';

type Trx = Transaction<Database>;

/** A refund as stored. */
export type RefundRow = Selectable<RefundsTable>;

/** Internal states; the interface's `status` is derived by {@link publicStatus}. */
export type RefundState = 'awaiting_address' | 'scheduled' | 'processing' | 'confirmed';

/** INTERFACE.md 3.2: `Scheduled` until a refund transaction exists, then `Processing`. */
export function publicStatus(state: string): 'Scheduled' | 'Processing' {
  return state === 'processing' || state === 'confirmed' ? 'Processing' : 'Scheduled';
}

/** Why a refund changed state; each cause names the event its notifications carry. */
export type RefundCause = 'requested' | 'address_set' | 'broadcast' | 'confirmed' | 'send_failed' | 'unconfirmed';

const ALLOWED: Record<string, RefundState[]> = {
  none: ['awaiting_address'],
  awaiting_address: ['scheduled'],
  scheduled: ['processing'],
  processing: ['confirmed', 'scheduled'],
  confirmed: ['processing'],
};

/** Extra facts the notifications carry. */
export interface TransitionFacts {
  /** The refund form URL (only for the payer's first mail) and the key that seals that mail: the URL is a bearer credential. */
  formUrl?: string;
  masterKey?: MasterKey;
  refundTxid?: string | null;
}

/**
 * Moves a refund to `to` (refusing a move the state machine does not allow), records the transition and
 * queues the notifications of `cause`: the merchant's webhook (wallet `return_url`) and e-mail
 * (`notification_email`) for address_set, broadcast and confirmed; the payer's e-mail with the form URL
 * when requested and with the transaction id when broadcast.
 */
export async function transitionRefund(trx: Trx, refund: RefundRow, to: RefundState, cause: RefundCause, now: number, facts: TransitionFacts = {}): Promise<RefundRow> {
  // Creation: the row was just inserted in `awaiting_address`; this records it and mails the payer.
  const creation = cause === 'requested';
  const from = creation ? 'none' : refund.state;
  if (!ALLOWED[from]?.includes(to)) throw new Error(`refund ${refund.id}: ${from} -> ${to} is not a refund transition`);
  const updated = await trx
    .updateTable('refunds')
    .set({ state: to, updated_at: BigInt(now) })
    .where('id', '=', refund.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const wallet = await trx.selectFrom('wallets').select(['api_id', 'return_url', 'notification_email', 'default_language']).where('id', '=', refund.wallet_id).executeTakeFirstOrThrow();
  // The payer's mails speak the language recorded when they set the address, else the wallet's default (the link
  // mail goes out before the payer has acted anywhere).
  const payerLanguage = updated.payer_language ?? wallet.default_language ?? null;
  const event = {
    event: 'refund',
    refund_event: cause,
    api_id: wallet.api_id,
    refund_id: refund.id.toString(),
    tx_id: facts.refundTxid ?? '',
    refunded_tx_id: refund.credit_txid,
    refund_amount: btcFromSats(refund.amount_sats),
    refund_addr: updated.address ?? '',
    status: publicStatus(to),
    state: to,
  };
  const entries: OutboxEntry[] = [];
  if (cause === 'address_set' || cause === 'broadcast' || cause === 'confirmed') {
    if (wallet.return_url) entries.push({ kind: 'webhook', target: wallet.return_url, payload: event, walletId: refund.wallet_id, paymentId: null });
    if (wallet.notification_email) entries.push({ kind: 'email', target: wallet.notification_email, payload: event, walletId: refund.wallet_id, paymentId: null });
  }
  if (refund.payer_email && cause === 'requested' && facts.formUrl) {
    // Whoever holds the link chooses where the refund goes, so the outbox row keeps the mail sealed, never the link in clear.
    if (!facts.masterKey) throw new Error(`refund ${refund.id}: the payer's link mail needs the master key to seal it`);
    const message = renderRefundMail({ ...event, audience: 'payer', refund_form_url: facts.formUrl, language: payerLanguage });
    entries.push({ kind: 'email', target: refund.payer_email, payload: { ...sealedMailPayload(facts.masterKey, 'refund', message), refund_event: cause, refund_id: event.refund_id }, walletId: refund.wallet_id, paymentId: null });
  }
  if (refund.payer_email && cause === 'broadcast') {
    entries.push({ kind: 'email', target: refund.payer_email, payload: { ...event, audience: 'payer', language: payerLanguage }, walletId: refund.wallet_id, paymentId: null });
  }
  await recordTransition(trx, { table: 'refund_transitions', recordId: refund.id, from: creation ? null : refund.state, to, cause, at: now }, entries);
  return updated;
}
