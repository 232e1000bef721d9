// Status changes of partner wallets (withdrawals: withdrawals/transitions.ts), through the one transition function
// (notify/status-transition.ts): the row, the stored transition and the partner's webhook commit together in
// the caller's transaction (saved first, delivered after).
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { OutboxEntry } from '../notify/outbox.ts';
import { recordTransition } from '../notify/status-transition.ts';
import { isoUtc } from '../core/clock.ts';

type Trx = Transaction<Database>;

/** Partner wallet states (INTERFACE.md 3.2 plus `rejected`, which a new KYC upload turns back into `pending_kyc`). */
export type WalletStatus = 'pending_kyc' | 'active' | 'rejected';

/** Where the webhook of a change goes: the partner's URL (if any), signed with the merchant wallet's secret. */
export interface WebhookTarget {
  url: string | null;
  walletId: bigint;
}

/** The outbox entry of a change's webhook: none when the partner has no URL. */
export function webhook(target: WebhookTarget, payload: Record<string, unknown>): OutboxEntry[] {
  return target.url ? [{ kind: 'webhook', target: target.url, payload, walletId: target.walletId, paymentId: null }] : [];
}

/** Moves a partner wallet to `to`, stores the transition and queues the partner's webhook; false when already there. */
export async function transitionWallet(
  trx: Trx,
  walletRowId: bigint,
  to: WalletStatus,
  cause: string,
  now: number,
  event: { webhook: WebhookTarget; payload: Record<string, unknown>; reason?: string | null },
): Promise<boolean> {
  const current = await trx.selectFrom('partner_wallets').select('wallet_status').where('id', '=', walletRowId).executeTakeFirstOrThrow();
  if (current.wallet_status === to) return false;
  await trx
    .updateTable('partner_wallets')
    .set({ wallet_status: to, status_at: BigInt(now), status_reason: event.reason ?? null })
    .where('id', '=', walletRowId)
    .execute();
  await recordTransition(
    trx,
    { table: 'partner_wallet_transitions', recordId: walletRowId, from: current.wallet_status, to, cause, at: now },
    webhook(event.webhook, { event: 'partner_merchant_wallet', ...event.payload, wallet_status: to, status_date: isoUtc(now) }),
  );
  return true;
}

/** Stores the first transition of a new record (created in `from: null` → `to`), without notifications. */
export async function recordCreated(trx: Trx, table: 'partner_wallet_transitions' | 'withdrawal_transitions', id: bigint, to: string, now: number): Promise<void> {
  await recordTransition(trx, { table, recordId: id, from: null, to, cause: 'created', at: now }, []);
}
