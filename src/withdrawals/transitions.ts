// Status changes of withdrawals, through the one transition function (notify/status-transition.ts): the row,
// the stored transition and the partner's webhook commit together in the caller's transaction.
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { recordTransition } from '../notify/status-transition.ts';
import { isoUtc } from '../core/clock.ts';
import { webhook, type WebhookTarget } from '../partners/transitions.ts';

type Trx = Transaction<Database>;

/** Withdrawal states: a quote is `quoted` (or `expired`) until confirmed, then `pending`, `success` or `failed`. */
export type WithdrawalStatus = 'quoted' | 'expired' | 'pending' | 'success' | 'failed';

/** Moves a withdrawal to `to` (with optional columns), stores the transition and queues the webhook. */
export async function transitionWithdrawal(
  trx: Trx,
  id: bigint,
  to: WithdrawalStatus,
  cause: string,
  now: number,
  event: { webhook: WebhookTarget; payload: Record<string, unknown> },
  changes: { failure_reason?: string | null; txid?: string | null; confirmed_at?: bigint | null } = {},
): Promise<boolean> {
  const current = await trx.selectFrom('withdrawals').select('status').where('id', '=', id).executeTakeFirstOrThrow();
  if (current.status === to) return false;
  await trx
    .updateTable('withdrawals')
    .set({ status: to, status_at: BigInt(now), ...changes })
    .where('id', '=', id)
    .execute();
  await recordTransition(
    trx,
    { table: 'withdrawal_transitions', recordId: id, from: current.status, to, cause, at: now },
    webhook(event.webhook, { event: 'withdrawal', ...event.payload, withdrawal_status: to, status_date: isoUtc(now) }),
  );
  return true;
}
