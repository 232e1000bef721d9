// OAuth 2.0 for the payment API: the bearer-token hook (RFC 6750) that authenticates operation 26's caller, and
// the token endpoint's own error answers (RFC 6749 section 5.2). Routes never parse `Authorization` themselves.
import type { FastifyError, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import { clientErrorWording } from './error-answers.ts';

/**
 * What checking a bearer token answers; `payments/oauth.ts` implements it over the token table. `looked` is what
 * the verifier found for a hint (below) in the same query, for the route to use instead of asking again.
 */
export type BearerCheck = { ok: true; clientRowId: bigint; looked?: unknown } | { ok: false; reason: 'missing' | 'invalid' | 'expired' };

/** Anything that can check a bearer `Authorization` header. */
export interface BearerVerifier {
  /** `hint`: what the route will look up next (payment creation: the body's API ID), looked up in the same query. */
  checkBearer(header: string | undefined, hint?: string): Promise<BearerCheck>;
}

/** The caller an authentication hook found. */
export interface OAuthCaller {
  /** Row id of the OAuth client. */
  clientRowId: bigint;
  /** The verifier's answer for the route's hint, when there was one. */
  looked?: unknown;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by {@link oauthBearer} on the routes that use it. */
    oauthClient?: OAuthCaller;
  }
}

/**
 * A `preHandler` hook (after the body is parsed, as before) that admits a valid bearer token and sets
 * `request.oauthClient` (with what the verifier found for `hintOf`'s answer, if any); otherwise answers 401
 * `unauthorized` with the RFC 6750 `WWW-Authenticate` header.
 */
export function oauthBearer(verifier: BearerVerifier, hintOf?: (request: FastifyRequest) => string | undefined): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    const auth = await verifier.checkBearer(request.headers.authorization, hintOf?.(request));
    if (auth.ok) {
      request.oauthClient = { clientRowId: auth.clientRowId, looked: auth.looked };
      return;
    }
    reply.header('www-authenticate', auth.reason === 'missing' ? 'Bearer realm="satgate"' : 'Bearer realm="satgate", error="invalid_token"');
    const detail =
      auth.reason === 'missing'
        ? 'An OAuth 2.0 bearer token is required: Authorization: Bearer <access_token> (POST /oauth/token gives one).'
        : auth.reason === 'expired'
          ? 'The access token has expired; request a new one at POST /oauth/token.'
          : 'The access token is not valid.';
    throw new DomainError('unauthenticated', detail);
  };
}

/** The authenticated OAuth client of a route behind {@link oauthBearer}. */
export function oauthClientOf(request: FastifyRequest): OAuthCaller {
  if (!request.oauthClient) throw new Error('route is not behind the oauthBearer hook');
  return request.oauthClient;
}

/** The body types the token endpoint reads, as its refusal of another one names them. */
export const TOKEN_BODY_TYPES = 'a form (Content-Type: application/x-www-form-urlencoded) or JSON (Content-Type: application/json)';

/** RFC 6749 section 5.2 error codes the token endpoint answers. */
export type TokenError = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type';

/** Writes a token endpoint error (RFC 6749 5.2), with `WWW-Authenticate: Basic` on 401. */
export function sendTokenError(reply: FastifyReply, status: number, error: TokenError, description: string, basic = false) {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  if (status === 401) reply.header('www-authenticate', basic ? 'Basic realm="satgate", charset="UTF-8"' : 'Basic realm="satgate"');
  return reply.status(status).type('application/json').send({ error, error_description: description });
}

/** Route error handler of the token endpoint: malformed bodies answer in RFC 6749 form, not in an envelope. */
export function tokenErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode ?? 500;
  if (status >= 500) throw error;
  const worded = clientErrorWording(error, request, TOKEN_BODY_TYPES);
  return sendTokenError(reply, status === 413 || status === 415 ? status : 400, 'invalid_request', worded ?? error.message);
}

/** Client credentials from `Authorization: Basic` (RFC 6749 2.3.1: form-encoded id and secret). */
export function basicCredentials(header: string | undefined): { id: string; secret: string } | 'malformed' | undefined {
  if (!header || !/^Basic\s/i.test(header)) return undefined;
  const decoded = Buffer.from(header.replace(/^Basic\s+/i, '').trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return 'malformed';
  const unescape = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
}
