import type { SatgateMigration } from './helpers.ts';

/**
 * The account name is shown to payers (payment, form and refund pages), and add_pub, which needs no sign-in, may
 * change it (INTERFACE.md 4.1). Such a change is flagged until the wallet's owner saves the name in the console or
 * the dashboard API: `account_name_unconfirmed_at` is when it was last changed without a sign-in (null: nothing to
 * check), `account_name_previous` the name the owner last saw.
 */
export const unconfirmedAccountName: SatgateMigration = {
  name: '0019-unconfirmed-account-name',
  async up(db) {
    await db.schema.alterTable('wallets').addColumn('account_name_unconfirmed_at', 'bigint').execute();
    await db.schema.alterTable('wallets').addColumn('account_name_previous', 'text').execute();
  },
};
