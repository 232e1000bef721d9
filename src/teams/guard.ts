// The server-side check of store teams: a route's rule (route-actions.ts) and the signed-in member's role in the
// wallet it names, judged by the permission table alone. Each face turns a refusal into its own 403 answer.
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { may, type Action } from './permissions.ts';
import { changesState, ROUTE_ACTIONS, type RouteRule } from './route-actions.ts';
import { roleIn, rolesOf } from './members.ts';
import { noteMember } from './audit.ts';

/** How a face finds the wallet (API ID) of an order or a point of sale; null when it is not the member's or unknown. */
export interface WalletResolvers {
  order?(request: FastifyRequest): Promise<string | null>;
  pos?(request: FastifyRequest): Promise<string | null>;
}

/** The rule of the request's route; `missing` for a state-changing route without one (refused: fail closed). */
export function ruleOf(request: FastifyRequest): RouteRule | 'missing' | null {
  const key = `${request.method} ${request.routeOptions.url ?? ''}`;
  const rule = ROUTE_ACTIONS[key];
  if (rule) return rule;
  return changesState(request.method) ? 'missing' : null;
}

function text(source: unknown, name: string): string | null {
  if (source === null || typeof source !== 'object') return null;
  const v = (source as Record<string, unknown>)[name];
  return typeof v === 'string' && v !== '' ? v : null;
}

async function apiIdOf(request: FastifyRequest, rule: RouteRule, resolvers: WalletResolvers): Promise<string | null> {
  switch (rule.wallet) {
    case 'param':
      return text(request.params, 'api_id');
    case 'body':
      return text(request.body, 'api_id');
    case 'query':
      return text(request.query, 'api_id');
    case 'store':
      return text(request.body, 'storeId');
    case 'order':
      return (await resolvers.order?.(request)) ?? null;
    case 'pos':
      return (await resolvers.pos?.(request)) ?? null;
    default:
      return null;
  }
}

/**
 * Whether the profile may take the route's action. With the wallet named: their role there. Without one (none
 * given, or an order or point of sale that is not theirs, which the route then answers as not found): their role in
 * every wallet they belong to must allow it, so a page defaulting to some wallet never shows more than the table says.
 */
export async function permitted(k: Kysely<Database>, profileId: bigint, action: Action, apiId: string | null): Promise<boolean> {
  if (apiId !== null) {
    const role = await roleIn(k, profileId, apiId);
    // Not a member: the route answers it as unknown (404), exactly as before teams.
    return role === null || may(role, action);
  }
  return (await rolesOf(k, profileId)).every((role) => may(role, action));
}

/** The guard's verdict on a signed-in request: `allowed`, or the action refused (`missing`: a route the table lacks). */
export async function judge(k: Kysely<Database>, request: FastifyRequest, profileId: bigint, resolvers: WalletResolvers): Promise<'allowed' | Action | 'missing'> {
  const rule = ruleOf(request);
  if (rule === 'missing') return 'missing';
  const apiId = rule === null ? null : await apiIdOf(request, rule, resolvers);
  // Who acts on which wallet, for the audit trail (audit.ts writes it once the route succeeded).
  noteMember(request, profileId, apiId);
  if (rule === null || rule.action === null) return 'allowed';
  return (await permitted(k, profileId, rule.action, apiId)) ? 'allowed' : rule.action;
}
