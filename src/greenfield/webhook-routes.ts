// Greenfield webhook routes (BTCPay's paths: /api/v1/stores/{storeId}/webhooks…) and the pull-payment route the
// WooCommerce plugin's refunds call. Behind the one Greenfield authentication hook; every route checks its
// permission for the store in the path (another store's id reads as unknown).
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { greenfieldAuth, requireStorePermission } from './auth.ts';
import { GreenfieldError, GreenfieldValidationError, useGreenfieldErrors } from './errors.ts';
import { grants, POLICIES } from './permissions.ts';
import { isRefundName } from './refund-name.ts';
import type { GreenfieldKeys } from './api-keys.ts';
import type { GreenfieldHooks } from './webhooks.ts';
import { WebhookFieldError, webhookData, type WebhookRow } from './webhook-store.ts';
import { DeliveryData, PullPaymentBody, PullPaymentData, WebhookBody, WebhookCreated, WebhookData } from './webhook-schemas.ts';

const TAGS = ['Greenfield'];
const SECURITY = [{ greenfieldToken: [] }];

/** What the routes use. */
export interface GreenfieldHookRoutesContext {
  keys: GreenfieldKeys;
  hooks: GreenfieldHooks;
}

type StoreParams = { storeId: string };
type HookParams = { storeId: string; webhookId: string };
type DeliveryParams = { storeId: string; webhookId: string; deliveryId: string };

const webhookNotFound = () => new GreenfieldError(404, 'webhook-not-found', 'The webhook was not found');
const deliveryNotFound = () => new GreenfieldError(404, 'webhookdelivery-not-found', 'The webhook delivery was not found');

