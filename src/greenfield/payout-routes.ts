// Greenfield pull-payment and payout routes (BTCPay's paths, swagger.template.pull-payments.json). The store's
// routes are behind the Greenfield key and check their permission for the store in the path; the public ones
// (/api/v1/pull-payments/{id}…) take no key: the pull payment's unguessable id is the payee's capability, as
// in BTCPay. POST …/stores/{storeId}/pull-payments is in webhook-routes.ts beside the refunds it also creates.
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { greenfieldAuth, requireStorePermission } from './auth.ts';
import { useGreenfieldErrors } from './errors.ts';
import { grants, POLICIES } from './permissions.ts';
import type { GreenfieldKeys } from './api-keys.ts';
import type { GreenfieldPayouts } from './payouts.ts';
import type { GreenfieldPayoutPsbts } from './payout-psbt.ts';
import { payoutPsbtRoutes } from './payout-psbt-routes.ts';
import { found, storelessAliases } from './storeless-routes.ts';
import { ApproveBody, PayoutBody, PayoutData, PullPaymentData, StorePayoutBody } from './webhook-schemas.ts';

const STORE_TAGS = ['Greenfield'];
const PUBLIC_TAGS = ['Greenfield'];
const PUBLIC: never[] = [];
const SECURITY = [{ greenfieldToken: [] }];

const id = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const Flag = Type.Union([Type.Literal('true'), Type.Literal('false')]);
const noStore = (app: FastifyInstance) =>
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store');
    return payload;
  });

/** The store's routes (a Greenfield key for the store). */
export async function greenfieldPayoutRoutes(app: FastifyInstance, ctx: { keys: GreenfieldKeys; payouts: GreenfieldPayouts; psbts: GreenfieldPayoutPsbts }): Promise<void> {
  const { payouts } = ctx;
  useGreenfieldErrors(app);
  app.addHook('preHandler', greenfieldAuth(ctx.keys));
  noStore(app);
  payoutPsbtRoutes(app, ctx.psbts);
  // BTCPay's DELETE /api/v1/pull-payments/{id} and /api/v1/payouts/{payoutId}…: aliases of the store routes below.
  const aliases = storelessAliases(app, {
    pullPaymentId: async (who, id) => (await payouts.listPulls(who.walletId, true)).some((p) => p.id === id),
    payoutId: (who, id) => found(() => payouts.getPayout({ walletId: who.walletId }, id)),
  });
  const storeParams = Type.Object({ storeId: id(200) });
  const pullParams = Type.Object({ storeId: id(200), pullPaymentId: id(64) });
  const payoutParams = Type.Object({ storeId: id(200), payoutId: id(64) });

  app.get<{ Params: Static<typeof storeParams>; Querystring: { includeArchived?: 'true' | 'false' } }>(
    '/api/v1/stores/:storeId/pull-payments',
    {
      schema: {
        summary: "The store's pull payments, refunds' included (as BTCPay lists them)",
        tags: STORE_TAGS,
        security: SECURITY,
        params: storeParams,
        querystring: Type.Object({ includeArchived: Type.Optional(Flag) }, { additionalProperties: false }),
        response: { 200: Type.Array(PullPaymentData) },
      },
    },
    async (request) => {
      const who = requireStorePermission(request, request.params.storeId, POLICIES.viewPullPayments);
      return payouts.listPulls(who.walletId, request.query.includeArchived === 'true');
    },
  );

  app.delete<{ Params: Static<typeof pullParams> }>(
    '/api/v1/stores/:storeId/pull-payments/:pullPaymentId',
    { schema: { summary: 'Archive a pull payment; its payouts not yet sent are cancelled', tags: STORE_TAGS, security: SECURITY, params: pullParams } },
    async (request, reply) => {
      const who = requireStorePermission(request, request.params.storeId, POLICIES.archivePullPayments);
      await payouts.archivePull(who.walletId, request.params.pullPaymentId);
      return reply.status(200).send();
    },
  );

  app.get<{ Params: Static<typeof storeParams>; Querystring: { includeCancelled?: 'true' | 'false' } }>(
    '/api/v1/stores/:storeId/payouts',
    {
      schema: {
        summary: "The store's payouts",
        tags: STORE_TAGS,
        security: SECURITY,
        params: storeParams,
        querystring: Type.Object({ includeCancelled: Type.Optional(Flag) }, { additionalProperties: false }),
        response: { 200: Type.Array(PayoutData) },
      },
    },
    async (request) => {
      const who = requireStorePermission(request, request.params.storeId, POLICIES.viewPullPayments);
      return payouts.listPayouts({ walletId: who.walletId }, request.query.includeCancelled === 'true');
    },
  );

  app.post<{ Params: Static<typeof storeParams>; Body: Static<typeof StorePayoutBody> }>(
    '/api/v1/stores/:storeId/payouts',
    {
      schema: {
        summary: 'Create a payout of one of the store’s pull payments (pullPaymentId required), approved at once when asked',
        tags: STORE_TAGS,
        security: SECURITY,
        params: storeParams,
        body: StorePayoutBody,
        response: { 200: PayoutData },
      },
    },
    async (request) => {
      const who = requireStorePermission(request, request.params.storeId, POLICIES.createNonApprovedPullPayments);
      return payouts.createStorePayout(who.walletId, request.body, grants(who.permissions, POLICIES.createPullPayments, who.storeId));
    },
  );

  app.get<{ Params: Static<typeof payoutParams> }>(
    '/api/v1/stores/:storeId/payouts/:payoutId',
    { schema: { summary: 'One payout of the store', tags: STORE_TAGS, security: SECURITY, params: payoutParams, response: { 200: PayoutData } } },
    async (request) => {
      const who = requireStorePermission(request, request.params.storeId, POLICIES.viewPullPayments);
      return payouts.getPayout({ walletId: who.walletId }, request.params.payoutId);
    },
  );

  app.post<{ Params: Static<typeof payoutParams>; Body: Static<typeof ApproveBody> }>(
    '/api/v1/stores/:storeId/payouts/:payoutId',
    {
      schema: {
        summary: 'Approve a payout (AwaitingPayment); a service-held wallet pays it at once (InProgress once broadcast)',
        description: 'A watch-only wallet cannot sign here: the payout stays AwaitingPayment until paid by the PSBT of GET …/payouts/psbt, signed and posted to …/payouts/signed (or paid elsewhere and marked paid).',
        tags: STORE_TAGS,
        security: SECURITY,
        params: payoutParams,
        body: Type.Optional(ApproveBody),
        response: { 200: PayoutData },
      },
    },
    async (request) => {
      const who = requireStorePermission(request, request.params.storeId, POLICIES.managePullPayments);
      return payouts.approve(who.walletId, request.params.payoutId, request.body ?? {});
    },
  );

  app.delete<{ Params: Static<typeof payoutParams> }>(
    '/api/v1/stores/:storeId/payouts/:payoutId',
    { schema: { summary: 'Cancel a payout not yet sent', tags: STORE_TAGS, security: SECURITY, params: payoutParams } },
    async (request, reply) => {
      const who = requireStorePermission(request, request.params.storeId, POLICIES.managePullPayments);
      await payouts.cancel(who.walletId, request.params.payoutId);
      return reply.status(200).send();
    },
  );

  app.post<{ Params: Static<typeof payoutParams> }>(
    '/api/v1/stores/:storeId/payouts/:payoutId/mark-paid',
    { schema: { summary: 'Mark an approved payout not sent by satgate as paid (Completed)', tags: STORE_TAGS, security: SECURITY, params: payoutParams } },
    async (request, reply) => {
      const who = requireStorePermission(request, request.params.storeId, POLICIES.managePullPayments);
      await payouts.markPaid(who.walletId, request.params.payoutId);
      return reply.status(200).send();
    },
  );
  aliases.register();
}

