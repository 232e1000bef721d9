// Store teams' audit trail (issue 40, 0031 wallet_audit): every state-changing action that succeeded, by a member
// (console, dashboard API, key authorization: the routes of route-actions.ts) or a Greenfield API key, with who,
// what, when and from which IP. Written by one `onSend` hook keyed by the route table, so no route can forget it:
// after the route's own transaction committed and before the answer leaves (a crash between the two loses the
// record, never the change; docs/decisions.md). It records the route, the ids in its path and a short detail a route
// may add; never a body, a query or a header, so no secret reaches it.
import type { FastifyReply, FastifyRequest, onSendAsyncHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import { changesState, ROUTE_ACTIONS } from './route-actions.ts';

/** Who a request is, as the faces' guards learned it. */
interface Noted {
  profileId?: bigint;
  apiId?: string | null;
  detail?: string;
}

const noted = new WeakMap<FastifyRequest, Noted>();

/** The guard's note: the signed-in member of the request and the wallet it acts on (null: none named). */
export function noteMember(request: FastifyRequest, profileId: bigint, apiId: string | null): void {
  noted.set(request, { ...noted.get(request), profileId, apiId });
}

/** A route's short account of what it did beyond its path (a member's e-mail and role, a key's id); no secret. */
export function noteDetail(request: FastifyRequest, detail: string): void {
  noted.set(request, { ...noted.get(request), detail: detail.slice(0, 500) });
}

/** A Greenfield key's identity, as its authentication hook sets it (read structurally: Greenfield builds on teams). */
interface KeyIdentity {
  keyId: string;
  walletId: bigint;
}

const PATH_IDS_SKIPPED = new Set(['api_id', 'storeId']);

function targetOf(request: FastifyRequest): string | null {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const ids = Object.entries(params)
    .filter(([k, v]) => !PATH_IDS_SKIPPED.has(k) && typeof v === 'string')
    .map(([, v]) => (v as string).slice(0, 100));
  return ids.length > 0 ? ids.join('/') : null;
}

/** The hook (register it on the app before the routes, as `onSend`). */
export function auditHook(k: Kysely<Database>, clock: Clock): onSendAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (!changesState(request.method) || reply.statusCode >= 400) return payload;
    const note = noted.get(request);
    const key = (request as FastifyRequest & { greenfield?: KeyIdentity }).greenfield;
    if (note?.profileId === undefined && key === undefined) return payload;
    const route = `${request.method} ${request.routeOptions.url ?? ''}`;
    let walletId: bigint | null = key?.walletId ?? null;
    let actor: { kind: string; name: string; profileId: bigint | null };
    if (note?.profileId !== undefined) {
      const p = await k.selectFrom('profiles').select('email').where('id', '=', note.profileId).executeTakeFirst();
      actor = { kind: 'member', name: p?.email ?? `profile ${note.profileId}`, profileId: note.profileId };
      if (note.apiId) walletId = (await k.selectFrom('wallets').select('id').where('api_id', '=', note.apiId).executeTakeFirst())?.id ?? null;
    } else {
      actor = { kind: 'key', name: key!.keyId, profileId: null };
    }
    await k
      .insertInto('wallet_audit')
      .values({
        wallet_id: walletId,
        actor_kind: actor.kind,
        actor: actor.name,
        profile_id: actor.profileId,
        action: ROUTE_ACTIONS[route]?.action ?? null,
        route,
        target: targetOf(request),
        detail: note?.detail ?? null,
        status: BigInt(reply.statusCode),
        ip: request.ip,
        created_at: BigInt(clock()),
      })
      .execute();
    return payload;
  };
}

/** One line of a wallet's trail. */
export interface AuditRow {
  at: number;
  actorKind: 'member' | 'key';
  actor: string;
  action: string | null;
  route: string;
  target: string | null;
  detail: string | null;
  ip: string | null;
}

/** The wallet's trail, newest first (at most `limit` lines). */
export async function listWalletAudit(k: Kysely<Database>, apiId: string, limit = 200): Promise<AuditRow[]> {
  const rows = await k
    .selectFrom('wallet_audit as a')
    .innerJoin('wallets as w', 'w.id', 'a.wallet_id')
    .select(['a.created_at', 'a.actor_kind', 'a.actor', 'a.action', 'a.route', 'a.target', 'a.detail', 'a.ip'])
    .where('w.api_id', '=', apiId)
    .orderBy('a.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    at: Number(r.created_at),
    actorKind: r.actor_kind === 'key' ? 'key' : 'member',
    actor: r.actor,
    action: r.action,
    route: r.route,
    target: r.target,
    detail: r.detail,
    ip: r.ip,
  }));
}
