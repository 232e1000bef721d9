// Greenfield routes (BTCPay's API paths under /api/v1, beside our own /api/v1/payment which they do not touch),
// and /i/{invoiceId}, the checkout link that leads to our hosted payment page. Every route behind the one
// authentication hook answers Greenfield's error shapes (errors.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { payPaymentRequest } from './payment-request-pay.ts';
import { JsonSyntaxError, parseExactJson, type JsonValue } from '../money/exact-json.ts';
import { greenfieldAuth, identityOf, requireStorePermission, storePermission } from './auth.ts';
import { GreenfieldError, storeNotFound, useGreenfieldErrors } from './errors.ts';
import { DomainError } from '../core/domain-errors.ts';
import { POLICIES, grants, type Policy } from './permissions.ts';
import { POS_APP_SCHEMAS, basicAppJson, posAppJson, readPosAppBody } from './apps.ts';
import { serverInfoJson, storeJson, storePaymentMethodsJson } from './stores.ts';
import { keyOfHeader } from './auth.ts';
import type { Greenfield } from './greenfield.ts';
import type { InvoiceListQuery } from './invoices.ts';
import { S } from './schemas.ts';
import { REPORT_SCHEMAS } from './reports.ts';
import { PAYMENT_REQUEST_SCHEMAS, paymentRequestJson, readPaymentRequestBody } from './payment-requests.ts';
import { renderNotFoundPage } from '../pages/payment-page.ts';
import { PAGE_SECURITY_HEADERS } from '../pages/page-headers.ts';
import { greenfieldHealthRoute } from './health.ts';
import { storeWalletRoutes } from './store-wallet-routes.ts';
import { found, storelessAliases } from './storeless-routes.ts';

const TAGS = ['Greenfield'];
const SECURITY = [{ greenfieldToken: [] }];
const BODY_LIMIT = 1024 * 1024;

type StoreParams = { storeId: string };
type InvoiceParams = { storeId: string; invoiceId: string };