/** The payee's routes (no key). */
export async function greenfieldPublicPullRoutes(app: FastifyInstance, ctx: { payouts: GreenfieldPayouts }): Promise<void> {
  const { payouts } = ctx;
  useGreenfieldErrors(app);
  noStore(app);
  const pullParams = Type.Object({ pullPaymentId: id(64) });
  const payoutParams = Type.Object({ pullPaymentId: id(64), payoutId: id(64) });
  // A pull payment's id is the payee's capability (claiming a payout, a refund's link): kept out of the logs.
  const config = { secretParams: ['pullPaymentId'] } as const;

  app.get<{ Params: Static<typeof pullParams> }>(
    '/api/v1/pull-payments/:pullPaymentId',
    { config, schema: { summary: 'A pull payment', tags: PUBLIC_TAGS, security: PUBLIC, params: pullParams, response: { 200: PullPaymentData } } },
    async (request) => payouts.getPull(request.params.pullPaymentId),
  );

  app.get<{ Params: Static<typeof pullParams>; Querystring: { includeCancelled?: 'true' | 'false' } }>(
    '/api/v1/pull-payments/:pullPaymentId/payouts',
    {
      config,
      schema: {
        summary: "A pull payment's payouts",
        tags: PUBLIC_TAGS,
        security: PUBLIC,
        params: pullParams,
        querystring: Type.Object({ includeCancelled: Type.Optional(Flag) }, { additionalProperties: false }),
        response: { 200: Type.Array(PayoutData) },
      },
    },
    async (request) => payouts.listPayouts({ pullPublicId: request.params.pullPaymentId }, request.query.includeCancelled === 'true'),
  );

  app.post<{ Params: Static<typeof pullParams>; Body: Static<typeof PayoutBody> }>(
    '/api/v1/pull-payments/:pullPaymentId/payouts',
    {
      config,
      schema: {
        summary: 'Claim a payout to an address of the payee (AwaitingApproval, or approved at once when the pull payment auto-approves)',
        tags: PUBLIC_TAGS,
        security: PUBLIC,
        params: pullParams,
        body: PayoutBody,
        response: { 200: PayoutData },
      },
    },
    async (request) => payouts.createPayout(request.params.pullPaymentId, request.body),
  );

  app.get<{ Params: Static<typeof payoutParams> }>(
    '/api/v1/pull-payments/:pullPaymentId/payouts/:payoutId',
    { config, schema: { summary: 'One payout of a pull payment', tags: PUBLIC_TAGS, security: PUBLIC, params: payoutParams, response: { 200: PayoutData } } },
    async (request) => payouts.getPayout({ pullPublicId: request.params.pullPaymentId }, request.params.payoutId),
  );
}
