import type { SatgateMigration } from './helpers.ts';

/**
 * Wrong sign-in codes counted per profile (its e-mail) across codes, since its last sign-in (NIST SP 800-63B
 * 5.2.2): a code allows 5 wrong tries and a new code starts its own count, so without this row an e-mail could be
 * tried without end. `wait_until` is the time before which no code of this e-mail is compared: the growing wait
 * after the 10th wrong code in a row, and the 24-hour lockout from the 100th. A check begins by upserting the row
 * (a row lock on PostgreSQL, the write lock on SQLite), so concurrent checks of one e-mail are counted one by one.
 */
export const loginFailures: SatgateMigration = {
  name: '0018-login-failures',
  async up(db) {
    await db.schema
      .createTable('login_failures')
      .addColumn('profile_id', 'bigint', (c) => c.primaryKey().references('profiles.id'))
      .addColumn('failures', 'bigint', (c) => c.notNull())
      .addColumn('wait_until', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
