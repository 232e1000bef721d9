// The dashboard API's side of store teams: after the session check, the signed-in member's role must allow the
// route's action (src/teams); a refusal is the face's `forbidden` answer (HTTP 403), the route never runs.
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import { requireDashboardSession } from '../http/dashboard-auth.ts';
import { refusal } from '../teams/permissions.ts';
import type { Teams } from '../teams/teams.ts';
import type { Merchant } from './merchant.ts';

/** The hook for a scope of session routes (register it as `preHandler`). */
export function teamGuard(teams: Teams, merchant: Pick<Merchant, 'order'>): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const session = requireDashboardSession(request);
    const order = async (r: FastifyRequest) => {
      const p = r.params as { kind?: string; id?: string };
      try {
        return (await merchant.order(session, p.kind ?? '', p.id ?? '')).api_id;
      } catch (err) {
        if (err instanceof DomainError) return null;
        throw err;
      }
    };
    const verdict = await teams.judge(request, session.profileId, { order });
    if (verdict === 'missing') throw new DomainError('forbidden', 'This operation has no entry in the permission table');
    if (verdict !== 'allowed') throw refusal(verdict);
  };
}
