// The merchant console at /console/ (issue 15, DESIGN.md section 9 "merchant console"): server-rendered pages
// over the same services the dashboard API routes call (dashboard, merchant views, refunds), a session cookie
// instead of the Authorization header, and for every POST a same-origin check plus the session's CSRF token.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { DomainError, RateLimitedError } from '../core/domain-errors.ts';
import type { Config } from '../config/config.ts';
import type { MasterKey } from '../security/master-key.ts';
import type { Dashboard } from '../dashboard/dashboard.ts';
import type { DashboardSession } from '../dashboard/sessions.ts';
import { DEFAULT_SESSION_SECONDS } from '../dashboard/sessions.ts';
import type { Merchant } from '../dashboard/merchant.ts';
import type { Refunds } from '../refunds/refunds.ts';
import type { Buttons } from '../buttons/buttons.ts';
import type { Pos } from '../pos/pos.ts';
import { posPages } from './pos-pages.ts';
import { renderButtons } from './views/buttons.ts';
import type { CurrencyCatalog } from '../rates/currency-catalog.ts';
import { CONSOLE_HEADERS } from './console-headers.ts';
import { consoleFace, messageOf, refusalStatus } from './error-page.ts';
import { refusal } from '../teams/permissions.ts';
import { CONSOLE_ASSET_PREFIX, loadConsoleAssets } from './console-assets.ts';
import { clearedCookieHeader, CSRF_FIELD, CsrfTokens, overHttps, sameOrigin, sessionCookie, sessionCookieHeader } from './console-security.ts';
import { consolePage, when, type Shell } from './views/layout.ts';
import { renderCodeStep, renderEmailStep } from './views/login.ts';
import { addedMessage, echoable, signInMessage, walletFormMessage } from './console-copy.ts';
import { renderWallet, renderWallets } from './views/wallets.ts';
import { orderPath, renderOrderDetail, renderOrders, type ListFilters } from './views/orders.ts';
import { renderRefunds } from './views/refunds.ts';
import { renderProfile } from './views/profile.ts';
import { reportPages } from './report-pages.ts';
import { requestPages } from './request-pages.ts';
import { payoutPages, type ConsolePayouts } from './payout-pages.ts';
import type { PaymentRequests } from '../payment-requests/payment-requests.ts';
import type { WalletRepository } from '../wallets/wallet-repository.ts';
import type { Teams } from '../teams/teams.ts';
import type { Can } from '../teams/visibility.ts';
import { memberPages } from './member-pages.ts';
import { auditPages } from './audit-pages.ts';
import type { Invitations } from '../teams/invitations.ts';
import { acceptAfterSignIn, invitationCookieHeader, invitationLinkPage, invitationSessionPages } from './invitation-pages.ts';

/** What the console needs from the app context. */
export interface ConsoleContext {
  config: Pick<Config, 'publicUrl' | 'explorerUrls'>;
  masterKey: MasterKey;
  dashboard: Pick<Dashboard, 'sessions' | 'sendOtp' | 'openCodeUntil' | 'checkOtp' | 'getProfile' | 'updateProfile' | 'logout'>;
  merchant: Merchant;
  refunds: Pick<Refunds, 'request' | 'list' | 'psbt' | 'submitSigned'>;
  /** The local currencies a wallet may have: offered in the forms and named when one is refused. */
  currencies: Pick<CurrencyCatalog, 'list'>;
  buttons: Buttons;
  /** Payment requests (created and listed on the Requests page) and the wallet rows they are made for. */
  paymentRequests: PaymentRequests;
  /** Point of sale apps (defined and listed on the Point of sale page). */
  pos: Pick<Pos, 'apps'>;
  wallets: { repo: WalletRepository };
  /** Watch-only wallets' approved Greenfield payouts, paid by a PSBT (the Payouts page). */
  payouts: ConsolePayouts;
  /** Store teams: every signed-in route is judged by the member's role (src/teams/route-actions.ts). */
  teams: Teams;
  /** Invitations to a wallet's team by e-mail link (Members page; accepted after sign-in by code). */
  invitations: Invitations;
}

