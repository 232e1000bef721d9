// A wallet's members and their roles (issue 40, 0029 wallet_members). Every association of a profile with a
// wallet goes through here: `addOwner` for registration and `satgate wallet associate`, `addMember` for an Owner
// adding an existing profile by e-mail. A member always has its profile_wallets row too (what the profile sees).
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { lockRow } from '../db/row-locks.ts';
import { DomainError } from '../core/domain-errors.ts';
import { isRole, type Role } from './permissions.ts';
import { noticeOwners, raises } from './team-notices.ts';

type K = Kysely<Database> | Transaction<Database>;

/** One member as the members list shows it. */
export interface Member {
  email: string;
  role: Role;
  added_by: string | null;
  created_at: number;
}

/** Makes a profile an Owner of a wallet (idempotent: an existing member keeps their role). */
export async function addOwner(trx: Transaction<Database>, walletId: bigint, profileId: bigint, now: number): Promise<void> {
  await trx
    .insertInto('wallet_members')
    .values({ wallet_id: walletId, profile_id: profileId, role: 'Owner', added_by: null, created_at: BigInt(now) })
    .onConflict((oc) => oc.columns(['wallet_id', 'profile_id']).doNothing())
    .execute();
}

/** The profile's role in the wallet with this API ID, or null when it is not a member (or the wallet is unknown). */
export async function roleIn(k: K, profileId: bigint, apiId: string): Promise<Role | null> {
  const row = await k
    .selectFrom('wallet_members as m')
    .innerJoin('wallets as w', 'w.id', 'm.wallet_id')
    .select('m.role')
    .where('m.profile_id', '=', profileId)
    .where('w.api_id', '=', apiId)
    .executeTakeFirst();
  return row && isRole(row.role) ? row.role : null;
}

/** The profile's roles in every wallet it belongs to. */
export async function rolesOf(k: K, profileId: bigint): Promise<Role[]> {
  const rows = await k.selectFrom('wallet_members').select('role').where('profile_id', '=', profileId).execute();
  return rows.map((r) => r.role).filter(isRole);
}

async function walletOf(k: K, apiId: string): Promise<bigint> {
  const w = await k.selectFrom('wallets').select('id').where('api_id', '=', apiId).executeTakeFirst();
  if (!w) throw new DomainError('not-found', 'No wallet with this API ID');
  return w.id;
}

async function emailOf(k: K, profileId: bigint): Promise<string> {
  const p = await k.selectFrom('profiles').select('email').where('id', '=', profileId).executeTakeFirst();
  return p?.email ?? 'the operator';
}

/** The members of a wallet, Owners first, then by when they were added. */
export async function listMembers(db: Db, apiId: string): Promise<Member[]> {
  const walletId = await walletOf(db.kysely, apiId);
  const rows = await db.kysely
    .selectFrom('wallet_members as m')
    .innerJoin('profiles as p', 'p.id', 'm.profile_id')
    .leftJoin('profiles as a', 'a.id', 'm.added_by')
    .select(['p.email', 'm.role', 'a.email as added_by', 'm.created_at'])
    .where('m.wallet_id', '=', walletId)
    .orderBy('m.created_at')
    .orderBy('p.email')
    .execute();
  const members = rows.map((r) => ({ email: r.email, role: r.role as Role, added_by: r.added_by, created_at: Number(r.created_at) }));
  return [...members.filter((m) => m.role === 'Owner'), ...members.filter((m) => m.role !== 'Owner')];
}

async function profileByEmail(k: K, email: string): Promise<bigint> {
  const p = await k.selectFrom('profiles').select('id').where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
  if (!p) throw new DomainError('profile-not-found', 'No one has signed in with this e-mail yet: they sign in once, then you add them.');
  return p.id;
}

function roleOf(text: unknown): Role {
  if (!isRole(text)) throw new DomainError('invalid', 'Wrong or missing argument: role must be Owner, Manager, Accountant, Cashier, Developer or Guest');
  return text;
}