/** The Greenfield route plugin. */
export async function greenfieldRoutes(app: FastifyInstance, gf: Greenfield): Promise<void> {
  // The checkout link: public, like the hosted page it leads to.
  app.get<{ Params: { invoiceId: string } }>(
    '/i/:invoiceId',
    { schema: { summary: 'Checkout link of a Greenfield invoice: redirects to its hosted payment page', tags: TAGS } },
    async (request, reply) => {
      const row = await gf.invoices.referenceOf(request.params.invoiceId);
      // Unknown: the hosted page's own "not found" page (HTML, like the page the link would have led to).
      if (row === undefined) {
        return reply.status(404).headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(renderNotFoundPage());
      }
      return reply.redirect(`/pay/${encodeURIComponent(row)}`, 302);
    },
  );

  await greenfieldHealthRoute(app, gf);

  await app.register(async (scope) => {
    useGreenfieldErrors(scope);
    // Answers are written by invoice-json.ts and stores.ts; the response schemas document them and must not
    // filter them (metadata is free-form), so they are serialized as they are.
    scope.setSerializerCompiler(() => (data) => JSON.stringify(data));
    // The PHP client sends `Content-Type: application/json` on every request, bodiless ones too: an empty body is
    // no body, not malformed JSON (each route then says what it needed).
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
      const text = String(body);
      if (text.trim() === '') return done(null, undefined);
      try {
        done(null, parseExactJson(text));
      } catch (err) {
        const detail = err instanceof JsonSyntaxError ? `The body is not valid JSON: ${err.message}.` : 'The body is not valid JSON.';
        done(new GreenfieldError(400, 'malformed-body', detail), undefined);
      }
    });
    scope.addHook('preHandler', greenfieldAuth(gf.keys));
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.header('cache-control', 'no-store');
      return payload;
    });
    const walletOf = async (storeId: string) => {
      const wallet = await gf.repo.findByApiId(storeId);
      if (!wallet) throw storeNotFound();
      return wallet;
    };

    // BTCPay's /api/v1/invoices/{id}… and /api/v1/payment-requests/{id}…: aliases of the store routes below.
    const aliases = storelessAliases(scope, {
      invoiceId: (who, id) => found(() => gf.invoices.get(who.storeId, id)),
      paymentRequestId: async (who, id) => found(async () => gf.requests.get(await walletOf(who.storeId), id)),
    });

    // Archive, the payment method on both generations and the store wallet (store-wallet-routes.ts).
    await storeWalletRoutes(scope, gf, walletOf);

    scope.get('/api/v1/api-keys/current', { schema: { summary: 'The API key of the request', tags: TAGS, security: SECURITY, response: { 200: S.ApiKey } } }, async (request) => {
      const id = identityOf(request);
      return { apiKey: keyOfHeader(request.headers.authorization), label: id.label, permissions: id.permissions };
    });

    scope.delete('/api/v1/api-keys/current', { schema: { summary: 'Revoke the API key of the request (refused from the next request on)', tags: TAGS, security: SECURITY } }, async (request, reply) => {
      await gf.keys.revoke(identityOf(request).keyId);
      return reply.status(200).send();
    });

    scope.get('/api/v1/server/info', { schema: { summary: 'Server information: Greenfield API level, sync state, payment methods', tags: TAGS, security: SECURITY, response: { 200: S.ServerInfo } } }, async (request) => {
      const id = identityOf(request);
      const wallet = await walletOf(id.storeId);
      return serverInfoJson(await gf.chainSync(wallet.mode));
    });

    scope.get('/api/v1/stores', { schema: { summary: 'The stores the key can see (its one store)', tags: TAGS, security: SECURITY, response: { 200: { type: 'array', items: S.Store } } } }, async (request) => {
      const id = identityOf(request);
      if (!grants(id.permissions, POLICIES.viewStoreSettings, id.storeId)) return [];
      const wallet = await gf.repo.findByApiId(id.storeId);
      return wallet ? [storeJson(wallet, gf.config.monitorWindowMs)] : [];
    });

    scope.get<{ Params: StoreParams }>(
      '/api/v1/stores/:storeId',
      { schema: { summary: 'One store', tags: TAGS, security: SECURITY, response: { 200: S.Store } }, preHandler: storePermission(POLICIES.viewStoreSettings) },
      async (request) => storeJson(await walletOf(request.params.storeId), gf.config.monitorWindowMs),
    );

    scope.get<{ Params: StoreParams }>(
      '/api/v1/stores/:storeId/payment-methods',
      { schema: { summary: "The store's payment methods (on-chain bitcoin)", tags: TAGS, security: SECURITY }, preHandler: storePermission(POLICIES.viewStoreSettings) },
      async (request) => {
        return storePaymentMethodsJson(await walletOf(request.params.storeId));
      },
    );

    scope.post<{ Params: StoreParams; Body: JsonValue }>(
      '/api/v1/stores/:storeId/invoices',
      {
        schema: { summary: 'Create an invoice (a payment of payment API v1)', tags: TAGS, security: SECURITY, body: S.CreateInvoiceRequest, response: { 200: S.Invoice } },
        // The schema documents the body; checkInvoiceRequest reads it exactly (amounts as decimal text).
        validatorCompiler: () => () => true,
        preHandler: storePermission(POLICIES.createInvoice),
      },
      async (request) => {
        const wallet = await walletOf(request.params.storeId);
        return gf.invoices.create(wallet, request.body, identityOf(request).keyId);
      },
    );

    scope.get<{ Params: StoreParams; Querystring: Record<string, string | string[]> }>(
      '/api/v1/stores/:storeId/invoices',
      { schema: { summary: 'List invoices, newest first', tags: TAGS, security: SECURITY, response: { 200: { type: 'array', items: S.Invoice } } }, preHandler: storePermission(POLICIES.viewInvoices) },
      async (request) => {
        await walletOf(request.params.storeId);
        const views = await gf.invoices.list(request.params.storeId, listQuery(request));
        return views.map((v) => gf.invoices.json(v));
      },
    );

    scope.get<{ Params: InvoiceParams }>(
      '/api/v1/stores/:storeId/invoices/:invoiceId',
      { schema: { summary: 'One invoice', tags: TAGS, security: SECURITY, response: { 200: S.Invoice } }, preHandler: storePermission(POLICIES.viewInvoices) },
      async (request) => gf.invoices.json(await gf.invoices.get(request.params.storeId, request.params.invoiceId)),
    );

    scope.put<{ Params: InvoiceParams; Body: JsonValue }>(
      '/api/v1/stores/:storeId/invoices/:invoiceId',
      {
        schema: { summary: "Replace an invoice's metadata", tags: TAGS, security: SECURITY, body: S.UpdateInvoiceRequest, response: { 200: S.Invoice } },
        validatorCompiler: () => () => true,
        preHandler: storePermission(POLICIES.modifyInvoices),
      },
      async (request) => gf.invoices.json(await gf.invoices.updateMetadata(request.params.storeId, request.params.invoiceId, request.body)),
    );

    scope.get<{ Params: InvoiceParams }>(
      '/api/v1/stores/:storeId/invoices/:invoiceId/payment-methods',
      {
        schema: { summary: "An invoice's payment methods with amounts and payments", tags: TAGS, security: SECURITY, response: { 200: { type: 'array', items: S.InvoicePaymentMethod } } },
        preHandler: storePermission(POLICIES.viewInvoices),
      },
      async (request) => gf.invoices.paymentMethodsJson(await gf.invoices.get(request.params.storeId, request.params.invoiceId)),
    );

    scope.post<{ Params: InvoiceParams; Body: JsonValue }>(
      '/api/v1/stores/:storeId/invoices/:invoiceId/status',
      {
        schema: { summary: 'Mark an invoice Settled or Invalid (a manual transition)', tags: TAGS, security: SECURITY, body: S.MarkInvoiceRequest, response: { 200: S.Invoice } },
        validatorCompiler: () => () => true,
        preHandler: storePermission(POLICIES.modifyInvoices),
      },
      async (request) => {
        const id = requireStorePermission(request, request.params.storeId, POLICIES.modifyInvoices);
        return gf.invoices.json(await gf.invoices.mark(request.params.storeId, request.params.invoiceId, request.body, id.keyId));
      },
    );

    // BTCPay's payment requests (payment-requests.ts) over src/requests: each part a payment of payment API v1.
    const PR = PAYMENT_REQUEST_SCHEMAS;
    type RequestParams = { storeId: string; paymentRequestId: string };
    const hasRate = (code: string) => gf.isSupportedCurrency(code);
    scope.get<{ Params: StoreParams; Querystring: Record<string, string | string[]> }>(
      '/api/v1/stores/:storeId/payment-requests',
      { schema: { summary: "The store's payment requests, newest first", tags: TAGS, security: SECURITY, response: { 200: { type: 'array', items: PR.PaymentRequestData } } }, preHandler: storePermission(POLICIES.viewPaymentRequests) },
      async (request) => {
        const wallet = await walletOf(request.params.storeId);
        const includeArchived = (request.query as Record<string, unknown>).includeArchived === 'true';
        return (await gf.requests.list(wallet, includeArchived)).map(paymentRequestJson);
      },
    );
    scope.post<{ Params: StoreParams; Body: JsonValue }>(
      '/api/v1/stores/:storeId/payment-requests',
      {
        schema: { summary: 'Create a payment request', tags: TAGS, security: SECURITY, body: PR.PaymentRequestBaseData, response: { 200: PR.PaymentRequestData } },
        validatorCompiler: () => () => true,
        preHandler: storePermission(POLICIES.modifyPaymentRequests),
      },
      async (request) => {
        const wallet = await walletOf(request.params.storeId);
        const fields = readPaymentRequestBody(request.body, wallet.local_currency.toUpperCase(), hasRate);
        return paymentRequestJson(await gf.requests.create(wallet, fields));
      },
    );
    scope.get<{ Params: RequestParams }>(
      '/api/v1/stores/:storeId/payment-requests/:paymentRequestId',
      { schema: { summary: 'One payment request', tags: TAGS, security: SECURITY, response: { 200: PR.PaymentRequestData } }, preHandler: storePermission(POLICIES.viewPaymentRequests) },
      async (request) => {
        const wallet = await walletOf(request.params.storeId);
        return paymentRequestJson(await paymentRequestOf(() => gf.requests.get(wallet, request.params.paymentRequestId)));
      },
    );
    scope.put<{ Params: RequestParams; Body: JsonValue }>(
      '/api/v1/stores/:storeId/payment-requests/:paymentRequestId',
      {
        schema: { summary: 'Update a payment request', tags: TAGS, security: SECURITY, body: PR.PaymentRequestBaseData, response: { 200: PR.PaymentRequestData } },
        validatorCompiler: () => () => true,
        preHandler: storePermission(POLICIES.modifyPaymentRequests),
      },
      async (request) => {
        const wallet = await walletOf(request.params.storeId);
        const fields = readPaymentRequestBody(request.body, wallet.local_currency.toUpperCase(), hasRate);
        return paymentRequestJson(await paymentRequestOf(() => gf.requests.update(wallet, request.params.paymentRequestId, fields)));
      },
    );
    scope.delete<{ Params: RequestParams }>(
      '/api/v1/stores/:storeId/payment-requests/:paymentRequestId',
      { schema: { summary: 'Archive a payment request (its payments stay)', tags: TAGS, security: SECURITY }, preHandler: storePermission(POLICIES.modifyPaymentRequests) },
      async (request, reply) => {
        const wallet = await walletOf(request.params.storeId);
        await paymentRequestOf(() => gf.requests.archive(wallet, request.params.paymentRequestId));
        return reply.status(200).send();
      },
    );

    scope.post<{ Params: RequestParams; Body: JsonValue }>(
      '/api/v1/stores/:storeId/payment-requests/:paymentRequestId/pay',
      {
        schema: {
          summary: 'Create (or reuse a pending) invoice paying the payment request, or a part of it',
          tags: TAGS,
          security: SECURITY,
          body: { type: ['object', 'null'], properties: { amount: { type: ['string', 'null'] }, allowPendingInvoiceReuse: { type: ['boolean', 'null'] } } },
          response: { 200: S.Invoice },
        },
        validatorCompiler: () => () => true,
        preHandler: storePermission(POLICIES.viewPaymentRequests),
      },
      async (request) => {
        const wallet = await walletOf(request.params.storeId);
        const keyId = identityOf(request).keyId;
        return paymentRequestOf(() => payPaymentRequest({ requests: gf.requests, invoices: gf.invoices }, wallet, request.params.paymentRequestId, request.body, keyId));
      },
    );

    // BTCPay's apps API for point of sale (apps.ts) over src/pos: each charge a payment and an invoice.
    const APPS = POS_APP_SCHEMAS;
    type AppParams = { appId: string };
    // An app-scoped path names no store: the app's store must be the key's, with the policy (else 404 / 403).
    const appOf = async (request: FastifyRequest, appId: string, policy: Policy) => {
      const found = await appNotFoundAs404(() => gf.pos.findByAppId(appId));
      if (identityOf(request).storeId !== found.view.storeId) throw appNotFound();
      requireStorePermission(request, found.view.storeId, policy);
      return found;
    };
    scope.get<{ Params: StoreParams }>(
      '/api/v1/stores/:storeId/apps',
      { schema: { summary: "The store's apps (its points of sale)", tags: TAGS, security: SECURITY, response: { 200: { type: 'array', items: APPS.BasicAppData } } }, preHandler: storePermission(POLICIES.viewStoreSettings) },
      async (request) => {
        const wallet = await walletOf(request.params.storeId);
        return (await gf.pos.list([wallet])).map(basicAppJson);
      },
    );
    scope.post<{ Params: StoreParams; Body: JsonValue }>(
      '/api/v1/stores/:storeId/apps/pos',
      {
        schema: { summary: 'Create a point of sale app', tags: TAGS, security: SECURITY, body: APPS.CreatePointOfSaleAppRequest, response: { 200: APPS.PointOfSaleAppData } },
        validatorCompiler: () => () => true,
        preHandler: storePermission(POLICIES.modifyStoreSettings),
      },
      async (request) => {
        const wallet = await walletOf(request.params.storeId);
        const input = readPosAppBody(request.body, wallet.local_currency.toUpperCase(), hasRate);
        return posAppJson(await gf.pos.create(wallet, input));
      },
    );
    scope.get<{ Params: AppParams }>(
      '/api/v1/apps/pos/:appId',
      { schema: { summary: 'A point of sale app with its items', tags: TAGS, security: SECURITY, response: { 200: APPS.PointOfSaleAppData } } },
      async (request) => posAppJson((await appOf(request, request.params.appId, POLICIES.viewStoreSettings)).view),
    );
    scope.put<{ Params: AppParams; Body: JsonValue }>(
      '/api/v1/apps/pos/:appId',
      {
        schema: { summary: 'Update a point of sale app (its fields and items as given)', tags: TAGS, security: SECURITY, body: APPS.CreatePointOfSaleAppRequest, response: { 200: APPS.PointOfSaleAppData } },
        validatorCompiler: () => () => true,
      },
      async (request) => {
        const { view, wallet } = await appOf(request, request.params.appId, POLICIES.modifyStoreSettings);
        const input = readPosAppBody(request.body, wallet.local_currency.toUpperCase(), hasRate);
        return posAppJson(await gf.pos.update(wallet, view.app.public_id, input));
      },
    );
    scope.get<{ Params: AppParams }>(
      '/api/v1/apps/:appId',
      { schema: { summary: "An app's basic data", tags: TAGS, security: SECURITY, response: { 200: APPS.BasicAppData } } },
      async (request) => basicAppJson((await appOf(request, request.params.appId, POLICIES.viewStoreSettings)).view),
    );
    scope.delete<{ Params: AppParams }>(
      '/api/v1/apps/:appId',
      { schema: { summary: 'Delete an app (its page stops; its invoices and payments stay)', tags: TAGS, security: SECURITY } },
      async (request, reply) => {
        const { view, wallet } = await appOf(request, request.params.appId, POLICIES.modifyStoreSettings);
        await gf.pos.delete(wallet, view.app.public_id);
        return reply.status(200).send();
      },
    );

    // BTCPay's reports (views Payments and Sales) from the ledger; reports.ts reads the body exactly.
    scope.post<{ Params: StoreParams; Body: JsonValue }>(
      '/api/v1/stores/:storeId/reports',
      {
        schema: { summary: "A report of the store's ledger (BTCPay's views Payments and Sales)", tags: TAGS, security: SECURITY, body: REPORT_SCHEMAS.StoreReportRequest, response: { 200: REPORT_SCHEMAS.StoreReportResponse } },
        validatorCompiler: () => () => true,
        preHandler: storePermission(POLICIES.viewReports),
      },
      async (request) => {
        const wallet = await walletOf(request.params.storeId);
        return gf.reports.report(wallet, gf.reports.read(request.body));
      },
    );
    aliases.register();
  });
}