/** Sessions asked for with "keep me signed in". */
const REMEMBER_SECONDS = 7 * 86_400;

declare module 'fastify' {
  interface FastifyRequest {
    /** The console's signed-in merchant (set by the console's session hook). */
    consoleSession: DashboardSession | null;
    /** What the signed-in member's roles allow, for the pages to offer only that (the guard refuses the rest). */
    consoleCan: Can | null;
  }
}

type Form = Record<string, unknown>;

/** One text field of a posted form; a repeated field is refused rather than guessed at. */
function field(body: unknown, name: string): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const v = (body as Form)[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new DomainError('invalid', `Wrong or missing argument: ${name} must be given once`);
  return v;
}

const OK_MESSAGES: Record<string, string> = {
  wallet_saved: 'Wallet settings saved.',
  profile_saved: 'Profile saved.',
  redelivered: 'The notification is queued again and leaves within seconds.',
  broadcast: 'Signed refund transaction checked and broadcast.',
  payouts_broadcast: 'Signed payout transaction checked and broadcast.',
  button_created: 'Pay button created: paste its HTML into your page.',
  members_saved: 'Members saved.',
  invited: 'Invitation sent: the link in the mail works once, for 7 days.',
  invitation_revoked: 'Invitation withdrawn: its link no longer works.',
  joined: 'You joined the wallet: it is listed below.',
};

