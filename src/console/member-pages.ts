// The console's Members page of a wallet (issue 40, first slice): its Owners list the members, add a profile
// that has signed in once by its e-mail with a role, change a role, remove a member. The guard (src/teams) lets
// only Owners reach it; invitation links by e-mail come in a later slice.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Merchant } from '../dashboard/merchant.ts';
import type { DashboardSession } from '../dashboard/sessions.ts';
import type { Teams } from '../teams/teams.ts';
import { ROLES } from '../teams/permissions.ts';
import type { Member } from '../teams/members.ts';
import { escapeHtml as e } from '../pages/html.ts';
import { consolePage, csrfField, type Shell } from './views/layout.ts';
import { messageOf, refusalStatus } from './error-page.ts';
import { DomainError } from '../core/domain-errors.ts';
import { noteDetail } from '../teams/audit.ts';

/** What the pages need from the console. */
export interface MemberPageDeps {
  merchant: Merchant;
  teams: Teams;
  session(request: FastifyRequest): DashboardSession;
  base(request: FastifyRequest, ok?: unknown): Omit<Shell, 'title' | 'section'>;
  html(reply: FastifyReply, status: number, page: string): FastifyReply;
  secure(reply: FastifyReply): FastifyReply;
  field(body: unknown, name: string): string | undefined;
}

const roleSelect = (name: string, selected: string) =>
  `<select name="${name}">${ROLES.map((r) => `<option${r === selected ? ' selected' : ''}>${r}</option>`).join('')}</select>`;

function renderMembers(base: Omit<Shell, 'title' | 'section'>, apiId: string, members: Member[]): string {
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
  <form method="post" action="${e(action)}" class="panel" aria-label="Add a member">${csrf}<input type="hidden" name="op" value="add">
    <h2>Add a member</h2>
    <p>They must have signed in once with this e-mail (invitation links come later).</p>
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
    return d.html(reply, 200, renderMembers(d.base(request, request.query.ok), apiId, await d.teams.members(apiId)));
  });
  app.post<{ Params: { api_id: string } }>('/console/wallets/:api_id/members', { schema: { hide: true } }, async (request, reply) => {
    const apiId = await mine(request);
    const op = d.field(request.body, 'op');
    const email = d.field(request.body, 'email') ?? '';
    const role = d.field(request.body, 'role');
    try {
      if (op === 'add') await d.teams.add(d.session(request).profileId, apiId, email, role);
      else if (op === 'change') await d.teams.change(d.session(request).profileId, apiId, email, role ?? '');
      else if (op === 'remove') await d.teams.change(d.session(request).profileId, apiId, email, null);
      else throw new DomainError('invalid', 'Wrong or missing argument: op must be add, change or remove');
      noteDetail(request, op === 'add' ? `added ${email} as ${role ?? ''}` : op === 'change' ? `${email} is now ${role ?? ''}` : `removed ${email}`);
    } catch (err) {
      const status = refusalStatus(err);
      if (status === null) throw err;
      return d.html(reply, status, renderMembers({ ...d.base(request), flash: { kind: 'error', text: messageOf(err) } }, apiId, await d.teams.members(apiId)));
    }
    return d.secure(reply).redirect(`/console/wallets/${encodeURIComponent(apiId)}/members?ok=members_saved`, 303);
  });
}
