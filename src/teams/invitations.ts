// Invitations to a wallet's team by e-mail (issue 40): an Owner invites an address with a role; the mail (through
// the outbox, sealed: it carries the link) holds a single-use link valid 7 days. Accepting it needs a session of
// that very e-mail (signed in by code), so the link alone never makes anyone a member. The token is stored only as
// its SHA-256 (as refund and form tokens are) and looked up by it; rows stay after use so a second click is told so.
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import { DomainError } from '../core/domain-errors.ts';
import { hashToken, newToken } from '../security/tokens.ts';
import { enqueueNotifications } from '../notify/outbox.ts';
import { sealedMailPayload } from '../notify/sealed-mail.ts';
import { recordAudit } from '../security/audit.ts';
import { isRole, type Role } from './permissions.ts';

/** Days an invitation link stays valid. */
export const INVITATION_DAYS = 7;
const DAY = 86_400_000;

/** The path of the accept page; the token follows as a path segment (declared secret, so never logged). */
export const INVITATION_PATH = '/console/join/';

/** A pending invitation as the Members page lists it. */
export interface PendingInvitation {
  id: string;
  email: string;
  role: Role;
  invited_by: string;
  expires_at: number;
}

/** What a link is, read without using it. */
export type InvitationState =
  | { state: 'open'; apiId: string; walletName: string; email: string; role: Role; expiresAt: number }
  | { state: 'used' | 'expired' | 'revoked' | 'unknown' };

/** What invitations need. */
export interface InvitationDeps {
  db: Db;
  clock: Clock;
  masterKey: MasterKey;
  /** The service's public base URL: the link in the mail starts with it. */
  publicUrl: string;
}

