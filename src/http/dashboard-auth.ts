// Dashboard session authentication (INTERFACE.md 5 item 4, DESIGN.md 9 "dashboard sessions"): one hook
// that finds the token, checks it, and puts the caller on the request. Routes never read the header.
import type { FastifyInstance, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';

/** An authenticated dashboard caller. */
export interface DashboardSession {
  sessionId: bigint;
  profileId: bigint;
  email: string;
  /** The token the caller presented (echoed as `auth_token` by get_accounts and op 23; never stored). */
  token: string;
  expiresAt: number;
}

/** What checking a presented token found: a live session, or the interface code to answer. */
export type SessionCheck = { ok: true; session: DashboardSession } | { ok: false; code: '303' | '304' };

/** Checks presented tokens; `dashboard/sessions.ts` implements it over the sessions table. */
export interface SessionVerifier {
  verify(token: string): Promise<SessionCheck>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated dashboard caller, set by the dashboard authentication hook. */
    dashboardSession: DashboardSession | null;
    /** In optional mode: the code a presented but unusable token earned (303/304), for requireDashboardSession. */
    dashboardAuthFailure: '303' | '304' | null;
  }
}

/** Options of the hook. */
export interface DashboardAuthOptions {
  /**
   * Optional mode: a request without a token goes on unauthenticated and a bad token is only recorded; the
   * route then calls requireDashboardSession when it needs a caller (GET /tx/:value serves op 5 without one).
   */
  optional?: boolean;
  /** Another place a token may come from when the header and body have none (the console's session cookie). */
  fallbackToken?: (request: FastifyRequest) => string | null;
}

/**
 * Builds the hook for a scope (register it as `preValidation`, after the body is parsed, so `auth_token` in
 * the body is seen). The token comes from `Authorization: <token>`, `Authorization: Bearer <token>`, or
 * `auth_token` in a JSON body; 302 when none is given, 303 for an unknown or ended token, 304 for an expired one.
 */
export function dashboardAuth(scope: FastifyInstance, verifier: SessionVerifier, opts: DashboardAuthOptions = {}): preValidationAsyncHookHandler {
  if (!scope.hasRequestDecorator('dashboardSession')) scope.decorateRequest('dashboardSession', null);
  if (!scope.hasRequestDecorator('dashboardAuthFailure')) scope.decorateRequest('dashboardAuthFailure', null);
  return async (request) => {
    const token = presentedToken(request) ?? opts.fallbackToken?.(request) ?? null;
    if (token === null) {
      if (opts.optional) return;
      throw new DomainError('token-required', 'Token required: send the token from /check_otp in the Authorization header');
    }
    const check = await verifier.verify(token);
    if (check.ok) {
      request.dashboardSession = check.session;
      return;
    }
    if (opts.optional) {
      request.dashboardAuthFailure = check.code;
      return;
    }
    throw failure(check.code);
  };
}

/** The authenticated caller; in optional mode answers 302, 303 or 304 when there is none. */
export function requireDashboardSession(request: FastifyRequest): DashboardSession {
  if (request.dashboardSession) return request.dashboardSession;
  if (request.dashboardAuthFailure) throw failure(request.dashboardAuthFailure);
  throw new DomainError('token-required', 'Token required: send the token from /check_otp in the Authorization header');
}

function failure(code: '303' | '304'): DomainError {
  return code === '304'
    ? new DomainError('token-expired', 'Token expired: log in again with /send_otp and /check_otp')
    : new DomainError('token-invalid', 'Token invalid');
}

/** The token from the header (bare or Bearer) or the body's `auth_token`; both given must agree. */
function presentedToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  let fromHeader: string | null = null;
  if (typeof header === 'string' && header !== '') {
    const bearer = /^Bearer +(.*)$/i.exec(header);
    fromHeader = bearer ? bearer[1]! : header;
    if (fromHeader === '') throw new DomainError('token-required', 'Token required: the Authorization header names a scheme but no token');
  }
  const body = request.body;
  let fromBody: string | null = null;
  if (body !== null && typeof body === 'object' && !Array.isArray(body) && 'auth_token' in body) {
    const value = (body as Record<string, unknown>).auth_token;
    if (typeof value !== 'string') throw new DomainError('invalid', 'Wrong or missing argument: auth_token must be a string');
    if (value !== '') fromBody = value;
  }
  if (fromHeader !== null && fromBody !== null && fromHeader !== fromBody) {
    throw new DomainError('invalid', 'Wrong or missing argument: the Authorization header and auth_token name different tokens');
  }
  return fromHeader ?? fromBody;
}
