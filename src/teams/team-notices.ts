// Owners hear when their wallet's team gains power (issue 40): a member added, a role raised, an API key that can
// refund or withdraw created. The notices go through the outbox in the transaction of the change, so one exists
// exactly when the change committed.
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { enqueueNotifications } from '../notify/outbox.ts';
import { TEAM_NOTICE_EVENT, type TeamNoticeKind } from '../notify/team-mail.ts';
import { ACTIONS, may, type Role } from './permissions.ts';

/** What a notice says beyond its kind (never a secret). */
export interface TeamNotice {
  kind: TeamNoticeKind;
  /** Who did it: a member's e-mail. */
  by: string;
  member?: string;
  role?: Role;
  from_role?: Role;
  key_id?: string;
  policies?: string[];
}

/** Whether a new role may do something the old one could not (judged by the permission table alone). */
export function raises(from: Role, to: Role): boolean {
  return ACTIONS.some((a) => may(to, a) && !may(from, a));
}

/** Queues the notice to every Owner of the wallet, in the caller's transaction. */
export async function noticeOwners(trx: Transaction<Database>, wallet: { id: bigint; api_id: string }, notice: TeamNotice, consoleUrl: string, now: number): Promise<void> {
  const owners = await trx
    .selectFrom('wallet_members as m')
    .innerJoin('profiles as p', 'p.id', 'm.profile_id')
    .select('p.email')
    .where('m.wallet_id', '=', wallet.id)
    .where('m.role', '=', 'Owner')
    .orderBy('p.email')
    .execute();
  const payload = { event: TEAM_NOTICE_EVENT, ...notice, api_id: wallet.api_id, at: new Date(now).toISOString(), console_url: consoleUrl };
  await enqueueNotifications(trx, owners.map((o) => ({ kind: 'email' as const, target: o.email, payload, walletId: wallet.id, paymentId: null })), now);
}
