// The dashboard API's merchant views (DESIGN.md section 9 "merchant console": the console has no back door,
// so everything it shows is here too): wallets with balances, adding and editing wallets, orders with status
// and date filters and server-side pages, an order's detail, redelivery, chart data and the login history.
// Same session token and envelope as operations 18 to 24; thin, the Merchant does the work.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { ok } from '../http/envelope.ts';
import { dashboardAuth, requireDashboardSession } from '../http/dashboard-auth.ts';
import { useStrictSchemas } from '../http/strict-schema.ts';
import type { Teams } from '../teams/teams.ts';
import { teamGuard } from './team-guard.ts';
import type { SessionVerifier } from './sessions.ts';
import type { Merchant } from './merchant.ts';
import { ORDER_KINDS, ORDER_LIST_STATUSES } from './merchant-orders.ts';

const tags = ['dashboard'];
const security = [{ dashboardToken: [] }];
const Envelope = { return: Type.String(), status: Type.String() };
const Text = (max: number, description: string) => Type.Optional(Type.String({ maxLength: max, description }));
const WholeNumber = (description: string) => Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$', description }));
const Day = (description: string) => Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description }));
const ApiIdParams = Type.Object({ api_id: Type.String({ minLength: 1, maxLength: 100 }) });
const OrderParams = Type.Object({
  kind: Type.Union(ORDER_KINDS.map((k) => Type.Literal(k)), { description: 'payment (payment API v1), form (payment form) or order (set_addr)' }),
  id: Type.String({ pattern: '^[1-9][0-9]{0,17}$' }),
});
const AddWalletBody = Type.Object(
  {
    pub: Type.String({ minLength: 1, maxLength: 200, description: 'an extended public key registered with your e-mail (or new), or new_wallet for a service-held wallet' }),
    test: Type.Optional(Type.Boolean({ description: 'with new_wallet: a sandbox (testBTC) wallet' })),
    local_currency: Text(3, 'three-letter code of a supported currency'),
    account_name: Text(100, 'nickname'),
    auth_token: Text(200, 'the session token, when not in the Authorization header'),
  },
  { additionalProperties: false },
);
const UpdateWalletBody = Type.Object(
  {
    account_name: Text(100, 'nickname; empty unsets it'),
    local_currency: Text(3, 'three-letter code of a supported currency'),
    notification_email: Text(254, 'e-mail for notifications; empty unsets it'),
    webhook_url: Text(2048, 'URL that receives payment updates of set_addr orders (the wallet return_url); empty unsets it'),
    default_language: Text(20, "language of the payer pages and e-mails when the payer chose none, before the browser's (a supported tag such as de or zh-Hant); empty unsets it"),
    auth_token: Text(200, 'the session token, when not in the Authorization header'),
  },
  { additionalProperties: false },
);
const OrdersQuery = Type.Object(
  {
    status: Type.Optional(Type.Union(ORDER_LIST_STATUSES.map((s) => Type.Literal(s)))),
    from: Day('first day (UTC) of creation, YYYY-MM-DD'),
    to: Day('last day (UTC) of creation, YYYY-MM-DD, included'),
    page: WholeNumber('page number, from 1'),
    page_size: WholeNumber('rows per page, at most 100 (default 25)'),
  },
  { additionalProperties: false },
);
const RedeliverBody = Type.Object({ event_id: Type.String({ minLength: 1, maxLength: 100 }), auth_token: Text(200, 'the session token') }, { additionalProperties: false });

