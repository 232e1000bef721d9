// The console's Members page of a wallet (issue 40): its Owners list the members, invite an e-mail with a role (a
// single-use link by mail, src/teams/invitations.ts), withdraw a pending invitation, add a profile that has signed
// in once by its e-mail, change a role, remove a member. The guard (src/teams) lets only Owners reach it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Merchant } from '../dashboard/merchant.ts';
import type { DashboardSession } from '../dashboard/sessions.ts';
import type { Teams } from '../teams/teams.ts';
import { ROLES } from '../teams/permissions.ts';
import type { Member } from '../teams/members.ts';
import type { Invitations, PendingInvitation } from '../teams/invitations.ts';
import { escapeHtml as e } from '../pages/html.ts';
import { consolePage, csrfField, when, type Shell } from './views/layout.ts';
import { messageOf, refusalStatus } from './error-page.ts';
import { DomainError } from '../core/domain-errors.ts';
import { noteDetail } from '../teams/audit.ts';

/** What the pages need from the console. */
export interface MemberPageDeps {
  merchant: Merchant;
  teams: Teams;
  invitations: Invitations;
  session(request: FastifyRequest): DashboardSession;
  base(request: FastifyRequest, ok?: unknown): Omit<Shell, 'title' | 'section'>;
  html(reply: FastifyReply, status: number, page: string): FastifyReply;
  secure(reply: FastifyReply): FastifyReply;
  field(body: unknown, name: string): string | undefined;
}

const roleSelect = (name: string, selected: string) =>
  `<select name="${name}">${ROLES.map((r) => `<option${r === selected ? ' selected' : ''}>${r}</option>`).join('')}</select>`;

function renderMembers(base: Omit<Shell, 'title' | 'section'>, apiId: string, members: Member[], pending: PendingInvitation[]): string {
  const action = `/console/wallets/${encodeURIComponent(apiId)}/members`;
  const csrf = csrfField(base.user?.csrf ?? '');
  const rows = members
    .map(
      (m) => `      <tr><td>${e(m.email)}</td><td>
        <form method="post" action="${e(action)}">${csrf}<input type="hidden" name="op" value="change"><input type="hidden" name="email" value="${e(m.email)}">
          <label>Role ${roleSelect('role', m.role)}</label> <button type="submit" class="button secondary">Change</button></form></td><td>
        <form method="post" action="${e(action)}">${csrf}<input type="hidden" name="op" value="remove"><input type="hidden" name="email" value="${e(m.email)}">
          <button type="submit" class="button secondary">Remove</button></form></td></tr>`,
    )
    .join('\n');
  return consolePage(
    { ...base, title: 'Members', section: 'wallets' },
    `<table><caption>Members of ${e(apiId)}</caption><thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Remove</th></tr></thead><tbody>
${rows}
    </tbody></table>
  <form method="post" action="${e(action)}" class="panel" aria-labelledby="invite-heading">${csrf}<input type="hidden" name="op" value="invite">
    <h2 id="invite-heading">Invite by e-mail</h2>
    <p>We e-mail them a link that works once, for 7 days; they join by signing in with a code sent to that address.</p>
    <label>E-mail <input type="email" name="email" required maxlength="254" autocomplete="off"></label>
    <label>Role ${roleSelect('role', 'Cashier')}</label>
    <button type="submit" class="button">Send invitation</button>
  </form>
${pending.length === 0 ? '' : `  <table><caption>Pending invitations</caption><thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Invited by</th><th scope="col">Valid until</th><th scope="col">Withdraw</th></tr></thead><tbody>
${pending
  .map(
    (i) => `      <tr><td>${e(i.email)}</td><td>${e(i.role)}</td><td>${e(i.invited_by)}</td><td>${e(when(i.expires_at))}</td><td>
        <form method="post" action="${e(action)}">${csrf}<input type="hidden" name="op" value="revoke"><input type="hidden" name="invitation" value="${e(i.id)}">
          <button type="submit" class="button secondary" aria-label="Withdraw the invitation to ${e(i.email)}">Withdraw</button></form></td></tr>`,
  )
  .join('\n')}
    </tbody></table>`}
  <form method="post" action="${e(action)}" class="panel" aria-labelledby="add-heading">${csrf}<input type="hidden" name="op" value="add">
    <h2 id="add-heading">Add someone who has signed in before</h2>
    <p>They must have signed in once with this e-mail.</p>
    <label>E-mail <input type="email" name="email" required maxlength="254"></label>
    <label>Role ${roleSelect('role', 'Guest')}</label>
    <button type="submit" class="button">Add</button>
  </form>`,
  );
}

/** Registers the Members page (Owners only, by the permission table). */
export function memberPages(app: FastifyInstance, d: MemberPageDeps): void {
  const mine = async (request: FastifyRequest<{ Params: { api_id: string } }>) => (await d.merchant.wallet(d.session(request), request.params.api_id)).api_id;
  app.get<{ Params: { api_id: string }; Querystring: { ok?: string } }>('/console/wallets/:api_id/members', { schema: { hide: true } }, async (request, reply) => {
    const apiId = await mine(request);
    return d.html(reply, 200, renderMembers(d.base(request, request.query.ok), apiId, await d.teams.members(apiId), await d.invitations.pending(apiId)));
  });
  app.post<{ Params: { api_id: string } }>('/console/wallets/:api_id/members', { schema: { hide: true } }, async (request, reply) => {
    const apiId = await mine(request);
    const op = d.field(request.body, 'op');
    const email = d.field(request.body, 'email') ?? '';
    const role = d.field(request.body, 'role');
    try {
      const s = d.session(request);
      if (op === 'invite') await d.invitations.invite({ profileId: s.profileId, email: s.email }, apiId, email, role, request.ip);
      else if (op === 'revoke') await d.invitations.revoke({ profileId: s.profileId, email: s.email }, apiId, d.field(request.body, 'invitation'), request.ip);
      else if (op === 'add') await d.teams.add(s.profileId, apiId, email, role);
      else if (op === 'change') await d.teams.change(s.profileId, apiId, email, role ?? '');
      else if (op === 'remove') await d.teams.change(s.profileId, apiId, email, null);
      else throw new DomainError('invalid', 'Wrong or missing argument: op must be invite, revoke, add, change or remove');
      noteDetail(request, op === 'invite' ? `invited ${email} as ${role ?? ''}` : op === 'revoke' ? 'withdrew an invitation' : op === 'add' ? `added ${email} as ${role ?? ''}` : op === 'change' ? `${email} is now ${role ?? ''}` : `removed ${email}`);
    } catch (err) {
      const status = refusalStatus(err);
      if (status === null) throw err;
      return d.html(
        reply,
        status,
        renderMembers({ ...d.base(request), flash: { kind: 'error', text: messageOf(err) } }, apiId, await d.teams.members(apiId), await d.invitations.pending(apiId)),
      );
    }
    const ok = op === 'invite' ? 'invited' : op === 'revoke' ? 'invitation_revoked' : 'members_saved';
    return d.secure(reply).redirect(`/console/wallets/${encodeURIComponent(apiId)}/members?ok=${ok}`, 303);
  });
}