/** Registers the console. */
export async function consoleRoutes(app: FastifyInstance, ctx: ConsoleContext): Promise<void> {
  const assets = loadConsoleAssets();
  const csrf = new CsrfTokens(ctx.masterKey.deriveKey('console-csrf'));
  const { publicUrl } = ctx.config;
  await app.register(formbody, { bodyLimit: 512 * 1024 });
  app.decorateRequest('consoleSession', null);
  app.decorateRequest('consoleCan', null);

  const secure = (reply: FastifyReply) => reply.headers(CONSOLE_HEADERS).header('cache-control', 'no-store');
  const html = (reply: FastifyReply, status: number, page: string) => secure(reply).status(status).type('text/html; charset=utf-8').send(page);
  const base = (request: FastifyRequest, okKey?: unknown, saved?: unknown): Omit<Shell, 'title' | 'section'> => {
    const s = request.consoleSession!;
    const text = typeof okKey === 'string' ? (OK_MESSAGES[okKey] ?? addedMessage(okKey, typeof saved === 'string' ? saved.split(' ') : [])) : undefined;
    return { assets: assets.urls, user: { email: s.email, csrf: csrf.forSession(s.token), ...(request.consoleCan ? { can: request.consoleCan } : {}) }, flash: text ? { kind: 'ok', text } : null };
  };
  const withError = (b: Omit<Shell, 'title' | 'section'>, err: unknown, text = messageOf(err)) => ({ ...b, flash: { kind: 'error' as const, text } });
  const currencies = () => ctx.currencies.list();
  /** A refusal caught by a route: its status (the page then shows its message); anything else is thrown on. */
  const refused = (err: unknown): number => {
    const status = refusalStatus(err);
    if (status === null) throw err;
    return status;
  };

  // Pages answer errors as pages, never as the API's JSON envelope (console/error-page.ts).
  app.errorFaces.use(
    'console',
    consoleFace(app.errorFaces.wallet, (request, reply, status, title, text) => {
      const user = request.consoleSession
        ? { email: request.consoleSession.email, csrf: csrf.forSession(request.consoleSession.token), ...(request.consoleCan ? { can: request.consoleCan } : {}) }
        : null;
      return html(reply, status, consolePage({ title, assets: assets.urls, user, section: 'none', flash: { kind: 'error', text } }, '<p><a href="/console/">Back to the console</a></p>'));
    }),
  );

  app.get<{ Params: { file: string } }>(`${CONSOLE_ASSET_PREFIX}:file`, { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.files.get(request.params.file);
    reply.headers(CONSOLE_HEADERS);
    if (!asset) return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
    reply.header('etag', asset.etag).header('cache-control', 'public, max-age=86400');
    if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
    return reply.type(asset.contentType).send(asset.body);
  });

  // Every POST: a same-origin request (before anything else is read or done).
  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST') return;
    if (!sameOrigin(request, publicUrl)) {
      request.log.warn({ origin: request.headers.origin ?? null, site: request.headers['sec-fetch-site'] ?? null }, 'console refused a cross-origin POST');
      return html(reply, 403, consolePage({ title: 'Refused', assets: assets.urls, user: null, section: 'none', flash: { kind: 'error', text: 'This request did not come from the console page; it was refused.' } }, ''));
    }
  });

  const cookieSecure = (request: FastifyRequest) => overHttps(request, publicUrl);

  // ---- Signing in (no session yet) ----
  app.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/', 308));
  app.get('/console/', { schema: { summary: 'Merchant console (HTML): the wallets page, or sign-in', tags: ['pages'] } }, async (request, reply) => {
    const token = sessionCookie(request);
    const check = token ? await ctx.dashboard.sessions.verify(token) : null;
    return secure(reply).redirect(check?.ok ? '/console/wallets' : '/console/login', 303);
  });
  app.get('/console/login', { schema: { summary: 'Console sign-in (HTML)', tags: ['pages'] } }, async (_request, reply) => html(reply, 200, renderEmailStep(assets.urls)));
  app.post('/console/login', { schema: { hide: true } }, async (request, reply) => {
    const email = field(request.body, 'email') ?? '';
    try {
      await ctx.dashboard.sendOtp({ email }, request.ip);
    } catch (err) {
      if (err instanceof RateLimitedError) {
        reply.header('retry-after', String(err.retryAfterSeconds));
        // No new code yet, but the last one may still work: offer its form rather than a dead end.
        const until = await ctx.dashboard.openCodeUntil(email).catch(() => null);
        if (until !== null) {
          const text = `No new code was sent: we send at most one code a minute to an address. The last code we sent you is still valid until ${when(until)}: type it below. You can ask for a new code in ${err.retryAfterSeconds} s.`;
          return html(reply, 429, renderCodeStep(assets.urls, email, { kind: 'ok', text }, until));
        }
      }
      return html(reply, refusalStatus(err) ?? 500, renderEmailStep(assets.urls, { email, flash: { kind: 'error', text: messageOf(err) } }));
    }
    return html(reply, 200, renderCodeStep(assets.urls, email));
  });
  app.post('/console/login/code', { schema: { hide: true } }, async (request, reply) => {
    const email = field(request.body, 'email') ?? '';
    const otp = field(request.body, 'otp') ?? '';
    const seconds = field(request.body, 'remember') === '1' ? REMEMBER_SECONDS : DEFAULT_SESSION_SECONDS;
    let token: string;
    try {
      ({ token } = await ctx.dashboard.checkOtp({ email, otp, expiration: seconds }, request.ip));
    } catch (err) {
      if (err instanceof RateLimitedError) reply.header('retry-after', String(err.retryAfterSeconds));
      const kind = refusalStatus(err) !== null ? (err as DomainError).kind : null;
      // A used-up code needs a new one: back to the e-mail step; a wrong one may be typed again.
      if (kind === 'code-spent' || kind === 'code-not-asked' || kind === 'profile-not-found') {
        return html(reply, 401, renderEmailStep(assets.urls, { email, flash: { kind: 'error', text: signInMessage(err) } }));
      }
      return html(reply, refusalStatus(err) ?? 500, renderCodeStep(assets.urls, email, { kind: 'error', text: signInMessage(err) }));
    }
    const cookies = [sessionCookieHeader(token, seconds, cookieSecure(request))];
    // Signed in by code after opening an invitation link: that is the acceptance (invitation-pages.ts).
    const signedIn = await ctx.dashboard.sessions.verify(token);
    const next = signedIn.ok ? await acceptAfterSignIn(ctx.invitations, request, signedIn.session) : null;
    if (next === '/console/wallets?ok=joined') cookies.push(invitationCookieHeader(null, cookieSecure(request)));
    return secure(reply)
      .header('set-cookie', cookies.length === 1 ? cookies[0] : cookies)
      .redirect(next ?? '/console/wallets', 303);
  });
  invitationLinkPage(app, { invitations: ctx.invitations, assets: assets.urls, html, cookieSecure });

  /** Where the guard finds the wallet of an order or a point of sale (null: not the member's, or unknown). */
  const walletResolvers = (s: DashboardSession) => ({
    order: async (request: FastifyRequest) => {
      const p = request.params as { kind?: string; id?: string };
      return ctx.merchant.order(s, p.kind ?? '', p.id ?? '').then((o) => o.api_id, (err: unknown) => (err instanceof DomainError ? null : Promise.reject(err)));
    },
    pos: async (request: FastifyRequest) => {
      const id = field(request.body, 'pos_id') ?? '';
      return ctx.pos.apps.find(id).then((f) => f.wallet.api_id, (err: unknown) => (err instanceof DomainError ? null : Promise.reject(err)));
    },
  });

  // ---- Everything else needs a session ----
  await app.register(async (scope) => {
    scope.addHook('preHandler', async (request, reply) => {
      const token = sessionCookie(request);
      const check = token ? await ctx.dashboard.sessions.verify(token) : null;
      if (!check?.ok) {
        secure(reply).header('set-cookie', clearedCookieHeader(cookieSecure(request)));
        if (request.url.startsWith('/console/orders.json')) return reply.status(401).send({ return: check ? check.code : '302', status: 'Sign in again' });
        return reply.redirect('/console/login', 303);
      }
      request.consoleSession = check.session;
      if (request.method === 'POST' && !csrf.check(check.session.token, field(request.body, CSRF_FIELD))) {
        request.log.warn('console refused a POST without the session CSRF token');
        return html(reply, 403, consolePage({ title: 'Refused', assets: assets.urls, user: null, section: 'none', flash: { kind: 'error', text: 'The form was out of date or not from this console; reload the page and try again.' } }, ''));
      }
      const verdict = await ctx.teams.judge(request, check.session.profileId, walletResolvers(check.session));
      request.consoleCan = await ctx.teams.can(check.session.profileId);
      if (verdict !== 'allowed') {
        const text = verdict === 'missing' ? 'This page has no entry in the permission table.' : refusal(verdict).message;
        const user = { email: check.session.email, csrf: csrf.forSession(check.session.token), can: request.consoleCan };
        return html(reply, 403, consolePage({ title: 'Refused', assets: assets.urls, user, section: 'none', flash: { kind: 'error', text } }, '<p><a href="/console/">Back to the console</a></p>'));
      }
    });
    const session = (request: FastifyRequest) => request.consoleSession!;

    scope.post('/console/logout', { schema: { hide: true } }, async (request, reply) => {
      await ctx.dashboard.logout(session(request), request.ip);
      return secure(reply).header('set-cookie', clearedCookieHeader(cookieSecure(request))).redirect('/console/login', 303);
    });

    // Wallets
    scope.get<{ Querystring: { ok?: string; saved?: string } }>('/console/wallets', { schema: { summary: 'Console: wallets with balances (HTML)', tags: ['pages'] } }, async (request, reply) =>
      html(reply, 200, renderWallets(base(request, request.query.ok, request.query.saved), await ctx.merchant.wallets(session(request)), {}, currencies())),
    );
    scope.post('/console/wallets', { schema: { hide: true } }, async (request, reply) => {
      const input = {
        pub: field(request.body, 'pub') ?? '',
        test: field(request.body, 'test') === '1',
        local_currency: field(request.body, 'local_currency') ?? '',
        account_name: field(request.body, 'account_name') ?? '',
      };
      let added;
      try {
        added = await ctx.merchant.addWallet(session(request), input, request.ip);
      } catch (err) {
        const status = refused(err);
        const flash = withError(base(request), err, walletFormMessage(err, { pub: input.pub, account_name: input.account_name, local_currency: input.local_currency }, currencies()));
        return html(reply, status, renderWallets(flash, await ctx.merchant.wallets(session(request)), echoable(input, err), currencies()));
      }
      const q = new URLSearchParams({ ok: `wallet_${added.outcome}` });
      if (added.saved.length > 0) q.set('saved', added.saved.join(' '));
      return secure(reply).redirect(`/console/wallets?${q.toString()}`, 303);
    });
    scope.get<{ Params: { api_id: string }; Querystring: { ok?: string } }>('/console/wallets/:api_id', { schema: { hide: true } }, async (request, reply) => {
      const s = session(request);
      const wallet = await ctx.merchant.wallet(s, request.params.api_id);
      return html(reply, 200, renderWallet(base(request, request.query.ok), wallet, await ctx.merchant.receivedPerDay(s, wallet.api_id, 30), currencies()));
    });
    scope.post<{ Params: { api_id: string } }>('/console/wallets/:api_id', { schema: { hide: true } }, async (request, reply) => {
      const s = session(request);
      const settings = {
        account_name: field(request.body, 'account_name'),
        local_currency: field(request.body, 'local_currency'),
        notification_email: field(request.body, 'notification_email'),
        webhook_url: field(request.body, 'webhook_url'),
        default_language: field(request.body, 'default_language'),
      };
      try {
        await ctx.merchant.updateWallet(s, request.params.api_id, settings, request.ip);
      } catch (err) {
        if (err instanceof DomainError && err.kind === 'not-found') throw err;
        const status = refused(err);
        const wallet = await ctx.merchant.wallet(s, request.params.api_id);
        const flash = withError(base(request), err, walletFormMessage(err, settings, currencies()));
        return html(reply, status, renderWallet(flash, wallet, await ctx.merchant.receivedPerDay(s, wallet.api_id, 30), currencies()));
      }
      return secure(reply).redirect(`/console/wallets/${encodeURIComponent(request.params.api_id)}?ok=wallet_saved`, 303);
    });

    // Payments and orders
    const filtersOf = (q: Record<string, unknown>): ListFilters & { page?: number } => {
      const pick = (name: string) => (typeof q[name] === 'string' && q[name] !== '' ? (q[name] as string) : undefined);
      const page = pick('page');
      if (page !== undefined && !/^[1-9][0-9]{0,6}$/.test(page)) throw new DomainError('invalid', 'Wrong or missing argument: page must be a whole number from 1');
      return {
        ...(pick('status') ? { status: pick('status')! } : {}),
        ...(pick('from') ? { from: pick('from')! } : {}),
        ...(pick('to') ? { to: pick('to')! } : {}),
        ...(page ? { page: Number(page) } : {}),
      };
    };
    scope.get<{ Querystring: Record<string, unknown> }>('/console/orders', { schema: { summary: 'Console: payments and orders (HTML)', tags: ['pages'] } }, async (request, reply) => {
      const filters = filtersOf(request.query);
      try {
        return html(reply, 200, renderOrders(base(request), await ctx.merchant.orders(session(request), filters), filters));
      } catch (err) {
        refused(err);
        return html(reply, 400, renderOrders(withError(base(request), err), await ctx.merchant.orders(session(request), {}), {}));
      }
    });
    // The small JSON endpoint console.js polls: the same page of the same list, statuses only.
    scope.get<{ Querystring: Record<string, unknown> }>(
      '/console/orders.json',
      { schema: { summary: "Console: statuses of one page of the payments list (JSON, the console's polling)", tags: ['pages'] } },
      async (request, reply) => {
        const page = await ctx.merchant.orders(session(request), filtersOf(request.query));
        return secure(reply).send({ orders: page.orders.map((o) => ({ kind: o.kind, id: o.id, reference: o.reference, status: o.status })), total: page.total });
      },
    );
    const detail = async (request: FastifyRequest<{ Params: { kind: string; id: string } }>, b: Omit<Shell, 'title' | 'section'>) => {
      const s = session(request);
      const order = await ctx.merchant.order(s, request.params.kind, request.params.id);
      const refunds = (await ctx.refunds.list(s.profileId)).filter((r) => order.transactions.some((t) => t.txid === r.refunded_tx_id));
      return renderOrderDetail(b, order, { explorer: ctx.config.explorerUrls[order.mode], refunds });
    };
    scope.get<{ Params: { kind: string; id: string }; Querystring: { ok?: string } }>('/console/orders/:kind/:id', { schema: { hide: true } }, async (request, reply) =>
      html(reply, 200, await detail(request, base(request, request.query.ok))),
    );
    scope.post<{ Params: { kind: string; id: string } }>('/console/orders/:kind/:id/redeliver', { schema: { hide: true } }, async (request, reply) => {
      await ctx.merchant.redeliver(session(request), request.params.kind, request.params.id, field(request.body, 'event_id') ?? '');
      return secure(reply).redirect(`${orderPath(request.params)}?ok=redelivered`, 303);
    });
    scope.post<{ Params: { kind: string; id: string } }>('/console/orders/:kind/:id/refund', { schema: { hide: true } }, async (request, reply) => {
      const s = session(request);
      // The order must be the merchant's (404 otherwise); the refund service checks the transaction is a credit to their wallet.
      const order = await ctx.merchant.order(s, request.params.kind, request.params.id);
      const txId = field(request.body, 'tx_id');
      if (!order.transactions.some((t) => t.txid === txId)) throw new DomainError('not-found', 'No such transaction in this order');
      try {
        // Each rendered form carries its own idempotency key: reloading the answer page (which re-posts) or a double
        // click answers the same refund instead of requesting a second one.
        const key = field(request.body, 'idempotency_key');
        if (key !== undefined && !/^[\x21-\x7e]{1,255}$/.test(key)) throw new DomainError('invalid', 'Wrong or missing argument: idempotency_key');
        const form = await ctx.refunds.request(s.profileId, { tx_id: txId, refund_amount: field(request.body, 'refund_amount') }, key);
        const flash = { kind: 'ok' as const, text: `Refund requested. The payer enters their address at ${form.refund_form_url} (mailed to them when their e-mail is known).` };
        return html(reply, 200, await detail(request, { ...base(request), flash }));
      } catch (err) {
        return html(reply, refused(err), await detail(request, withError(base(request), err)));
      }
    });

    // Refunds
    scope.get<{ Querystring: { ok?: string } }>('/console/refunds', { schema: { summary: 'Console: refunds (HTML)', tags: ['pages'] } }, async (request, reply) => {
      const s = session(request);
      return html(reply, 200, renderRefunds(base(request, request.query.ok), await ctx.refunds.list(s.profileId), await ctx.merchant.wallets(s)));
    });
    scope.get<{ Querystring: { api_id?: string } }>('/console/refunds/psbt', { schema: { hide: true } }, async (request, reply) => {
      const apiId = typeof request.query.api_id === 'string' ? request.query.api_id : '';
      const { psbt } = await ctx.refunds.psbt(session(request).profileId, apiId);
      const name = `refunds-${apiId.replace(/[^A-Za-z0-9_]/g, '')}.psbt`;
      return secure(reply).header('content-disposition', `attachment; filename="${name}"`).type('application/octet-stream').send(Buffer.from(psbt, 'base64'));
    });
    scope.post('/console/refunds/signed', { schema: { hide: true } }, async (request, reply) => {
      const s = session(request);
      try {
        await ctx.refunds.submitSigned(s.profileId, field(request.body, 'api_id'), (field(request.body, 'signed') ?? '').trim());
      } catch (err) {
        return html(reply, refused(err), renderRefunds(withError(base(request), err), await ctx.refunds.list(s.profileId), await ctx.merchant.wallets(s)));
      }
      return secure(reply).redirect('/console/refunds?ok=broadcast', 303);
    });

    // Pay buttons
    const buttonsPage = async (request: FastifyRequest, b: Omit<Shell, 'title' | 'section'>, echo = {}) => {
      const wallets = await ctx.merchant.wallets(session(request));
      return renderButtons(b, publicUrl, await ctx.buttons.service.list(wallets.map((w) => w.api_id)), wallets, echo);
    };
    scope.get<{ Querystring: { ok?: string } }>('/console/buttons', { schema: { summary: 'Console: pay buttons and their HTML (HTML)', tags: ['pages'] } }, async (request, reply) =>
      html(reply, 200, await buttonsPage(request, base(request, request.query.ok))),
    );
    scope.post('/console/buttons', { schema: { hide: true } }, async (request, reply) => {
      const names = ['api_id', 'label', 'description', 'currency', 'kind', 'amount', 'min_amount', 'max_amount'] as const;
      const input = Object.fromEntries(names.map((n) => [n, field(request.body, n)])) as Record<(typeof names)[number], string | undefined>;
      try {
        // The wallet must be the merchant's (404 otherwise).
        const wallet = await ctx.merchant.wallet(session(request), input.api_id ?? '');
        await ctx.buttons.service.define(wallet.api_id, input);
      } catch (err) {
        const status = refused(err);
        const text = err instanceof DomainError && err.fields?.length ? err.fields.map((f) => `${f.field} ${f.message}`).join('; ') : messageOf(err);
        const echo = Object.fromEntries(Object.entries(input).filter(([, x]) => x !== undefined));
        return html(reply, status, await buttonsPage(request, withError(base(request), err, text), echo));
      }
      return secure(reply).redirect('/console/buttons?ok=button_created', 303);
    });

    reportPages(scope, { merchant: ctx.merchant, session, base: (request) => base(request), html, secure });
    payoutPages(scope, { merchant: ctx.merchant, psbts: ctx.payouts, repo: ctx.wallets.repo, session, base, html, secure, field });
    requestPages(scope, { merchant: ctx.merchant, requests: ctx.paymentRequests, repo: ctx.wallets.repo, publicUrl, session, base: (request) => base(request), html, secure, field });
    memberPages(scope, { merchant: ctx.merchant, teams: ctx.teams, invitations: ctx.invitations, session, base, html, secure, field });
    invitationSessionPages(scope, { invitations: ctx.invitations, assets: assets.urls, secure, html, base: (request) => base(request), session, cookieSecure });
    auditPages(scope, { merchant: ctx.merchant, teams: ctx.teams, session, base: (request) => base(request), html });
    posPages(scope, { merchant: ctx.merchant, pos: ctx.pos.apps, repo: ctx.wallets.repo, publicUrl, session, base: (request) => base(request), html, secure, field });

    // Profile
    const profilePage = async (request: FastifyRequest, b: Omit<Shell, 'title' | 'section'>) => {
      const s = session(request);
      return renderProfile(b, await ctx.dashboard.getProfile(s), await ctx.merchant.loginHistory(s));
    };
    scope.get<{ Querystring: { ok?: string } }>('/console/profile', { schema: { summary: 'Console: profile and sign-in history (HTML)', tags: ['pages'] } }, async (request, reply) =>
      html(reply, 200, await profilePage(request, base(request, request.query.ok))),
    );
    scope.post('/console/profile', { schema: { hide: true } }, async (request, reply) => {
      const fields: Record<string, string> = {};
      for (const name of ['firstname', 'lastname', 'mobile', 'country'] as const) {
        const v = field(request.body, name);
        if (v !== undefined) fields[name] = v;
      }
      try {
        await ctx.dashboard.updateProfile(session(request), fields, request.ip);
      } catch (err) {
        return html(reply, refused(err), await profilePage(request, withError(base(request), err)));
      }
      return secure(reply).redirect('/console/profile?ok=profile_saved', 303);
    });
  });
}
