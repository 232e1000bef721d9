// Payment form routes: operations 14 (POST /payment_form) and 13 (GET /payment_form/:form_token) with
// the wallet API envelope, and the form page with its JSON operations under /form/:form_token.
// Thin: the form service does the work; the HTML comes from src/pages/form-page.ts.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Clock } from '../core/clock.ts';
import { DomainError, isRefusal } from '../core/domain-errors.ts';
import { JsonSyntaxError, parseExactJson, type JsonValue } from '../money/exact-json.ts';
import { QR_MAX_WIDTH, QR_MIN_WIDTH } from '../payments/qr-code.ts';
import { PAGE_SECURITY_HEADERS } from '../pages/page-headers.ts';
import { loadPageAssets } from '../pages/page-assets.ts';
import { renderFormNotFound, renderFormPage } from '../pages/form-page.ts';
import { requestLanguage, requestMessages } from '../pages/request-language.ts';
import type { FormService } from './form-service.ts';

const TAGS = ['wallet API'];
const BODY_LIMIT = 1024 * 1024;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
/** The form token is the payer's credential (stored only hashed): the log shows it redacted. */
const SECRET_TOKEN = { secretParams: ['form_token'] } as const;

/** What the routes need from the context. */
export interface FormRoutesContext {
  clock: Clock;
  forms: { service: FormService };
}

/** Options: how often the page polls and how long it waits before redirecting (tests shorten both). */
export interface FormRoutesOptions {
  pollIntervalMs?: number;
  redirectMs?: number;
}

const FieldObject = Type.Object({
  name: Type.String({ pattern: '^[a-z0-9_]{1,64}$' }),
  display_name: Type.String(),
  required: Type.Integer({ enum: [0, 1] }),
  type: Type.String({ enum: ['text', 'textarea', 'email'] }),
  value: Type.Optional(Type.String()),
});

/** The documented body of operation 14 (the exact checker in form-request.ts validates it). */
const PaymentFormBody = Type.Object({
  api_id: Type.String(),
  order_id: Type.String(),
  order_amount: Type.Union([Type.Number(), Type.String({ pattern: '^(0|[1-9]\\d*)(\\.\\d+)?$' })], { description: 'exact: a JSON number or a decimal string, at most the currency minor units, at most 15 digits before the point and worth at most 21,000,000 BTC' }),
  order_currency: Type.String({ description: 'ISO 4217 code of a currency with a current rate' }),
  user_id: Type.Optional(Type.String()),
  user_email: Type.Optional(Type.String({ format: 'email' })),
  payment_cancel_url: Type.String({ format: 'uri' }),
  payment_complete_url: Type.String({ format: 'uri' }),
  payment_update_url: Type.String({ format: 'uri', description: 'receives the payment update notifications' }),
  site_name: Type.String(),
  user_fields: Type.Optional(Type.Array(FieldObject, { maxItems: 20 })),
});

const SessionView = Type.Object({
  return: Type.String(),
  status: Type.String(),
  crypto_currency: Type.String(),
  crypto_amount: Type.String(),
  exchange_rate: Type.String(),
  order_id: Type.String(),
  order_amount: Type.Union([Type.Number(), Type.String()]),
  order_currency: Type.String(),
  user_id: Type.Union([Type.String(), Type.Null()]),
  user_email: Type.Union([Type.String(), Type.Null()]),
  payment_cancel_url: Type.String(),
  site_name: Type.String(),
  user_fields: Type.Array(FieldObject),
});