/** The same rule as sign-in's (src/dashboard/profiles.ts loginEmail): an invitation is for an address one can sign in with. */
function inviteeEmail(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (
    text.length > 254 ||
    !/^[^\s@<>()",;:\\[\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/.test(text)
  ) {
    throw new DomainError('invalid-email', 'Invalid e-mail address');
  }
  return text.toLowerCase();
}

/** The invitation mail: who invites to what, with which role, the link, how long it lasts, and that it needs sign-in by code. */
export function invitationMail(walletName: string, role: Role, inviter: string, link: string): { subject: string; text: string } {
  const lines = [
    'Hello,',
    '',
    `${inviter} invites you to the team of the wallet "${walletName}"`,
    `on satgate, with the role ${role}.`,
    '',
    'To join, open this link and sign in with a code sent to this address:',
    '',
    link,
    '',
    `The link works once and is valid for ${INVITATION_DAYS} days.`,
    'If you do not expect this invitation, you can ignore this e-mail:',
    'nobody joins without signing in with this e-mail address.',
  ];
  return { subject: `Invitation to the wallet "${walletName}" on satgate`, text: `${lines.join('\n')}\n` };
}

/** Invitations over one database. */
export class Invitations {
  constructor(private readonly deps: InvitationDeps) {}

  /** Invites an e-mail to the wallet with a role and queues the mail; refused for an existing member. */
  async invite(actor: { profileId: bigint; email: string }, apiId: string, emailText: unknown, roleText: unknown, ip: string | null): Promise<void> {
    const email = inviteeEmail(emailText);
    if (!isRole(roleText)) throw new DomainError('invalid', 'Wrong or missing argument: role must be Owner, Manager, Accountant, Cashier, Developer or Guest');
    const role = roleText;
    const now = this.deps.clock();
    const token = newToken();
    await this.deps.db.kysely.transaction().execute(async (trx) => {
      const wallet = await trx.selectFrom('wallets').select(['id', 'account_name']).where('api_id', '=', apiId).executeTakeFirst();
      if (!wallet) throw new DomainError('not-found', 'No wallet with this API ID');
      const member = await trx
        .selectFrom('wallet_members as m')
        .innerJoin('profiles as p', 'p.id', 'm.profile_id')
        .select('m.role')
        .where('m.wallet_id', '=', wallet.id)
        .where('p.email', '=', email)
        .executeTakeFirst();
      if (member) throw new DomainError('invalid', `Wrong or missing argument: ${email} is already a member (${member.role}); change their role instead`);
      await trx
        .insertInto('wallet_invitations')
        .values({ wallet_id: wallet.id, email, role, token_hash: hashToken(token), invited_by: actor.profileId, created_at: BigInt(now), expires_at: BigInt(now + INVITATION_DAYS * DAY) })
        .execute();
      const link = `${this.deps.publicUrl}${INVITATION_PATH}${token}`;
      const message = invitationMail(wallet.account_name ?? apiId, role, actor.email, link);
      await enqueueNotifications(
        trx,
        [{ kind: 'email', target: email, payload: sealedMailPayload(this.deps.masterKey, 'team_invitation', message), walletId: wallet.id, paymentId: null }],
        now,
      );
      await recordAudit(trx, { action: 'member_invited', profileId: actor.profileId, email: actor.email, ip, detail: { api_id: apiId, invitee: email, role } }, now);
    });
  }

  /** The wallet's invitations neither used, revoked nor expired, newest first. */
  async pending(apiId: string): Promise<PendingInvitation[]> {
    const rows = await this.deps.db.kysely
      .selectFrom('wallet_invitations as i')
      .innerJoin('wallets as w', 'w.id', 'i.wallet_id')
      .innerJoin('profiles as p', 'p.id', 'i.invited_by')
      .select(['i.id', 'i.email', 'i.role', 'p.email as invited_by', 'i.expires_at'])
      .where('w.api_id', '=', apiId)
      .where('i.used_at', 'is', null)
      .where('i.revoked_at', 'is', null)
      .where('i.expires_at', '>', BigInt(this.deps.clock()))
      .orderBy('i.id', 'desc')
      .execute();
    return rows.map((r) => ({ id: String(r.id), email: r.email, role: r.role as Role, invited_by: r.invited_by, expires_at: Number(r.expires_at) }));
  }

  /** Withdraws a pending invitation of the wallet (its link then answers "withdrawn"). */
  async revoke(actor: { profileId: bigint; email: string }, apiId: string, idText: unknown, ip: string | null): Promise<void> {
    if (typeof idText !== 'string' || !/^[1-9][0-9]{0,17}$/.test(idText)) throw new DomainError('invalid', 'Wrong or missing argument: invitation');
    const now = this.deps.clock();
    await this.deps.db.kysely.transaction().execute(async (trx) => {
      const wallet = await trx.selectFrom('wallets').select('id').where('api_id', '=', apiId).executeTakeFirst();
      if (!wallet) throw new DomainError('not-found', 'No wallet with this API ID');
      const done = await trx
        .updateTable('wallet_invitations')
        .set({ revoked_at: BigInt(now) })
        .where('id', '=', BigInt(idText))
        .where('wallet_id', '=', wallet.id)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(done.numUpdatedRows) === 0) throw new DomainError('not-found', 'No pending invitation of this wallet with this number');
      await recordAudit(trx, { action: 'invitation_revoked', profileId: actor.profileId, email: actor.email, ip, detail: { api_id: apiId, invitation: idText } }, now);
    });
  }

  /** What the link is, without using it (the accept page shows it before the invitee confirms). */
  async peek(token: string): Promise<InvitationState> {
    const row = await this.deps.db.kysely
      .selectFrom('wallet_invitations as i')
      .innerJoin('wallets as w', 'w.id', 'i.wallet_id')
      .select(['i.email', 'i.role', 'i.expires_at', 'i.used_at', 'i.revoked_at', 'w.api_id', 'w.account_name'])
      .where('i.token_hash', '=', hashToken(token))
      .executeTakeFirst();
    if (!row) return { state: 'unknown' };
    if (row.used_at !== null) return { state: 'used' };
    if (row.revoked_at !== null) return { state: 'revoked' };
    if (Number(row.expires_at) <= this.deps.clock()) return { state: 'expired' };
    return { state: 'open', apiId: row.api_id, walletName: row.account_name ?? row.api_id, email: row.email, role: row.role as Role, expiresAt: Number(row.expires_at) };
  }

  /**
   * Uses the link for the signed-in profile: it must be open and for this profile's e-mail; the profile becomes a
   * member with the invited role (one who already is keeps their role). Returns the wallet's API ID and the role.
   */
  async accept(profile: { profileId: bigint; email: string }, token: string, ip: string | null): Promise<{ apiId: string; role: Role }> {
    const now = this.deps.clock();
    return this.deps.db.kysely.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('wallet_invitations').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirst();
      if (!row) throw new DomainError('not-found', 'This invitation link is not valid: check that it was copied whole.');
      const gone = (used: bigint | null, revoked: bigint | null) =>
        used !== null
          ? new DomainError('gone', 'This invitation link was already used: it works once.')
          : revoked !== null
            ? new DomainError('gone', 'This invitation was withdrawn by an Owner of the wallet.')
            : null;
      const before = gone(row.used_at, row.revoked_at);
      if (before) throw before;
      if (Number(row.expires_at) <= now) throw new DomainError('gone', `This invitation link has expired (links last ${INVITATION_DAYS} days): ask an Owner of the wallet for a new one.`);
      if (profile.email.toLowerCase() !== row.email) {
        throw new DomainError('forbidden', 'This invitation is for another e-mail address: sign out, then sign in with the address the invitation was sent to.');
      }
      // Used once, whatever runs at the same time: only the update that still finds it open proceeds.
      const used = await trx
        .updateTable('wallet_invitations')
        .set({ used_at: BigInt(now), used_by: profile.profileId })
        .where('id', '=', row.id)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(used.numUpdatedRows) === 0) throw new DomainError('gone', 'This invitation link was already used: it works once.');
      await trx
        .insertInto('wallet_members')
        .values({ wallet_id: row.wallet_id, profile_id: profile.profileId, role: row.role, added_by: row.invited_by, created_at: BigInt(now) })
        .onConflict((oc) => oc.columns(['wallet_id', 'profile_id']).doNothing())
        .execute();
      await trx
        .insertInto('profile_wallets')
        .values({ profile_id: profile.profileId, wallet_id: row.wallet_id, via: 'member', created_at: BigInt(now) })
        .onConflict((oc) => oc.columns(['profile_id', 'wallet_id']).doNothing())
        .execute();
      const member = await trx.selectFrom('wallet_members').select('role').where('wallet_id', '=', row.wallet_id).where('profile_id', '=', profile.profileId).executeTakeFirstOrThrow();
      const wallet = await trx.selectFrom('wallets').select('api_id').where('id', '=', row.wallet_id).executeTakeFirstOrThrow();
      await recordAudit(trx, { action: 'invitation_accepted', profileId: profile.profileId, email: profile.email, ip, detail: { api_id: wallet.api_id, role: member.role } }, now);
      return { apiId: wallet.api_id, role: member.role as Role };
    });
  }
}