/** Adds an existing profile (by its sign-in e-mail) to the wallet with a role; refused when already a member. */
export async function addMember(db: Db, actorId: bigint, apiId: string, email: string, roleText: unknown, now: number, consoleUrl = ''): Promise<void> {
  const role = roleOf(roleText);
  await db.kysely.transaction().execute(async (trx) => {
    const walletId = await walletOf(trx, apiId);
    const profileId = await profileByEmail(trx, email);
    const inserted = await trx
      .insertInto('wallet_members')
      .values({ wallet_id: walletId, profile_id: profileId, role, added_by: actorId, created_at: BigInt(now) })
      .onConflict((oc) => oc.columns(['wallet_id', 'profile_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) throw new DomainError('invalid', 'Wrong or missing argument: this person is already a member; change their role instead');
    await trx
      .insertInto('profile_wallets')
      .values({ profile_id: profileId, wallet_id: walletId, via: 'member', created_at: BigInt(now) })
      .onConflict((oc) => oc.columns(['profile_id', 'wallet_id']).doNothing())
      .execute();
    const notice = { kind: 'member_added' as const, by: await emailOf(trx, actorId), member: await emailOf(trx, profileId), role };
    await noticeOwners(trx, { id: walletId, api_id: apiId }, notice, consoleUrl, now);
  });
}

/**
 * Changes a member's role, or removes them (`role` null); the last Owner can be neither demoted nor removed. A
 * removed member's sessions end in the same transaction (their next request is signed out); a raised role is told
 * to the Owners. A lowered role needs nothing more: every request and every key they created is judged by the role
 * they hold at the time (src/greenfield/api-keys.ts).
 */
export async function changeMember(db: Db, apiId: string, email: string, roleText: unknown | null, by: { actorId: bigint | null; now: number; consoleUrl: string }): Promise<void> {
  const role = roleText === null ? null : roleOf(roleText);
  await db.kysely.transaction().execute(async (trx) => {
    const walletId = await walletOf(trx, apiId);
    // One change of a wallet's team at a time: two Owners demoting each other cannot leave it with none.
    await lockRow(trx, db, 'wallets', walletId);
    const profileId = await profileByEmail(trx, email);
    const current = await trx.selectFrom('wallet_members').select('role').where('wallet_id', '=', walletId).where('profile_id', '=', profileId).executeTakeFirst();
    if (!current) throw new DomainError('not-found', 'This person is not a member of this wallet');
    if (current.role === 'Owner' && role !== 'Owner') {
      const owners = await trx.selectFrom('wallet_members').select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).where('wallet_id', '=', walletId).where('role', '=', 'Owner').executeTakeFirstOrThrow();
      if (Number(owners.n) <= 1) throw new DomainError('invalid', 'Wrong or missing argument: a wallet keeps at least one Owner; make someone else Owner first');
    }
    if (role === null) {
      await trx.deleteFrom('wallet_members').where('wallet_id', '=', walletId).where('profile_id', '=', profileId).execute();
      await trx.deleteFrom('profile_wallets').where('wallet_id', '=', walletId).where('profile_id', '=', profileId).execute();
      // All of their sessions, not only this wallet's: a session is a person's, and they sign in again for the rest.
      await trx.updateTable('dashboard_sessions').set({ ended_at: BigInt(by.now) }).where('profile_id', '=', profileId).where('ended_at', 'is', null).execute();
    } else {
      await trx.updateTable('wallet_members').set({ role }).where('wallet_id', '=', walletId).where('profile_id', '=', profileId).execute();
      if (isRole(current.role) && raises(current.role, role)) {
        const notice = { kind: 'role_raised' as const, by: by.actorId === null ? 'the operator' : await emailOf(trx, by.actorId), member: email.trim().toLowerCase(), role, from_role: current.role };
        await noticeOwners(trx, { id: walletId, api_id: apiId }, notice, by.consoleUrl, by.now);
      }
    }
  });
}
