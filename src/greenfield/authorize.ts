// GET /api-keys/authorize: BTCPay's key-authorization flow for satgate. An application (the WooCommerce plugin's
// "Generate API key" button) sends the merchant here with the permissions it wants and a redirect; the merchant
// signs in with the dashboard's e-mail code (a session cookie scoped to /api-keys/), picks one of their stores,
// and approves: the page then posts `apiKey`, `userId` and `permissions[]` to the redirect, form-encoded, as
// BTCPay does. Refusing creates and sends nothing. Every POST needs the same origin, and the consent step a
// CSRF token bound to the session.
import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { isRefusal, type DomainError } from '../core/domain-errors.ts';
import { constantTimeEqual } from '../security/tokens.ts';
import { RateLimitedError } from '../security/rate-limiter.ts';
import { safeHttpUrl } from '../pages/html.ts';
import { PAGE_SECURITY_HEADERS } from '../pages/page-headers.ts';
import { sameOrigin as consoleSameOrigin } from '../console/console-security.ts';
import type { Dashboard } from '../dashboard/dashboard.ts';
import type { GreenfieldKeys } from './api-keys.ts';
import { isKnownPolicy, parsePermission } from './permissions.ts';
import type { Teams } from '../teams/teams.ts';
import { GREENFIELD_ACTIONS, may, mayGrant } from '../teams/permissions.ts';
import { noteDetail, noteMember } from '../teams/audit.ts';
import { noticeOwners } from '../teams/team-notices.ts';
import {
  badRequestPage,
  codeStep,
  consentStep,
  emailStep,
  handOffStep,
  HAND_OFF_SCRIPT,
  refusedStep,
  shownKeyStep,
  type AuthorizeRequest,
} from './authorize-page.ts';

/** The session cookie of this page (holds the dashboard session token, like the console's). */
export const AUTHORIZE_COOKIE = 'satgate_gf_authorize';
const COOKIE_PATH = '/api-keys/';
const SESSION_SECONDS = 30 * 60;
const TAGS = ['Greenfield'];

/** What the page needs. */
export interface AuthorizeDeps {
  dashboard: Dashboard;
  keys: GreenfieldKeys;
  /** Store teams: the signed-in member's role must allow managing keys and every permission granted. */
  teams: Pick<Teams, 'role' | 'consoleUrl'>;
  publicUrl: string;
  /** Key for the CSRF tokens (derived from the master key). */
  csrfKey: Buffer;
}

type Fields = Record<string, string | string[] | undefined>;

/** The request's fields (query or form) as an AuthorizeRequest, or the reason it cannot be served. */
export function readAuthorizeRequest(f: Fields): AuthorizeRequest | string {
  const one = (name: string): string | null => {
    const v = f[name];
    const s = Array.isArray(v) ? v[0] : v;
    return s === undefined || s === '' ? null : s;
  };
  const many = (name: string): string[] => {
    const v = f[name] ?? f[`${name}[]`];
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  };
  const redirectRaw = one('redirect');
  const redirect = redirectRaw === null ? null : safeHttpUrl(redirectRaw);
  if (redirectRaw !== null && redirect === null) return 'The redirect must be an http or https URL.';
  const permissions = [...new Set(many('permissions'))];
  if (permissions.length === 0) return 'The application asked for no permissions.';
  if (permissions.some((p) => p.length > 200) || permissions.length > 50) return 'The permissions asked for are not valid.';
  const name = one('applicationName') ?? 'An application';
  const id = one('applicationIdentifier');
  return {
    applicationName: name.slice(0, 100),
    applicationIdentifier: id === null ? null : id.slice(0, 100),
    redirect,
    permissions,
    strict: one('strict') !== 'false',
    selectiveStores: one('selectiveStores') === 'true',
  };
}

/** A rate-limit refusal (per IP, or an e-mail's wrong-code wait or lockout) is answered 429 with Retry-After, as on the API. */
function limited(reply: FastifyReply, err: DomainError): FastifyReply | null {
  return err instanceof RateLimitedError ? reply.status(429).header('retry-after', String(err.retryAfterSeconds)) : null;
}

