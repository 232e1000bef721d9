// GET /api/v1/health: BTCPay's unauthenticated liveness answer, `{synchronized}`. Monitors poll it without a key,
// so it says nothing of any store: only whether every chain this service follows is synched (as server info reads it).
import type { FastifyInstance } from 'fastify';
import type { Greenfield } from './greenfield.ts';

/** Whether every followed chain is synched; a service that follows none is not. */
export async function healthJson(gf: Pick<Greenfield, 'chainModes' | 'chainSync'>): Promise<{ synchronized: boolean }> {
  const modes = gf.chainModes();
  if (modes.length === 0) return { synchronized: false };
  for (const mode of modes) if (!(await gf.chainSync(mode)).synched) return { synchronized: false };
  return { synchronized: true };
}

/** The route, outside the key-checking scope (BTCPay answers it anonymously). */
export async function greenfieldHealthRoute(app: FastifyInstance, gf: Greenfield): Promise<void> {
  app.get(
    '/api/v1/health',
    {
      schema: {
        summary: 'Health: whether the chains this service follows are synchronized (no key needed)',
        tags: ['Greenfield'],
        response: { 200: { type: 'object', properties: { synchronized: { type: 'boolean' } }, required: ['synchronized'] } },
      },
    },
    async (_request, reply) => reply.header('cache-control', 'no-store').send(await healthJson(gf)),
  );
}
