// HTTP routes of refunds: operations 24 and 25, the dashboard's refund list, PSBT and signed-transaction
// operations, and the payer's page /refund/:token. Thin: everything is in the refunds factory.
import { teamGuard } from '../dashboard/team-guard.ts';
import type { Merchant } from '../dashboard/merchant.ts';
import type { Teams } from '../teams/teams.ts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import { DomainError } from '../core/domain-errors.ts';
import { ok } from '../http/envelope.ts';
import { dashboardAuth, requireDashboardSession } from '../http/dashboard-auth.ts';
import type { SessionVerifier } from '../dashboard/sessions.ts';
import { PAGE_SECURITY_HEADERS } from '../pages/page-headers.ts';
import { loadPageAssets } from '../pages/page-assets.ts';
import { renderRefundPage, renderRefundNotFound } from '../pages/refund-page.ts';
import { requestLanguage, requestMessages } from '../pages/request-language.ts';
import type { Refunds } from './refunds.ts';

/** What the refund routes need. */
export interface RefundRoutesContext {
  refunds: Refunds;
  dashboard: { sessions: SessionVerifier };
  /** Store teams: the member's role must allow refunding and spending (src/teams/route-actions.ts). */
  teams: Teams;
  merchant: Pick<Merchant, 'order'>;
}

// Field types are checked by the domain code (typeof), so a number is refused rather than coerced.
const Any = (description: string) => Type.Unknown({ description });
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Registers the refund routes. */
export async function refundRoutes(app: FastifyInstance, ctx: RefundRoutesContext): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('preValidation', dashboardAuth(scope, ctx.dashboard.sessions));
    // Before the schemas: a role that may not refund or spend is refused whatever it sent (never a 400 telling it more).
    scope.addHook('preValidation', teamGuard(ctx.teams, ctx.merchant));

    scope.post<{ Body: { tx_id?: unknown; refund_amount?: unknown } }>(
      '/refund_request',
      {
        schema: {
          summary: 'Ask for a refund of a payment received by one of your wallets',
          tags: ['dashboard'],
          body: Type.Object({
            auth_token: Type.Optional(Type.String({ description: 'session token from /check_otp (or the Authorization header)' })),
            tx_id: Any('transaction id of the payment to refund'),
            refund_amount: Any('amount to refund in BTC, as a decimal string'),
          }),
        },
      },
      async (request) => {
        const session = requireDashboardSession(request);
        const key = request.headers['idempotency-key'];
        if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
          throw new DomainError('invalid', 'Wrong or missing argument: Idempotency-Key must be 1 to 255 visible ASCII characters, given once');
        }
        const refund = await ctx.refunds.request(session.profileId, { tx_id: request.body.tx_id, refund_amount: request.body.refund_amount }, key);
        return ok({ refund });
      },
    );

    scope.get('/refunds', { schema: { summary: "The profile's refunds with status and confirmations", tags: ['dashboard'] } }, async (request) =>
      ok({ refunds: await ctx.refunds.list(requireDashboardSession(request).profileId) }),
    );

    scope.get<{ Querystring: { api_id?: unknown } }>(
      '/refunds/psbt',
      { schema: { summary: 'Unsigned PSBT paying every scheduled refund of a watch-only wallet', tags: ['dashboard'], querystring: Type.Object({ api_id: Any('API ID of the wallet') }) } },
      async (request) => ok(await ctx.refunds.psbt(requireDashboardSession(request).profileId, request.query.api_id)),
    );

    scope.post<{ Body: { api_id?: unknown; psbt?: unknown; tx?: unknown } }>(
      '/refunds/signed',
      {
        schema: {
          summary: 'Post the signed refund transaction (PSBT or raw) of a watch-only wallet; it is checked and broadcast',
          tags: ['dashboard'],
          body: Type.Object({ api_id: Any('API ID of the wallet'), psbt: Type.Optional(Any('signed PSBT, base64 or hex; for a multisig wallet the cosigners\' partially signed PSBTs, as a list or one text separated by white space')), tx: Type.Optional(Any('signed raw transaction, hex')) }),
        },
      },
      async (request) => {
        const session = requireDashboardSession(request);
        const signed = request.body.psbt ?? request.body.tx;
        return ok(await ctx.refunds.submitSigned(session.profileId, request.body.api_id, signed));
      },
    );
  });

  // Op 25 needs no session: the refund form token is the payer's credential (INTERFACE.md 5 item 5 leaves it open).
  app.post<{ Body: { refund_form_token?: unknown; refund_addr?: unknown } }>(
    '/set_refund_addr',
    {
      schema: {
        summary: 'Set the address a refund is sent to, once',
        tags: ['wallet API'],
        body: Type.Object({ refund_form_token: Any('token from the refund form URL'), refund_addr: Any('bitcoin address of the wallet network') }),
      },
    },
    // The refund page posts here: the payer's later mail speaks the language that page was shown in.
    async (request) => ok({ refund: await ctx.refunds.setAddress(request.body.refund_form_token, request.body.refund_addr, (merchantDefault) => requestLanguage(request, merchantDefault)) }),
  );

  const assets = loadPageAssets();
  app.get<{ Params: { token: string } }>(
    '/refund/:token',
    // The token is the payer's credential (stored only hashed): the log shows it redacted.
    { config: { secretParams: ['token'] }, schema: { summary: 'Refund page (HTML): the payer enters the address to refund to', tags: ['pages'] } },
    async (request, reply) => {
      secure(reply).header('cache-control', 'no-store').type('text/html; charset=utf-8');
      const messages = requestMessages(request, reply, await ctx.refunds.merchantLanguage(request.params.token));
      const view = await ctx.refunds.view(request.params.token);
      if (!view) return reply.status(404).send(renderRefundNotFound(assets.urls, messages));
      return reply.send(renderRefundPage(request.params.token, view, assets.urls, messages));
    },
  );
}

function secure(reply: FastifyReply): FastifyReply {
  return reply.headers(PAGE_SECURITY_HEADERS);
}
