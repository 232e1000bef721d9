import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { docsPageOptions } from './docs-page.ts';
import type { AppContext } from './context.ts';
import { VERSION } from '../core/version.ts';
import { clientErrorHandler, ErrorFaces, expectationFailedHandler, frameworkErrorHandler, installErrorHandling } from '../http/error-handler.ts';
import { refuseMissingHost } from '../http/host-header.ts';
import { okOnly } from '../http/health.ts';
import { fromThisMachine } from '../http/this-machine.ts';
import { refuseNulCharacters } from '../http/no-nul.ts';
import { REDACT_PATHS, createLogRedaction, type LogRedaction } from '../http/log-redaction.ts';
import { walletRoutes } from '../wallets/routes.ts';
import { metricsRoutes } from './metrics.ts';
import { rateRoutes } from '../rates/routes.ts';
import type { DevChain } from '../devchain/dev-chain.ts';
import { paymentRoutes } from '../payments/routes.ts';
import { pageRoutes } from '../pages/routes.ts';
import { refundRoutes } from '../refunds/routes.ts';
import { formRoutes } from '../forms/routes.ts';
import { buttonRoutes } from '../buttons/routes.ts';
import { posRoutes } from '../pos/routes.ts';
import { paymentRequestRoutes } from '../payment-requests/routes.ts';
import { dashboardRoutes } from '../dashboard/routes.ts';
import { merchantRoutes } from '../dashboard/merchant-routes.ts';
import { reportRoutes } from '../dashboard/report-routes.ts';
import { consoleRoutes } from '../console/routes.ts';
import { memberRoutes } from '../dashboard/member-routes.ts';
import { Teams } from '../teams/teams.ts';
import { auditHook } from '../teams/audit.ts';
import { Invitations } from '../teams/invitations.ts';
import { consolePayouts } from './console-payouts.ts';
import { partnerRoutes } from '../partners/routes.ts';
import { withdrawalRoutes } from '../withdrawals/routes.ts';
import { greenfieldRoutes } from '../greenfield/routes.ts';
import { authorizeRoutes } from '../greenfield/authorize.ts';
import { greenfieldHookRoutes } from '../greenfield/webhook-routes.ts';
import { greenfieldPayoutRoutes, greenfieldPublicPullRoutes } from '../greenfield/payout-routes.ts';

/** Largest JSON body accepted (DESIGN.md section 7). */
export const BODY_LIMIT = 1024 * 1024;

/** Options for the HTTP app; `logger: false` silences request logs (tests), `logStream` redirects them. */
export interface AppOptions {
  logger?: boolean;
  /** Request logs go to this stream instead of stdout (tests read them). */
  logStream?: NodeJS.WritableStream;
  /** Development mode: the built-in chain, whose /dev endpoints are then served. */
  devChain?: DevChain;
  /** The redaction rule to fill from the routes, when the process's own logger uses it too (serve.ts). */
  logRedaction?: LogRedaction;
  /** The server to build on instead of Fastify's own: `satgate start`'s early listener (early-listener.ts). */
  serverFactory?: FastifyServerOptions['serverFactory'];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's one rule for secrets in logged URLs, filled from the routes' `config.secretParams`. */
    logRedaction: LogRedaction;
  }
}

