// Accepting an invitation to a wallet's team in the console (issue 40). The mailed link `/console/join/<token>`
// (public: the invitee may have no session) keeps the token in a short-lived cookie for /console/ and says what
// the invitation is; "Continue" leads through the usual sign-in by code (the session pages send anyone signed out
// there), after which the invitation is accepted at once when the signed-in e-mail is the invited one. A visitor
// already signed in confirms with a button: a GET never changes anything. Used, withdrawn, expired or unknown
// links, and another e-mail signed in, are answered with a page that says so.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import { escapeHtml as e } from '../pages/html.ts';
import type { Invitations, InvitationState } from '../teams/invitations.ts';
import { COOKIE_PATH } from './console-security.ts';
import { consolePage, csrfField, type ConsoleAssetUrls, type Shell } from './views/layout.ts';
import type { DashboardSession } from '../dashboard/sessions.ts';

/** The cookie that carries an invitation's token through sign-in. */
export const INVITATION_COOKIE = 'satgate_invitation';
const COOKIE_SECONDS = 3600;

/** The invitation token from the request's cookie, or null. */
export function invitationCookie(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === INVITATION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{20,200}$/.test(value) ? value : null;
    }
  }
  return null;
}

/** The Set-Cookie value that keeps (or, with null, removes) the invitation token. */
export function invitationCookieHeader(token: string | null, secure: boolean): string {
  return `${INVITATION_COOKIE}=${token ?? ''}; Path=${COOKIE_PATH}; Max-Age=${token ? COOKIE_SECONDS : 0}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

const CLOSED: Record<Exclude<InvitationState['state'], 'open'>, [number, string]> = {
  used: [410, 'This invitation link was already used: it works once. If you joined, your wallets are in the console.'],
  revoked: [410, 'This invitation was withdrawn by an Owner of the wallet.'],
  expired: [410, 'This invitation link has expired (links last 7 days): ask an Owner of the wallet for a new one.'],
  unknown: [404, 'This invitation link is not valid: check that it was copied whole.'],
};

/** The HTTP status of a refusal while accepting. */
function statusOf(err: DomainError): number {
  return err.kind === 'gone' ? 410 : err.kind === 'forbidden' ? 403 : err.kind === 'not-found' ? 404 : 400;
}

/** What the pages need from the console. */
export interface InvitationPageDeps {
  invitations: Invitations;
  assets: ConsoleAssetUrls;
  secure(reply: FastifyReply): FastifyReply;
  html(reply: FastifyReply, status: number, page: string): FastifyReply;
  base(request: FastifyRequest): Omit<Shell, 'title' | 'section'>;
  session(request: FastifyRequest): DashboardSession;
  cookieSecure(request: FastifyRequest): boolean;
}

const invitedTo = (s: Extract<InvitationState, { state: 'open' }>) =>
  `<p>You are invited to the team of the wallet <strong>${e(s.walletName)}</strong> with the role <strong>${e(s.role)}</strong>.</p>`;

/** The public page of the mailed link (registered outside the session scope). */
export function invitationLinkPage(app: FastifyInstance, d: Pick<InvitationPageDeps, 'invitations' | 'assets' | 'html' | 'cookieSecure'>): void {
  app.get<{ Params: { invitation_token: string } }>(
    '/console/join/:invitation_token',
    { schema: { hide: true }, config: { secretParams: ['invitation_token'] } },
    async (request, reply) => {
      const token = request.params.invitation_token;
      const state = /^[A-Za-z0-9_-]{20,200}$/.test(token) ? await d.invitations.peek(token) : ({ state: 'unknown' } as const);
      const page = (status: number, flash: Shell['flash'], body: string) =>
        d.html(reply, status, consolePage({ title: 'Invitation', assets: d.assets, user: null, section: 'none', flash }, body));
      if (state.state !== 'open') {
        const [status, text] = CLOSED[state.state];
        return page(status, { kind: 'error', text }, '<p><a href="/console/">Go to the console</a></p>');
      }
      reply.header('set-cookie', invitationCookieHeader(token, d.cookieSecure(request)));
      return page(
        200,
        null,
        `<section class="panel narrow">
  ${invitedTo(state)}
  <p>To join, sign in with a code sent to <strong>${e(state.email)}</strong>, the address this invitation was sent to.</p>
  <p><a class="button" href="/console/invitations/continue">Continue</a></p>
</section>`,
      );
    },
  );
}

/** The signed-in steps (registered in the session scope; the guard's table names `POST /console/invitations/accept`). */
export function invitationSessionPages(scope: FastifyInstance, d: InvitationPageDeps): void {
  const page = (request: FastifyRequest, reply: FastifyReply, status: number, flash: Shell['flash'], body: string) =>
    d.html(reply, status, consolePage({ ...d.base(request), title: 'Invitation', section: 'none', flash }, body));

  scope.get('/console/invitations/continue', { schema: { hide: true } }, async (request, reply) => {
    const token = invitationCookie(request);
    const state = token ? await d.invitations.peek(token) : ({ state: 'unknown' } as const);
    if (state.state !== 'open') {
      const [status, text] = CLOSED[state.state];
      d.secure(reply).header('set-cookie', invitationCookieHeader(null, d.cookieSecure(request)));
      return page(request, reply, status, { kind: 'error', text }, '<p><a href="/console/">Back to the console</a></p>');
    }
    if (state.email !== d.session(request).email.toLowerCase()) {
      const text = 'This invitation is for another e-mail address: sign out, then sign in with the address the invitation was sent to.';
      return page(request, reply, 403, { kind: 'error', text }, invitedTo(state));
    }
    return page(
      request,
      reply,
      200,
      null,
      `<section class="panel narrow">
  ${invitedTo(state)}
  <form method="post" action="/console/invitations/accept">${csrfField(d.base(request).user?.csrf ?? '')}
    <button type="submit" class="button">Join ${e(state.walletName)}</button>
  </form>
</section>`,
    );
  });

  scope.post('/console/invitations/accept', { schema: { hide: true } }, async (request, reply) => {
    const token = invitationCookie(request);
    const s = d.session(request);
    try {
      if (!token) throw new DomainError('not-found', 'No invitation to accept here: open the link from the invitation mail again.');
      await d.invitations.accept({ profileId: s.profileId, email: s.email }, token, request.ip);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return page(request, reply, statusOf(err), { kind: 'error', text: err.message }, '<p><a href="/console/">Back to the console</a></p>');
    }
    return d.secure(reply).header('set-cookie', invitationCookieHeader(null, d.cookieSecure(request))).redirect('/console/wallets?ok=joined', 303);
  });
}

/**
 * Right after a sign-in by code: accepts the invitation the cookie carries, if any. Returns where to go next: the
 * wallets (joined), the invitation's page (it explains a refusal), or null when there was no invitation.
 */
export async function acceptAfterSignIn(invitations: Invitations, request: FastifyRequest, session: { profileId: bigint; email: string }): Promise<string | null> {
  const token = invitationCookie(request);
  if (!token) return null;
  try {
    await invitations.accept(session, token, request.ip);
    return '/console/wallets?ok=joined';
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return '/console/invitations/continue';
  }
}
