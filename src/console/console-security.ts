// The merchant console's session cookie, per-session CSRF token and same-origin check (DESIGN.md section 9,
// "merchant console"). The cookie holds the dashboard session token itself (the one check_otp issues), so the
// console and the API share one kind of session; it is HttpOnly, SameSite=Strict, Secure over https, and sent
// only to /console/. A state-changing request needs both a same-origin request and the session's CSRF token.
import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../security/tokens.ts';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'satgate_console';
/** Path the cookie is sent to. */
export const COOKIE_PATH = '/console/';
/** Name of the CSRF token's form field (and, for scripts, of the header `x-csrf-token`). */
export const CSRF_FIELD = 'csrf';

/** The session token from the request's cookie, or null. */
export function sessionCookie(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      // Our tokens are base64url; anything else is not one of ours.
      return /^[A-Za-z0-9_-]{20,200}$/.test(value) ? value : null;
    }
  }
  return null;
}

/** True when the request reached us over https (directly, or through a trusted proxy that says so). */
export function overHttps(request: FastifyRequest, publicUrl: string): boolean {
  return request.protocol === 'https' || publicUrl.startsWith('https:');
}

/** The Set-Cookie value that stores a session token for `maxAgeSeconds`. */
export function sessionCookieHeader(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=${COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value that removes the session cookie. */
export function clearedCookieHeader(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=${COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** Derives and checks CSRF tokens: an HMAC of the session token under a key of the master key, so one per session and nothing stored. */
export class CsrfTokens {
  constructor(private readonly key: Buffer) {}

  /** The CSRF token of a session. */
  forSession(sessionToken: string): string {
    return createHmac('sha256', this.key).update(`console-csrf\0${sessionToken}`, 'utf8').digest('base64url');
  }

  /** True when `presented` is the session's token (constant time). */
  check(sessionToken: string, presented: unknown): boolean {
    return typeof presented === 'string' && presented.length > 0 && constantTimeEqual(this.forSession(sessionToken), presented);
  }
}

/**
 * Same-origin check of a state-changing request. A browser's cross-site request says so in Sec-Fetch-Site and in
 * Origin; when Origin is missing or `null` (DESIGN.md: Chromium sends `Origin: null` under a no-referrer policy,
 * which is why console pages send `Referrer-Policy: same-origin`), the Referer must name our origin. A request
 * with none of these is refused: browsers always send one of them on a POST.
 */
export function sameOrigin(request: FastifyRequest, publicUrl: string): boolean {
  const allowed = new Set([new URL(publicUrl).origin]);
  if (typeof request.host === 'string' && request.host !== '') allowed.add(`${request.protocol}://${request.host}`);
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin') return false;
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== 'null') return allowed.has(origin);
  const referer = request.headers.referer;
  if (typeof referer !== 'string') return false;
  try {
    return allowed.has(new URL(referer).origin);
  } catch {
    return false;
  }
}