/** Registers the merchant views of the dashboard API under /dashboard/. */
export async function merchantRoutes(app: FastifyInstance, ctx: { merchant: Merchant; sessions: SessionVerifier; teams: Teams }): Promise<void> {
  useStrictSchemas(app);
  const { merchant } = ctx;
  app.addHook('preValidation', dashboardAuth(app, ctx.sessions));
  app.addHook('preHandler', teamGuard(ctx.teams, ctx.merchant));

  app.get('/dashboard/wallets', { schema: { summary: "The profile's wallets with settings and balances (BTC and local currency at the current rate)", tags, security } }, async (request) =>
    ok({ wallets: await merchant.wallets(requireDashboardSession(request)) }),
  );

  app.post<{ Body: Static<typeof AddWalletBody> }>(
    '/dashboard/wallets',
    {
      schema: {
        summary: 'Add a wallet: a new key is registered with your e-mail; a registered key only if registered with your e-mail (then it takes the name and local currency given)',
        tags,
        security,
        body: AddWalletBody,
        response: { 200: Type.Object({ ...Envelope, api_id: Type.String() }) },
      },
    },
    async (request) => {
      const { auth_token: _t, ...input } = request.body;
      return ok({ api_id: (await merchant.addWallet(requireDashboardSession(request), input, request.ip)).api_id });
    },
  );

  app.get<{ Params: Static<typeof ApiIdParams> }>(
    '/dashboard/wallets/:api_id',
    { schema: { summary: 'One of your wallets with its balance', tags, security, params: ApiIdParams } },
    async (request) => ok({ wallet: await merchant.wallet(requireDashboardSession(request), request.params.api_id) }),
  );

  app.post<{ Params: Static<typeof ApiIdParams>; Body: Static<typeof UpdateWalletBody> }>(
    '/dashboard/wallets/:api_id',
    {
      schema: {
        summary:
          "Change a wallet's name, local currency, notification e-mail, webhook URL (add_pub's checks) or payers' default language; the only way to change the webhook URL of a registered key, and saving the name clears its account_name_check",
        tags,
        security,
        params: ApiIdParams,
        body: UpdateWalletBody,
        response: { 200: Type.Object(Envelope) },
      },
    },
    async (request) => {
      const { auth_token: _t, ...settings } = request.body;
      await merchant.updateWallet(requireDashboardSession(request), request.params.api_id, settings, request.ip);
      return ok();
    },
  );

  app.get<{ Params: Static<typeof ApiIdParams>; Querystring: { days?: string } }>(
    '/dashboard/wallets/:api_id/received',
    {
      schema: {
        summary: 'What the wallet received per UTC day (default the last 30 days), in BTC and in its local currency at the current rate',
        tags,
        security,
        params: ApiIdParams,
        querystring: Type.Object({ days: WholeNumber('how many days, 1 to 366') }, { additionalProperties: false }),
      },
    },
    async (request) =>
      ok(await merchant.receivedPerDay(requireDashboardSession(request), request.params.api_id, request.query.days === undefined ? 30 : Number(request.query.days))),
  );

  app.get<{ Querystring: Static<typeof OrdersQuery> }>(
    '/dashboard/orders',
    { schema: { summary: 'Payment requests, payment forms and set_addr orders of your wallets, newest first', tags, security, querystring: OrdersQuery } },
    async (request) => {
      const q = request.query;
      return ok(
        await merchant.orders(requireDashboardSession(request), {
          ...(q.status !== undefined ? { status: q.status } : {}),
          ...(q.from !== undefined ? { from: q.from } : {}),
          ...(q.to !== undefined ? { to: q.to } : {}),
          ...(q.page !== undefined ? { page: Number(q.page) } : {}),
          ...(q.page_size !== undefined ? { pageSize: Number(q.page_size) } : {}),
        }),
      );
    },
  );

  app.get<{ Params: Static<typeof OrderParams> }>(
    '/dashboard/orders/:kind/:id',
    {
      schema: {
        summary: "An order's detail: status transitions with causes, transactions with confirmations, notifications with each attempt's response code",
        tags,
        security,
        params: OrderParams,
      },
    },
    async (request) => ok({ order: await merchant.order(requireDashboardSession(request), request.params.kind, request.params.id) }),
  );

  app.post<{ Params: Static<typeof OrderParams>; Body: Static<typeof RedeliverBody> }>(
    '/dashboard/orders/:kind/:id/redeliver',
    { schema: { summary: 'Send a notification of the order again (same event id)', tags, security, params: OrderParams, body: RedeliverBody, response: { 200: Type.Object(Envelope) } } },
    async (request) => {
      await merchant.redeliver(requireDashboardSession(request), request.params.kind, request.params.id, request.body.event_id);
      return ok();
    },
  );

  app.get('/dashboard/logins', { schema: { summary: "The profile's login history (codes sent, logins, refusals, logouts), newest first", tags, security } }, async (request) =>
    ok({ logins: await merchant.loginHistory(requireDashboardSession(request)) }),
  );
}
