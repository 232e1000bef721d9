import type { SatgateMigration } from './helpers.ts';
import { sql } from 'kysely';

/**
 * Store teams (issue 40, first slice): each member of a wallet with one role (Owner, Manager, Accountant, Cashier,
 * Developer, Guest; src/teams/permissions.ts says what each may do). `added_by`: the profile that added the member,
 * null when the association made it (registration, `satgate wallet associate`, the backfill). Every existing
 * association of a sign-in profile with a wallet becomes an Owner, so single-owner wallets need no action.
 * `profile_wallets` stays the visibility list; a member always has both rows (src/teams/members.ts keeps them together).
 */
export const walletMembers: SatgateMigration = {
  name: '0029-wallet-members',
  async up(db) {
    await db.schema
      .createTable('wallet_members')
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('profile_id', 'bigint', (c) => c.notNull().references('profiles.id'))
      .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('Owner', 'Manager', 'Accountant', 'Cashier', 'Developer', 'Guest')`))
      .addColumn('added_by', 'bigint', (c) => c.references('profiles.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('wallet_members_pk', ['wallet_id', 'profile_id'])
      .execute();
    await db.schema.createIndex('wallet_members_profile').on('wallet_members').column('profile_id').execute();
    await sql`insert into wallet_members (wallet_id, profile_id, role, added_by, created_at)
      select wallet_id, profile_id, 'Owner', null, created_at from profile_wallets`.execute(db);
  },
};