/** The page's CSP: like the hosted pages, but forms may post here and to the application's redirect origin. */
function headers(reply: FastifyReply, redirect: string | null): FastifyReply {
  const formAction = ["'self'", ...(redirect ? [new URL(redirect).origin] : [])].join(' ');
  for (const [k, v] of Object.entries(PAGE_SECURITY_HEADERS)) {
    reply.header(k, k === 'content-security-policy' ? v.replace(/form-action [^;]*/, `form-action ${formAction}`) : v);
  }
  return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
}

function cookieOf(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === AUTHORIZE_COOKIE) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** The key-authorization routes. */
export async function authorizeRoutes(app: FastifyInstance, deps: AuthorizeDeps): Promise<void> {
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  const secure = deps.publicUrl.startsWith('https:');
  const csrfFor = (token: string) => createHmac('sha256', deps.csrfKey).update(token).digest('base64url');
  const setCookie = (reply: FastifyReply, token: string, seconds: number) =>
    reply.header('set-cookie', `${AUTHORIZE_COOKIE}=${token}; Path=${COOKIE_PATH}; Max-Age=${seconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`);

  // A POST must say it comes from this page (Origin, else Referer), exactly as the console's forms must: a
  // browser always sends one of them on a POST, so a request with neither is not from this page.
  const sameOrigin = (request: FastifyRequest): boolean => consoleSameOrigin(request, deps.publicUrl);

  const session = async (request: FastifyRequest) => {
    const token = cookieOf(request);
    if (token === null) return null;
    const check = await deps.dashboard.sessions.verify(token);
    return check.ok ? check.session : null;
  };

  const consent = async (reply: FastifyReply, req: AuthorizeRequest, s: { profileId: bigint; email: string; token: string }) => {
    const wallets = await deps.dashboard.profileWallets(s.profileId);
    const stores = wallets.map((w) => ({ id: w.api_id, name: w.account_name ?? w.api_id }));
    const unknown = req.permissions.filter((p) => !isKnownPolicy(parsePermission(p).policy));
    return headers(reply, req.redirect).send(consentStep(req, s.email, stores, csrfFor(s.token), unknown));
  };

  app.get('/api-keys/authorize.js', { schema: { hide: true } }, async (_request, reply) =>
    headers(reply, null).type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(HAND_OFF_SCRIPT),
  );

  app.get<{ Querystring: Fields }>(
    '/api-keys/authorize',
    { schema: { summary: 'Key authorization page: a signed-in merchant grants an application a Greenfield key for one store', tags: TAGS } },
    async (request, reply) => {
      const req = readAuthorizeRequest(request.query);
      if (typeof req === 'string') return headers(reply.status(400), null).send(badRequestPage(req));
      const s = await session(request);
      if (!s) return headers(reply, req.redirect).send(emailStep(req, null));
      return consent(reply, req, s);
    },
  );

  app.post<{ Body: Fields }>('/api-keys/authorize/code', { schema: { hide: true } }, async (request, reply) => {
    const body = request.body ?? {};
    const req = readAuthorizeRequest(body);
    if (typeof req === 'string' || !sameOrigin(request)) return headers(reply.status(400), null).send(badRequestPage(typeof req === 'string' ? req : 'Forms must come from this page.'));
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    try {
      await deps.dashboard.sendOtp({ email }, request.ip);
    } catch (err) {
      if (isRefusal(err)) return headers(limited(reply, err) ?? reply.status(400), req.redirect).send(emailStep(req, err.message));
      throw err;
    }
    return headers(reply, req.redirect).send(codeStep(req, email, null));
  });

  app.post<{ Body: Fields }>('/api-keys/authorize/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const body = request.body ?? {};
    const req = readAuthorizeRequest(body);
    if (typeof req === 'string' || !sameOrigin(request)) return headers(reply.status(400), null).send(badRequestPage(typeof req === 'string' ? req : 'Forms must come from this page.'));
    const email = typeof body.email === 'string' ? body.email : '';
    const otp = typeof body.otp === 'string' ? body.otp : '';
    let token: string;
    try {
      ({ token } = await deps.dashboard.checkOtp({ email, otp, expiration: SESSION_SECONDS }, request.ip));
    } catch (err) {
      if (isRefusal(err)) return headers(limited(reply, err) ?? reply.status(401), req.redirect).send(codeStep(req, email, err.message));
      throw err;
    }
    setCookie(reply, token, SESSION_SECONDS);
    const check = await deps.dashboard.sessions.verify(token);
    if (!check.ok) return headers(reply.status(401), req.redirect).send(emailStep(req, 'The session could not be opened; try again.'));
    return consent(reply, req, check.session);
  });

  app.post<{ Body: Fields }>('/api-keys/authorize/decide', { schema: { hide: true } }, async (request, reply) => {
    const body = request.body ?? {};
    const req = readAuthorizeRequest(body);
    if (typeof req === 'string' || !sameOrigin(request)) return headers(reply.status(400), null).send(badRequestPage(typeof req === 'string' ? req : 'Forms must come from this page.'));
    const s = await session(request);
    if (!s) return headers(reply.status(401), req.redirect).send(emailStep(req, 'Your sign-in has ended; sign in again.'));
    const csrf = typeof body.csrf === 'string' ? body.csrf : '';
    if (!constantTimeEqual(csrf, csrfFor(s.token))) return headers(reply.status(403), null).send(badRequestPage('This form has expired; open the authorization link again.'));
    if (body.decision !== 'approve') return headers(reply, req.redirect).send(refusedStep(req));

    const storeId = typeof body.storeId === 'string' ? body.storeId : '';
    const wallet = (await deps.dashboard.profileWallets(s.profileId)).find((w) => w.api_id === storeId);
    if (!wallet) return headers(reply.status(403), null).send(badRequestPage('That store is not one of yours.'));
    // Only policies satgate knows are granted; a permission scoped to another store is not.
    const granted = req.permissions
      .map(parsePermission)
      .filter((p) => isKnownPolicy(p.policy) && (p.storeId === null || p.storeId === storeId))
      .map((p) => p.policy);
    if (granted.length === 0) return headers(reply.status(400), null).send(badRequestPage('None of the permissions asked for exist on satgate.'));
    // Store teams: a member creates keys only with their role's permissions (src/teams/permissions.ts).
    const role = await deps.teams.role(s.profileId, storeId);
    if (role === null || !may(role, 'manage_keys')) return headers(reply.status(403), null).send(badRequestPage('Refused: your role in this store does not allow creating API keys.'));
    const beyond = granted.filter((p) => !mayGrant(role, p));
    if (beyond.length > 0) return headers(reply.status(403), null).send(badRequestPage(`Refused: your role (${role}) does not allow granting ${beyond.join(', ')}.`));
    const userId = `profile-${s.profileId}`;
    // A key that can refund or withdraw is told to the wallet's Owners, in the key's own transaction.
    const movesMoney = granted.some((p) => (GREENFIELD_ACTIONS[p] ?? []).some((a) => a === 'refund' || a === 'spend'));
    const created = await deps.keys.create({ walletId: wallet.id, storeId }, granted, `${req.applicationName} (authorized by ${s.email})`.slice(0, 200), userId, async (trx, key) => {
      if (!movesMoney) return;
      const notice = { kind: 'money_key_created' as const, by: s.email, key_id: key.keyId, policies: granted };
      await noticeOwners(trx, { id: wallet.id, api_id: storeId }, notice, deps.teams.consoleUrl(), key.now);
    });
    noteMember(request, s.profileId, storeId);
    noteDetail(request, `API key ${created.keyId}: ${granted.join(', ')}`);
    if (req.redirect === null) return headers(reply, null).send(shownKeyStep(req, created.apiKey, storeId));
    return headers(reply, req.redirect).send(handOffStep(req, req.redirect, { apiKey: created.apiKey, userId, permissions: created.permissions }));
  });
}