/** Builds the Fastify app around a context; server.ts only starts it, tests `inject` into it. */
export async function buildApp(ctx: AppContext, opts: AppOptions = {}): Promise<FastifyInstance> {
  const redaction = opts.logRedaction ?? createLogRedaction();
  // One face table for every error answer, from the HTTP parser's to the routes' (http/error-faces.ts).
  const faces = new ErrorFaces(ctx.config.publicUrl);
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    // Extended keys, output descriptors (a 2-of-3 with key origins is about 460 characters) and payment references
    // travel in paths; the default limit of 100 would cut them. Longer is refused as a malformed URL (strict-input
    // tests); a wallet whose descriptor is longer is named in paths by the text it was registered with, if shorter.
    routerOptions: { maxParamLength: 500 },
    logger:
      opts.logger === false
        ? false
        : {
            level: ctx.config.logLevel,
            ...(opts.logStream ? { stream: opts.logStream } : {}),
            redact: { paths: REDACT_PATHS, censor: '[redacted]' },
            serializers: {
              req: (req) => ({ method: req.method, url: redaction.redactUrl(req.url), remoteAddress: req.ip }),
            },
            // The last look at every line: a URL quoted in a message or an error (not only req.url) is redacted too.
            hooks: { streamWrite: redaction.redactText },
          },
    // Strict input: a wrong type is an error, never coerced (["x"] is not "x", "0x10" is not 16).
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
    frameworkErrors: frameworkErrorHandler(faces),
    clientErrorHandler: clientErrorHandler(faces),
    // Node would answer a request without Host with a bare 400; refuseMissingHost answers it in the face's shape.
    http: { requireHostHeader: false },
    forceCloseConnections: true,
    // Only the configured proxies may name the client (X-Forwarded-For): per-IP limits depend on request.ip.
    trustProxy: ctx.config.trustProxy.length > 0 ? ctx.config.trustProxy : false,
    return503OnClosing: true,
    ...(opts.serverFactory ? { serverFactory: opts.serverFactory } : {}),
  });
  // Before any route: every route's secret path parameters must be known to the logger.
  app.addHook('onRoute', redaction.onRoute);
  app.decorate('logRedaction', redaction);
  installErrorHandling(app, { publicUrl: ctx.config.publicUrl, faces });
  app.server.on('checkExpectation', expectationFailedHandler(faces));
  refuseMissingHost(app);
  // Bodies are JSON (and forms for the OAuth token endpoint): a text/plain body is an unsupported media type,
  // not a string for the schema to puzzle over.
  app.removeContentTypeParser('text/plain');
  refuseNulCharacters(app);
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'satgate',
        version: VERSION,
        description: 'Self-hosted Bitcoin payment service: the wallet API at the root and payment API v1 under /api/v1/payment.',
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'an access token from POST /oauth/token (client credentials)' },
          greenfieldToken: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'a Greenfield API key (`satgate greenfield key create`), as "token <key>" or "Bearer <key>"',
          },
          dashboardToken: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'the token from POST /check_otp, bare or as "Bearer <token>" (refund_request and get_accounts also take auth_token in the body)',
          },
        },
      },
    },
  });
  await app.register(swaggerUi, docsPageOptions());

  const trustsProxy = ctx.config.trustProxy.length > 0;
  app.get(
    '/health',
    { schema: { summary: "Liveness and each component's ok; the details (chain source, errors) only to a request from this machine", tags: ['operations'] } },
    async (request, reply) => {
      const { healthy, degraded, components } = await ctx.health.run();
      const status = !healthy ? 'unhealthy' : degraded ? 'degraded' : 'ok';
      // The details name the node's host and port, paths and error texts: the operator's, not the internet's.
      const shown = fromThisMachine(request, trustsProxy) ? components : okOnly(components);
      return reply.status(healthy ? 200 : 503).send({ status, version: VERSION, ...shown });
    },
  );

  await metricsRoutes(app, ctx);
  // SATGATE_ROLE=worker: a background process that answers only /health and /metrics (and /docs).
  if (ctx.config.role === 'worker') return app;
  // Store teams' audit trail: every state-changing route that succeeded, before its answer leaves (src/teams/audit.ts).
  app.addHook('onSend', auditHook(ctx.db.kysely, ctx.clock));
  await app.register(async (scope) => walletRoutes(scope, ctx.wallets));
  await app.register(async (scope) => paymentRoutes(scope, ctx.payments));
  await app.register(async (scope) => pageRoutes(scope, ctx));
  await app.register(async (scope) => formRoutes(scope, ctx));
  await app.register(async (scope) => buttonRoutes(scope, ctx));
  await app.register(async (scope) => paymentRequestRoutes(scope, ctx.paymentRequests));
  await app.register(async (scope) => posRoutes(scope, ctx.pos));
  await app.register(async (scope) => rateRoutes(scope, ctx));
  await app.register(async (scope) => dashboardRoutes(scope, ctx.dashboard));
  const teams = new Teams(ctx.db, ctx.clock, ctx.config.publicUrl);
  const invitations = new Invitations({ db: ctx.db, clock: ctx.clock, masterKey: ctx.masterKey, publicUrl: ctx.config.publicUrl });
  await app.register(async (scope) => refundRoutes(scope, { ...ctx, teams }));
  await app.register(async (scope) => merchantRoutes(scope, { merchant: ctx.merchant, sessions: ctx.dashboard.sessions, teams }));
  await app.register(async (scope) => reportRoutes(scope, { merchant: ctx.merchant, sessions: ctx.dashboard.sessions, teams }));
  await app.register(async (scope) => memberRoutes(scope, { merchant: ctx.merchant, sessions: ctx.dashboard.sessions, teams, invitations }));
  await app.register(async (scope) => consoleRoutes(scope, { ...ctx, teams, invitations, payouts: consolePayouts(ctx.greenfieldHooks.payoutPsbts) }));
  await app.register(async (scope) => partnerRoutes(scope, ctx.partners));
  await app.register(async (scope) => withdrawalRoutes(scope, { wallets: ctx.partners.wallets, withdrawals: ctx.withdrawals.withdrawals, onConfirmed: ctx.withdrawals.kick }));
  await app.register(async (scope) => greenfieldRoutes(scope, ctx.greenfield));
  await app.register(async (scope) =>
    authorizeRoutes(scope, {
      dashboard: ctx.dashboard,
      keys: ctx.greenfield.keys,
      teams,
      publicUrl: ctx.config.publicUrl,
      csrfKey: ctx.masterKey.deriveKey('greenfield-authorize-csrf'),
    }),
  );
  await app.register(async (scope) => greenfieldHookRoutes(scope, { keys: ctx.greenfield.keys, hooks: ctx.greenfieldHooks }));
  await app.register(async (scope) => greenfieldPayoutRoutes(scope, { keys: ctx.greenfield.keys, payouts: ctx.greenfieldHooks.payouts, psbts: ctx.greenfieldHooks.payoutPsbts }));
  await app.register(async (scope) => greenfieldPublicPullRoutes(scope, { payouts: ctx.greenfieldHooks.payouts }));
  const devChain = opts.devChain;
  if (devChain) {
    const { devRoutes } = await import('./dev-routes.ts');
    await app.register(async (scope) => devRoutes(scope, ctx, devChain));
  }
  return app;
}
