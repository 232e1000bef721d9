// HTTP routes of the hosted payment page: GET /pay/:payment_reference and its two assets.
// Thin: the payment comes from the payments capability, the HTML from payment-page.ts.

import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Clock } from '../core/clock.ts';
import { renderErrorPage, renderNotFoundPage, renderPaymentPage, type PaymentPageData, type ReceivedData } from './payment-page.ts';
import { PAGE_SECURITY_HEADERS } from './page-headers.ts';
import { ASSET_PREFIX, loadPageAssets } from './page-assets.ts';
import { requestMessages } from './request-language.ts';

/** The page data of a payment and the merchant's language for it (the invoice's, else the wallet's default). */
export type HostedPageRecord = PaymentPageData & { merchantLanguage?: string | null };

/** How the page finds a payment; implemented by the payments capability. */
export interface HostedPaymentLookup {
  /** The page data of the payment with this reference, or null when there is none. */
  publicRecord(reference: string): Promise<HostedPageRecord | null>;
}

/** What the page routes need from the app context. */
export interface PageRoutesContext {
  clock: Clock;
  payments: HostedPaymentLookup;
}

/** Options of the page routes. */
export interface PageRoutesOptions {
  /** How often the page polls operation 27 (default 4 s). */
  pollIntervalMs?: number;
}

const MAX_REFERENCE_LENGTH = 200;

/** Registers the hosted payment page and its assets. */
export async function pageRoutes(app: FastifyInstance, ctx: PageRoutesContext, opts: PageRoutesOptions = {}): Promise<void> {
  const assets = loadPageAssets();

  app.get<{ Params: { file: string } }>(
    `${ASSET_PREFIX}:file`,
    { schema: { hide: true } },
    async (request, reply) => {
      const asset = assets.files.get(request.params.file);
      secure(reply);
      if (!asset) return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
      reply.header('etag', asset.etag).header('cache-control', 'public, max-age=86400');
      if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
      return reply.type(asset.contentType).send(asset.body);
    },
  );

  app.get<{ Params: { payment_reference: string } }>(
    '/pay/:payment_reference',
    { schema: { summary: 'Hosted payment page (HTML) of a payment request', tags: ['pages'] } },
    async (request, reply) => {
      secure(reply).header('cache-control', 'no-store').type('text/html; charset=utf-8');
      const reference = request.params.payment_reference;
      let record: HostedPageRecord | null = null;
      try {
        if (reference.length <= MAX_REFERENCE_LENGTH) record = await ctx.payments.publicRecord(reference);
      } catch (err) {
        request.log.error({ err }, 'hosted page lookup failed');
        return reply.status(503).send(renderErrorPage(assets.urls, requestMessages(request, reply)));
      }
      // The merchant's default comes after the payer's own choice (?lang=, picker) and before the browser's.
      const messages = requestMessages(request, reply, record?.merchantLanguage ?? null);
      if (!record) return reply.status(404).send(renderNotFoundPage(assets.urls, messages));
      return reply.send(
        renderPaymentPage(record, {
          now: ctx.clock(),
          assets: assets.urls,
          messages,
          ...(opts.pollIntervalMs !== undefined ? { pollIntervalMs: opts.pollIntervalMs } : {}),
        }),
      );
    },
  );

  // The page's own data beside operation 27's: the transaction IDs, which the payment record does not carry.
  app.get<{ Params: { payment_reference: string } }>(
    '/pay/:payment_reference/received',
    // Not part of the documented API: the page's script is its only reader.
    { schema: { hide: true } },
    async (request, reply) => {
      secure(reply).header('cache-control', 'no-store').type('application/json; charset=utf-8');
      const reference = request.params.payment_reference;
      let record: PaymentPageData | null = null;
      try {
        if (reference.length <= MAX_REFERENCE_LENGTH) record = await ctx.payments.publicRecord(reference);
      } catch (err) {
        request.log.error({ err }, 'hosted page lookup failed');
        return reply.status(503).send({ error: 'unavailable' });
      }
      if (!record) return reply.status(404).send({ error: 'not-found' });
      const body: ReceivedData = { txids: record.txids ?? [] };
      return reply.send(body);
    },
  );
}

function secure(reply: FastifyReply): FastifyReply {
  return reply.headers(PAGE_SECURITY_HEADERS);
}
