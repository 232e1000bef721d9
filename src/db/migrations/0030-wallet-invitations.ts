import type { SatgateMigration } from './helpers.ts';
import { sql } from 'kysely';
import { withId } from './helpers.ts';

/**
 * Invitations to a wallet's team (issue 40): an Owner invites an e-mail with a role; the mail carries a single-use
 * link whose token is stored only as its SHA-256 (`token_hash`). Valid until `expires_at` (7 days); `used_at` (and
 * `used_by`, the profile that signed in with that e-mail and joined) once accepted; `revoked_at` when an Owner
 * withdrew it. Rows stay after use so a second click on the link answers "already used", not "unknown".
 */
export const walletInvitations: SatgateMigration = {
  name: '0030-wallet-invitations',
  async up(db, engine) {
    await withId(db.schema.createTable('wallet_invitations'), engine)
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('Owner', 'Manager', 'Accountant', 'Cashier', 'Developer', 'Guest')`))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('invited_by', 'bigint', (c) => c.notNull().references('profiles.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .addColumn('used_by', 'bigint', (c) => c.references('profiles.id'))
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('wallet_invitations_wallet').on('wallet_invitations').column('wallet_id').execute();
  },
};
