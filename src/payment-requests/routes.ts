// The payer's routes of a payment request: its page and its "Pay" (a plain form post). Opening the page writes
// nothing and issues no address; only the payer's "Pay" creates a payment (one part), then the hosted page takes over.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import { PAGE_SECURITY_HEADERS } from '../pages/page-headers.ts';
import { loadPageAssets } from '../pages/page-assets.ts';
import { requestMessages } from '../pages/request-language.ts';
import type { PaymentRequests } from './payment-requests.ts';
import { renderRequestNotFound, renderRequestPage } from './request-page.ts';

// The id is the request's only secret: kept out of the logs.
const SECRET_ID = { secretParams: ['request_id'] } as const;

/** The public routes of payment requests. */
export async function paymentRequestRoutes(app: FastifyInstance, requests: PaymentRequests): Promise<void> {
  const assets = loadPageAssets();
  await app.register(formbody, { bodyLimit: 4 * 1024 });
  const html = (reply: FastifyReply) => reply.headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-store').type('text/html; charset=utf-8');

  app.get<{ Params: { request_id: string } }>(
    '/request/:request_id',
    { config: SECRET_ID, schema: { summary: 'Payment request page (HTML)', tags: ['pages'] } },
    async (request, reply) => {
      const found = await requests.publicView(request.params.request_id);
      const m = requestMessages(request, reply, found?.wallet.default_language ?? null);
      html(reply);
      if (!found) return reply.status(404).send(renderRequestNotFound(m, assets.urls));
      return renderRequestPage(found.view, m, null, assets.urls);
    },
  );

  app.post<{ Params: { request_id: string }; Body: Record<string, unknown> | undefined }>(
    '/request/:request_id/pay',
    { config: SECRET_ID, schema: { summary: 'Pay a payment request (all that is due, or a part): redirects to the payment page', tags: ['pages'] } },
    async (request, reply) => {
      const raw = request.body?.amount;
      const amount = typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : null;
      try {
        const reference = await requests.pay(request.params.request_id, amount);
        return reply.headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-store').redirect(`/pay/${encodeURIComponent(reference)}`, 303);
      } catch (err) {
        if (!(err instanceof DomainError) || !['not-found', 'gone', 'invalid-fields'].includes(err.kind)) throw err;
        const found = await requests.publicView(request.params.request_id);
        const m = requestMessages(request, reply, found?.wallet.default_language ?? null);
        html(reply);
        if (!found) return reply.status(404).send(renderRequestNotFound(m, assets.urls));
        // Refused: the page again, saying why (expired, withdrawn, paid, or an amount out of bounds).
        const status = err.kind === 'gone' ? 410 : 422;
        return reply.status(status).send(renderRequestPage(found.view, m, err.kind === 'invalid-fields' ? 'bad-amount' : null, assets.urls));
      }
    },
  );
}
