// Store teams in the dashboard API (issue 40): an Owner lists a wallet's members, invites an e-mail with a role (a
// single-use link by mail, accepted in the console after sign-in by code), lists and withdraws pending invitations,
// adds an existing profile by its sign-in e-mail with a role, changes a role or removes a member.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { ok } from '../http/envelope.ts';
import { dashboardAuth, requireDashboardSession } from '../http/dashboard-auth.ts';
import { useStrictSchemas } from '../http/strict-schema.ts';
import { ROLES } from '../teams/permissions.ts';
import type { Teams } from '../teams/teams.ts';
import type { Invitations } from '../teams/invitations.ts';
import type { SessionVerifier } from './sessions.ts';
import type { Merchant } from './merchant.ts';
import { teamGuard } from './team-guard.ts';
import { noteDetail } from '../teams/audit.ts';

const tags = ['dashboard'];
const security = [{ dashboardToken: [] }];
const Params = Type.Object({ api_id: Type.String({ minLength: 1, maxLength: 100 }) });
const RoleText = Type.Union(ROLES.map((r) => Type.Literal(r)), { description: 'the role in this wallet' });
const AddBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }), role: RoleText }, { additionalProperties: false });
const ChangeBody = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 254 }), role: Type.Union([RoleText, Type.Null()], { description: 'the new role, or null to remove the member' }) },
  { additionalProperties: false },
);

const InviteBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }), role: RoleText }, { additionalProperties: false });
const RevokeBody = Type.Object({ invitation: Type.String({ pattern: '^[1-9][0-9]{0,17}$', description: 'the id of a pending invitation' }) }, { additionalProperties: false });

/** Registers the members routes (Owners only: the permission table's `manage_members`). */
export async function memberRoutes(app: FastifyInstance, ctx: { merchant: Merchant; sessions: SessionVerifier; teams: Teams; invitations: Invitations }): Promise<void> {
  useStrictSchemas(app);
  app.addHook('preValidation', dashboardAuth(app, ctx.sessions));
  app.addHook('preHandler', teamGuard(ctx.teams, ctx.merchant));
  const mine = async (request: { params: { api_id: string } } & Parameters<typeof requireDashboardSession>[0]) =>
    (await ctx.merchant.wallet(requireDashboardSession(request), request.params.api_id)).api_id;

  app.get<{ Params: Static<typeof Params> }>(
    '/dashboard/wallets/:api_id/members',
    { schema: { summary: "A wallet's members and their roles (Owners only)", tags, security, params: Params } },
    async (request) => ok({ members: await ctx.teams.members(await mine(request)) }),
  );
  app.post<{ Params: Static<typeof Params>; Body: Static<typeof AddBody> }>(
    '/dashboard/wallets/:api_id/members',
    { schema: { summary: 'Add a member: a profile that has signed in once, by its e-mail, with a role (Owners only)', tags, security, params: Params, body: AddBody } },
    async (request) => {
      await ctx.teams.add(requireDashboardSession(request).profileId, await mine(request), request.body.email, request.body.role);
      noteDetail(request, `added ${request.body.email} as ${String(request.body.role)}`);
      return ok();
    },
  );
  app.post<{ Params: Static<typeof Params>; Body: Static<typeof ChangeBody> }>(
    '/dashboard/wallets/:api_id/members/change',
    { schema: { summary: "Change a member's role, or remove them with role null; the last Owner stays (Owners only)", tags, security, params: Params, body: ChangeBody } },
    async (request) => {
      await ctx.teams.change(requireDashboardSession(request).profileId, await mine(request), request.body.email, request.body.role);
      noteDetail(request, request.body.role === null ? `removed ${request.body.email}` : `${request.body.email} is now ${String(request.body.role)}`);
      return ok();
    },
  );
  app.get<{ Params: Static<typeof Params> }>(
    '/dashboard/wallets/:api_id/invitations',
    { schema: { summary: "A wallet's pending invitations (Owners only)", tags, security, params: Params } },
    async (request) => ok({ invitations: await ctx.invitations.pending(await mine(request)) }),
  );
  app.post<{ Params: Static<typeof Params>; Body: Static<typeof InviteBody> }>(
    '/dashboard/wallets/:api_id/invitations',
    { schema: { summary: 'Invite an e-mail with a role: a single-use link valid 7 days is mailed (Owners only)', tags, security, params: Params, body: InviteBody } },
    async (request) => {
      const s = requireDashboardSession(request);
      await ctx.invitations.invite({ profileId: s.profileId, email: s.email }, await mine(request), request.body.email, request.body.role, request.ip);
      return ok();
    },
  );
  app.post<{ Params: Static<typeof Params>; Body: Static<typeof RevokeBody> }>(
    '/dashboard/wallets/:api_id/invitations/revoke',
    { schema: { summary: 'Withdraw a pending invitation: its link stops working (Owners only)', tags, security, params: Params, body: RevokeBody } },
    async (request) => {
      const s = requireDashboardSession(request);
      await ctx.invitations.revoke({ profileId: s.profileId, email: s.email }, await mine(request), request.body.invitation, request.ip);
      return ok();
    },
  );
}
