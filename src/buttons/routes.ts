// The public face of pay buttons: GET /button/<id> (the payer's page; reads only) and POST /button/<id> (the payer
// presses Pay: creates the payment and sends them to its hosted page with 303). The POST comes from the merchant's
// own site, another origin, so it carries no session or CSRF token: what guards it is the strict check of its one
// field, the budgets and the gap limit (button-service.ts).
import type { FastifyInstance, FastifyReply } from 'fastify';
import formbody from '@fastify/formbody';
import { DomainError, RateLimitedError } from '../core/domain-errors.ts';
import { walletAnswerOf } from '../http/wallet-face.ts';
import { PAGE_SECURITY_HEADERS } from '../pages/page-headers.ts';
import { loadPageAssets } from '../pages/page-assets.ts';
import { requestMessages } from '../pages/request-language.ts';
import type { Messages } from '../pages/messages.ts';
import type { ButtonService } from './button-service.ts';
import { renderButtonMessage, renderButtonPage } from './button-page.ts';

export interface ButtonRoutesContext {
  buttons: { service: ButtonService };
}

/** The only field a button's form posts (and `lang`, the language picker's). */
const FIELDS = new Set(['amount', 'lang']);

export async function buttonRoutes(app: FastifyInstance, ctx: ButtonRoutesContext): Promise<void> {
  const service = ctx.buttons.service;
  const assets = loadPageAssets();
  // A form post is small: one amount.
  await app.register(formbody, { bodyLimit: 4096 });

  const page = (reply: FastifyReply, status: number, html: string) =>
    reply.status(status).headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);

  const refusal = (reply: FastifyReply, err: unknown, m: Messages) => {
    if (!(err instanceof DomainError)) throw err;
    if (err.kind === 'not-found') return page(reply, 404, renderButtonMessage('not-found', m.t('button.notFoundTitle'), m.t('button.notFoundText'), assets.urls, m));
    if (err instanceof RateLimitedError) {
      reply.header('retry-after', String(err.retryAfterSeconds));
      return page(reply, 429, renderButtonMessage('busy', m.t('button.busyTitle'), m.t('button.busyText'), assets.urls, m));
    }
    const status = walletAnswerOf(err)?.http ?? 400;
    if (status >= 500) throw err;
    const text = err.fields?.length ? err.fields.map((f) => `${f.field} ${f.message}`).join('; ') : err.message;
    return page(reply, status, renderButtonMessage('refused', m.t('button.refusedTitle'), text, assets.urls, m));
  };

  app.get<{ Params: { id: string } }>('/button/:id', { schema: { summary: "A pay button's page (HTML): the amount or an amount field, and Pay; writes nothing", tags: ['pages'] } }, async (request, reply) => {
    const id = request.params.id;
    const m = requestMessages(request, reply, await service.language(id));
    try {
      return page(reply, 200, renderButtonPage(await service.find(id), assets.urls, m));
    } catch (err) {
      return refusal(reply, err, m);
    }
  });

  app.post<{ Params: { id: string } }>(
    '/button/:id',
    { schema: { summary: "Pay with a pay button (form post from any site): creates the payment, 303 to its hosted page", tags: ['pages'] } },
    async (request, reply) => {
      const id = request.params.id;
      const m = requestMessages(request, reply, await service.language(id));
      try {
        const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== 'application/x-www-form-urlencoded') {
          throw new DomainError('invalid', 'Wrong or missing argument: a pay button posts an HTML form (application/x-www-form-urlencoded)');
        }
        const body = (request.body ?? {}) as Record<string, unknown>;
        const unknown = Object.keys(body).filter((k) => !FIELDS.has(k));
        if (unknown.length > 0) throw new DomainError('invalid-fields', 'The payment has invalid fields.', unknown.map((field) => ({ field, message: 'is not a field of a pay button' })));
        const reference = await service.pay(id, body.amount, request.ip);
        return reply.headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-store').redirect(`/pay/${encodeURIComponent(reference)}`, 303);
      } catch (err) {
        // A refused payer-chosen amount is shown on the button's own page, the field kept, to correct it.
        if (err instanceof DomainError && err.kind === 'invalid-fields' && err.fields?.every((f) => f.field === 'amount')) {
          try {
            const b = await service.find(id);
            if (b.amount === null) {
              const typed = (request.body as Record<string, unknown> | undefined)?.amount;
              return page(reply, 400, renderButtonPage(b, assets.urls, m, `${m.t('button.amountLabel')}: ${err.fields[0]!.message}`, typeof typed === 'string' ? typed : undefined));
            }
          } catch (inner) {
            return refusal(reply, inner, m);
          }
        }
        return refusal(reply, err, m);
      }
    },
  );
}