/** The route plugin. */
export async function greenfieldHookRoutes(app: FastifyInstance, ctx: GreenfieldHookRoutesContext): Promise<void> {
  const { hooks } = ctx;
  useGreenfieldErrors(app);
  app.addHook('preHandler', greenfieldAuth(ctx.keys));
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store');
    return payload;
  });
  const fieldErrors = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof WebhookFieldError) throw new GreenfieldValidationError([{ path: err.path, message: err.message }]);
      throw err;
    }
  };
  const hookOf = async (walletId: bigint, webhookId: string): Promise<WebhookRow> => {
    const hook = await hooks.store.find(walletId, webhookId);
    if (!hook) throw webhookNotFound();
    return hook;
  };
  const storeParams = Type.Object({ storeId: Type.String({ maxLength: 200 }) });
  const hookParams = Type.Object({ storeId: Type.String({ maxLength: 200 }), webhookId: Type.String({ maxLength: 64 }) });
  const deliveryParams = Type.Object({ storeId: Type.String({ maxLength: 200 }), webhookId: Type.String({ maxLength: 64 }), deliveryId: Type.String({ maxLength: 64 }) });
  const modify = POLICIES.modifyWebhooks;

  app.get<{ Params: StoreParams }>(
    '/api/v1/stores/:storeId/webhooks',
    { schema: { summary: "The store's webhooks", tags: TAGS, security: SECURITY, params: storeParams, response: { 200: Type.Array(WebhookData) } } },
    async (request) => {
      const id = requireStorePermission(request, request.params.storeId, modify);
      return (await hooks.store.list(id.walletId)).map(webhookData);
    },
  );

  app.post<{ Params: StoreParams; Body: Static<typeof WebhookBody> }>(
    '/api/v1/stores/:storeId/webhooks',
    {
      schema: {
        summary: 'Create a webhook; its secret is answered this once',
        description: 'Deliveries are signed `BTCPay-Sig: sha256=<hex HMAC-SHA256 of the body with the secret>` and go through satgate’s durable outbox.',
        tags: TAGS,
        security: SECURITY,
        params: storeParams,
        body: WebhookBody,
        response: { 200: WebhookCreated },
      },
    },
    async (request) => {
      const id = requireStorePermission(request, request.params.storeId, modify);
      return fieldErrors(() => hooks.store.create(id.walletId, request.body));
    },
  );

  app.get<{ Params: HookParams }>(
    '/api/v1/stores/:storeId/webhooks/:webhookId',
    { schema: { summary: 'One webhook', tags: TAGS, security: SECURITY, params: hookParams, response: { 200: WebhookData } } },
    async (request) => {
      const id = requireStorePermission(request, request.params.storeId, modify);
      return webhookData(await hookOf(id.walletId, request.params.webhookId));
    },
  );

  app.put<{ Params: HookParams; Body: Static<typeof WebhookBody> }>(
    '/api/v1/stores/:storeId/webhooks/:webhookId',
    { schema: { summary: 'Update a webhook (a secret left out, null or empty is kept)', tags: TAGS, security: SECURITY, params: hookParams, body: WebhookBody, response: { 200: WebhookData } } },
    async (request) => {
      const id = requireStorePermission(request, request.params.storeId, modify);
      const updated = await fieldErrors(() => hooks.store.update(id.walletId, request.params.webhookId, request.body));
      if (!updated) throw webhookNotFound();
      return updated;
    },
  );

  app.delete<{ Params: HookParams }>(
    '/api/v1/stores/:storeId/webhooks/:webhookId',
    { schema: { summary: 'Delete a webhook (its pending deliveries are dropped)', tags: TAGS, security: SECURITY, params: hookParams } },
    async (request, reply) => {
      const id = requireStorePermission(request, request.params.storeId, modify);
      if (!(await hooks.store.delete(id.walletId, request.params.webhookId))) throw webhookNotFound();
      return reply.status(200).send();
    },
  );

  app.get<{ Params: HookParams; Querystring: { count?: string } }>(
    '/api/v1/stores/:storeId/webhooks/:webhookId/deliveries',
    {
      schema: {
        summary: "A webhook's latest deliveries, newest first",
        tags: TAGS,
        security: SECURITY,
        params: hookParams,
        querystring: Type.Object({ count: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'how many (default 50, at most 1000)' })) }, { additionalProperties: false }),
        response: { 200: Type.Array(DeliveryData) },
      },
    },
    async (request) => {
      const id = requireStorePermission(request, request.params.storeId, modify);
      const hook = await hookOf(id.walletId, request.params.webhookId);
      return hooks.deliveries.list(hook, request.query.count === undefined ? 50 : Number(request.query.count));
    },
  );

  app.get<{ Params: DeliveryParams }>(
    '/api/v1/stores/:storeId/webhooks/:webhookId/deliveries/:deliveryId',
    { schema: { summary: 'One delivery', tags: TAGS, security: SECURITY, params: deliveryParams, response: { 200: DeliveryData } } },
    async (request) => {
      const id = requireStorePermission(request, request.params.storeId, modify);
      const delivery = await hooks.deliveries.get(await hookOf(id.walletId, request.params.webhookId), request.params.deliveryId);
      if (!delivery) throw deliveryNotFound();
      return delivery;
    },
  );

  app.get<{ Params: DeliveryParams }>(
    '/api/v1/stores/:storeId/webhooks/:webhookId/deliveries/:deliveryId/request',
    { schema: { summary: 'The exact body a delivery sends', tags: TAGS, security: SECURITY, params: deliveryParams } },
    async (request, reply) => {
      const id = requireStorePermission(request, request.params.storeId, modify);
      const body = await hooks.deliveries.request(await hookOf(id.walletId, request.params.webhookId), request.params.deliveryId);
      if (body === undefined) throw deliveryNotFound();
      return reply.type('application/json').send(body);
    },
  );

  app.post<{ Params: DeliveryParams }>(
    '/api/v1/stores/:storeId/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    { schema: { summary: 'Send a delivery’s event again as a new delivery; answers the new delivery id', tags: TAGS, security: SECURITY, params: deliveryParams, response: { 200: Type.String() } } },
    async (request, reply) => {
      const id = requireStorePermission(request, request.params.storeId, modify);
      const newId = await hooks.deliveries.redeliver(await hookOf(id.walletId, request.params.webhookId), request.params.deliveryId);
      if (newId === undefined) throw deliveryNotFound();
      hooks.wake();
      return reply.type('application/json').send(JSON.stringify(newId));
    },
  );

  app.post<{ Params: StoreParams; Body: Static<typeof PullPaymentBody> }>(
    '/api/v1/stores/:storeId/pull-payments',
    {
      schema: {
        summary: 'Create a pull payment; one whose name begins with "Refund" refunds (part of) an invoice (the WooCommerce plugin’s refunds)',
        description:
          'A pull payment in BTC whose payee claims payouts through the public /api/v1/pull-payments/{id}/payouts (autoApproveClaims needs btcpay.store.cancreatepullpayments). A refund: `name` names the invoice as the WooCommerce plugin writes it, "Refund of order <order number>; <reason>" (the order number is the invoice’s metadata.orderId), or "Refund of invoice <invoice id>; <reason>"; the reason and `description` are never read. It must name exactly one paid invoice of the store, otherwise 422. `currency` is BTC or the invoice’s currency (converted at the invoice’s rate). Only the invoice’s own buyer (metadata.buyerEmail) is mailed the link.',
        tags: TAGS,
        security: SECURITY,
        params: storeParams,
        body: PullPaymentBody,
        response: { 200: PullPaymentData },
      },
    },
    async (request) => {
      const id = requireStorePermission(request, request.params.storeId, POLICIES.createNonApprovedPullPayments);
      if (isRefundName(request.body.name)) return hooks.createPullPayment(id.walletId, request.body);
      return hooks.payouts.createPull(id.walletId, request.body, grants(id.permissions, POLICIES.createPullPayments, id.storeId));
    },
  );
}