/** BTCPay's 404 for an app that is unknown or another store's. */
const appNotFound = () => new GreenfieldError(404, 'app-not-found', 'The app was not found.');

async function appNotFoundAs404<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not-found') throw appNotFound();
    throw err;
  }
}

/** BTCPay's 404 for a payment request that is unknown or another store's. */
async function paymentRequestOf<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not-found') throw new GreenfieldError(404, 'payment-request-not-found', 'The payment request was not found.');
    throw err;
  }
}

/** GET …/invoices query: orderId and status repeated, skip/take, startDate/endDate in Unix seconds. */
function listQuery(request: FastifyRequest): InvoiceListQuery {
  const q = request.query as Record<string, string | string[] | undefined>;
  const many = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const int = (name: string, v: string | string[] | undefined): number | null => {
    if (v === undefined) return null;
    if (typeof v !== 'string' || !/^\d{1,12}$/.test(v)) throw new GreenfieldError(400, 'invalid-query', `${name} must be a whole number`);
    return Number.parseInt(v, 10);
  };
  return {
    orderIds: many(q.orderId),
    statuses: many(q.status),
    skip: int('skip', q.skip) ?? 0,
    take: int('take', q.take),
    startDate: int('startDate', q.startDate),
    endDate: int('endDate', q.endDate),
    includeArchived: q.includeArchived === 'true',
  };
}
