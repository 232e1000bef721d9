// What the console shows a member: the same permission table the guard enforces, asked per wallet. Hiding is a
// courtesy only; the guard (guard.ts) refuses the route whatever a page shows.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { isRole, may, type Action, type Role } from './permissions.ts';

/**
 * Whether to offer an action: with a wallet's API ID, the member's role there allows it; without one (the
 * navigation), some wallet of theirs does, or they belong to none yet (nothing is theirs to refuse: their own pages).
 */
export type Can = (action: Action, apiId?: string) => boolean;

/** The profile's role in each wallet it belongs to, by API ID. */
export async function rolesByWallet(k: Kysely<Database>, profileId: bigint): Promise<Map<string, Role>> {
  const rows = await k
    .selectFrom('wallet_members as m')
    .innerJoin('wallets as w', 'w.id', 'm.wallet_id')
    .select(['w.api_id', 'm.role'])
    .where('m.profile_id', '=', profileId)
    .execute();
  return new Map(rows.flatMap((r) => (isRole(r.role) ? [[r.api_id, r.role] as const] : [])));
}

/** The `Can` of a member with these roles. */
export function canOf(roles: ReadonlyMap<string, Role>): Can {
  return (action, apiId) => {
    if (apiId !== undefined) {
      const role = roles.get(apiId);
      return role !== undefined && may(role, action);
    }
    return roles.size === 0 || [...roles.values()].some((role) => may(role, action));
  };
}