/** Registers operations 13 and 14 and the form page. */
export async function formRoutes(app: FastifyInstance, ctx: FormRoutesContext, opts: FormRoutesOptions = {}): Promise<void> {
  const service = ctx.forms.service;
  const assets = loadPageAssets();
  // Exact bodies: an order amount of 19.99 never passes through a binary float.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    try {
      done(null, parseExactJson(String(body)));
    } catch (err) {
      const detail = err instanceof JsonSyntaxError ? err.message : 'invalid JSON';
      done(new DomainError('invalid', `Wrong or missing argument: the body is not valid JSON (${detail})`), undefined);
    }
  });

  app.post<{ Body: JsonValue }>(
    '/payment_form',
    {
      schema: {
        summary: 'Create a payment form: reserves an address and locks the rate for 15 minutes',
        tags: TAGS,
        body: PaymentFormBody,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        response: { 200: Type.Object({ return: Type.String(), status: Type.String(), payment_page_url: Type.String(), auth_response_token: Type.String() }) },
      },
      // The schema documents the body; checkFormRequest validates it exactly, listing every bad field.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const keyHeader = request.headers['idempotency-key'];
      if (keyHeader !== undefined && (typeof keyHeader !== 'string' || !IDEMPOTENCY_KEY.test(keyHeader))) {
        throw new DomainError('invalid', 'Wrong or missing argument: the Idempotency-Key header must be 1 to 255 visible ASCII characters, given once');
      }
      const answer = await service.create(request.body, keyHeader, request.ip);
      if (answer.replayed) reply.header('idempotent-replayed', 'true');
      reply.header('cache-control', 'no-store');
      return answer.body;
    },
  );

  app.get<{ Params: { form_token: string } }>(
    '/payment_form/:form_token',
    { config: SECRET_TOKEN, schema: { summary: 'Payment form session view', tags: TAGS, response: { 200: SessionView } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return service.session(request.params.form_token);
    },
  );

  app.get<{ Params: { form_token: string } }>(
    '/form/:form_token',
    { config: SECRET_TOKEN, schema: { summary: 'Payment form page (HTML)', tags: ['pages'] } },
    async (request, reply) => {
      secure(reply).header('cache-control', 'no-store').type('text/html; charset=utf-8');
      const messages = requestMessages(request, reply, await service.merchantLanguage(request.params.form_token));
      try {
        const view = await service.pageState(request.params.form_token);
        return renderFormPage(view, {
          now: ctx.clock(),
          assets: assets.urls,
          messages,
          ...(opts.pollIntervalMs !== undefined ? { pollIntervalMs: opts.pollIntervalMs } : {}),
          ...(opts.redirectMs !== undefined ? { redirectMs: opts.redirectMs } : {}),
        });
      } catch (err) {
        if (isRefusal(err)) return reply.status(404).send(renderFormNotFound(assets.urls, messages));
        throw err;
      }
    },
  );

  app.get<{ Params: { form_token: string } }>(
    '/form/:form_token/state',
    { config: SECRET_TOKEN, schema: { summary: 'What the form page shows now (JSON)', tags: ['pages'] } },
    async (request, reply) => {
      secure(reply).header('cache-control', 'no-store');
      return { return: '0', status: 'OK', form: await service.pageState(request.params.form_token) };
    },
  );

  app.post<{ Params: { form_token: string }; Body: JsonValue }>(
    '/form/:form_token/fields',
    { config: SECRET_TOKEN, schema: { summary: "The payer's field values (and e-mail), stored with the order", tags: ['pages'] } },
    async (request, reply) => {
      secure(reply).header('cache-control', 'no-store');
      // The receipt speaks the language the payer's page was shown in: the same choice the page made.
      const languageOf = (merchantDefault: string | null) => requestLanguage(request, merchantDefault);
      return { return: '0', status: 'OK', form: await service.submitFields(request.params.form_token, request.body, languageOf) };
    },
  );

  app.post<{ Params: { form_token: string } }>(
    '/form/:form_token/refresh',
    { config: SECRET_TOKEN, schema: { summary: 'Re-price what is still due of a partly paid form for another 15 minutes', tags: ['pages'] } },
    async (request, reply) => {
      secure(reply).header('cache-control', 'no-store');
      return { return: '0', status: 'OK', form: await service.refresh(request.params.form_token) };
    },
  );

  app.get<{ Params: { form_token: string }; Querystring: { width?: string } }>(
    '/form/:form_token/qrcode',
    { config: SECRET_TOKEN, schema: { summary: 'QR code PNG of bitcoin:<address>?amount=<amount due>', tags: ['pages'] } },
    async (request, reply) => {
      const raw = request.query.width;
      const width = raw === undefined ? 256 : /^\d{1,5}$/.test(raw) ? Number.parseInt(raw, 10) : Number.NaN;
      if (!(width >= QR_MIN_WIDTH && width <= QR_MAX_WIDTH)) {
        throw new DomainError('invalid', `Wrong or missing argument: width must be a whole number of pixels from ${QR_MIN_WIDTH} to ${QR_MAX_WIDTH}`);
      }
      const png = await service.qrCode(request.params.form_token, width);
      return secure(reply).header('cache-control', 'no-store').type('image/png').send(png);
    },
  );
}

function secure(reply: FastifyReply): FastifyReply {
  return reply.headers(PAGE_SECURITY_HEADERS);
}
