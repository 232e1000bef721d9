// The payer's language for one page request, and the picker's memory: a `?lang=` that names a supported language
// is kept in a cookie, so the next page (and a reload without the query) speaks it too. No JavaScript involved.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { chooseLanguage, LANGUAGE_COOKIE, matchLanguage } from './negotiate.ts';
import { messagesFor, type Messages } from './messages.ts';

const ONE_YEAR_S = 365 * 24 * 3600;

/** The value of cookie `name` in a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function askedLanguage(request: FastifyRequest): string | undefined {
  const query = (request.query as Record<string, unknown> | undefined)?.lang;
  return typeof query === 'string' ? query : undefined;
}

/**
 * The language a page for `request` is shown in (merchant default optional), without answering anything: what a
 * payer's action (a form post, the refund address) records, so the e-mail that follows speaks the page's language.
 */
export function requestLanguage(request: FastifyRequest, merchantDefault?: string | null): string {
  return chooseLanguage({
    query: askedLanguage(request),
    cookie: cookieValue(request.headers.cookie, LANGUAGE_COOKIE),
    merchantDefault,
    acceptLanguage: request.headers['accept-language'],
  });
}

/** Chooses the page's language for `request` (merchant default optional) and remembers an explicit `?lang=`. */
export function requestMessages(request: FastifyRequest, reply: FastifyReply, merchantDefault?: string | null): Messages {
  const asked = askedLanguage(request);
  const lang = requestLanguage(request, merchantDefault);
  const picked = asked !== undefined ? matchLanguage([asked]) : null;
  if (picked !== null) {
    reply.header('set-cookie', `${LANGUAGE_COOKIE}=${picked}; Path=/; Max-Age=${ONE_YEAR_S}; SameSite=Lax; HttpOnly`);
  }
  reply.header('vary', 'Accept-Language, Cookie');
  reply.header('content-language', lang);
  return messagesFor(lang);
}
