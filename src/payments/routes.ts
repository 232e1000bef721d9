// Payment API v1 routes (INTERFACE.md 4.4): operations 26 to 29 under /api/v1/payment. Errors are RFC 9457
// problem details (the payment API face, http/problem-face.ts, writes them for every refusal and validation failure).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import type { JsonValue } from '../money/exact-json.ts';
import { useExactJsonBodies } from '../http/exact-json-body.ts';
import { idempotencyKey } from '../http/idempotency-key.ts';
import { oauthBearer, oauthClientOf } from '../http/oauth-bearer.ts';
import type { LookedUpWallet, OAuthClients } from './oauth.ts';
import { oauthRoutes } from './oauth-routes.ts';
import formbody from '@fastify/formbody';
import type { PaymentService } from './payment-service.ts';
import { QR_DEFAULT_WIDTH, QR_MAX_WIDTH, QR_MIN_WIDTH } from './qr-code.ts';
import { PaymentRequestBody } from './request-schema.ts';

const BASE = '/api/v1/payment';
const TAGS = ['payment API v1'];
/** Largest JSON body accepted (DESIGN.md section 7: 1 MiB, as everywhere). */
const BODY_LIMIT = 1024 * 1024;

/** What the routes need from the context. */
export interface PaymentRoutesContext {
  oauth: OAuthClients;
  service: PaymentService;
}

/** The payment API's route plugin: the OAuth token endpoint and operations 26 to 29, each in its own scope. */
export async function paymentRoutes(app: FastifyInstance, ctx: PaymentRoutesContext): Promise<void> {
  // The token endpoint reads ordinary form and JSON bodies; the operations read exact JSON.
  await app.register(async (scope) => {
    // Form bodies only where RFC 6749 wants them: every other operation reads JSON, and a form-encoded wallet
    // API body (all strings) is an unsupported media type there, not a second way in.
    await scope.register(formbody, { bodyLimit: BODY_LIMIT });
    await oauthRoutes(scope, ctx.oauth);
  });
  await app.register(async (scope) => operationRoutes(scope, ctx));
}

/** The body's API ID when it is a string (anything else is the validator's to refuse, after the bearer check). */
function apiIdOf(request: FastifyRequest): string | undefined {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const apiId = (body as Record<string, unknown>).api_id;
  return typeof apiId === 'string' ? apiId : undefined;
}

/** Operations 26 to 29. */
async function operationRoutes(app: FastifyInstance, ctx: PaymentRoutesContext): Promise<void> {
  useExactJsonBodies(app, BODY_LIMIT);

  app.post<{ Body: JsonValue }>(
    `${BASE}/request`,
    {
      schema: {
        summary: 'Create a payment request; needs an OAuth 2.0 bearer token',
        tags: TAGS,
        body: PaymentRequestBody,
        security: [{ bearerAuth: [] }],
      },
      // The schema documents the body; checkPaymentRequest validates it, exactly, listing every bad field.
      validatorCompiler: () => () => true,
      config: { errorFormat: 'problem' },
      // The bearer check also looks up the body's wallet, in the same query (payments/oauth.ts).
      preHandler: [oauthBearer(ctx.oauth, apiIdOf), idempotencyKey],
    },
    async (request, reply) => {
      const caller = oauthClientOf(request);
      const answer = await ctx.service.create(caller.clientRowId, request.body, request.idempotencyKey, caller.looked as LookedUpWallet | undefined);
      if (answer.replayed) reply.header('idempotent-replayed', 'true');
      reply.header('cache-control', 'no-store');
      return reply.status(answer.status).send(answer.body);
    },
  );

  app.get<{ Params: { payment_reference: string } }>(
    `${BASE}/:payment_reference`,
    { schema: { summary: 'Payment status', tags: TAGS } },
    async (request, reply) => {
      const body = await ctx.service.statusJson(request.params.payment_reference);
      return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(body);
    },
  );

  app.get<{ Params: { payment_reference: string }; Querystring: { width?: string } }>(
    `${BASE}/:payment_reference/qrcode`,
    { schema: { summary: 'QR code PNG of bitcoin:<address>?amount=<crypto_amount>', tags: TAGS } },
    async (request, reply) => {
      const raw = request.query.width;
      let width = QR_DEFAULT_WIDTH;
      if (raw !== undefined) {
        width = /^\d{1,5}$/.test(raw) ? Number.parseInt(raw, 10) : Number.NaN;
        if (!(width >= QR_MIN_WIDTH && width <= QR_MAX_WIDTH)) {
          throw new DomainError('invalid-fields', 'The width query parameter is invalid.', [
            { field: 'width', message: `must be a whole number of pixels from ${QR_MIN_WIDTH} to ${QR_MAX_WIDTH}` },
          ]);
        }
      }
      const png = await ctx.service.qrCode(request.params.payment_reference, width);
      return reply.header('cache-control', 'no-cache').type('image/png').send(png);
    },
  );

  app.get<{ Params: { payment_reference: string } }>(
    `${BASE}/:payment_reference/exchange_rate`,
    { schema: { summary: 'Indicative current exchange rate of a payment, public', tags: TAGS } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return ctx.service.exchangeRate(request.params.payment_reference);
    },
  );
}
