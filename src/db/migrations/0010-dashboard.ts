import { sql } from 'kysely';
import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * The merchant dashboard (operations 18 to 23): profiles, one-time codes (HMAC only), sessions (token hash
 * only), profile-to-wallet associations, database-held rate limits (so they hold across restarts and across
 * processes on one PostgreSQL) and the audit trail. Wallets remember the notification e-mail they were
 * registered with: add_pub can change `notification_email` without authentication, so only the e-mail given
 * at registration is proof enough to associate a wallet with a profile.
 */
export const dashboard: SatgateMigration = {
  name: '0010-dashboard',
  async up(db, engine) {
    await withId(db.schema.createTable('profiles'), engine)
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('firstname', 'text')
      .addColumn('lastname', 'text')
      .addColumn('mobile', 'text')
      .addColumn('country', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('dashboard_otps')
      .addColumn('profile_id', 'bigint', (c) => c.primaryKey().references('profiles.id'))
      // Random per code: part of the HMAC input and the version a conditional update checks.
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('failures', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('issued_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('pending_fields_json', 'text')
      .addColumn('requested_ip', 'text')
      .execute();

    await withId(db.schema.createTable('dashboard_sessions'), engine)
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('profile_id', 'bigint', (c) => c.notNull().references('profiles.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('ended_at', 'bigint')
      .addColumn('ip', 'text')
      .execute();
    await db.schema.createIndex('dashboard_sessions_profile').on('dashboard_sessions').column('profile_id').execute();

    await db.schema
      .createTable('profile_wallets')
      .addColumn('profile_id', 'bigint', (c) => c.notNull().references('profiles.id'))
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('via', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('profile_wallets_pk', ['profile_id', 'wallet_id'])
      .execute();
    await db.schema.createIndex('profile_wallets_wallet').on('profile_wallets').column('wallet_id').execute();

    // One row per limited key: the upsert at the start of a check locks it (PostgreSQL row lock, SQLite
    // write lock), so concurrent requests of any process count the same events.
    await db.schema
      .createTable('rate_limit_buckets')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('touched_at', 'bigint', (c) => c.notNull())
      .execute();
    await withId(db.schema.createTable('rate_limit_events'), engine)
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('rate_limit_events_key_at').on('rate_limit_events').columns(['key', 'at']).execute();

    await withId(db.schema.createTable('audit_events'), engine)
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('profile_id', 'bigint')
      .addColumn('email', 'text')
      .addColumn('ip', 'text')
      .addColumn('detail_json', 'text')
      .execute();
    await db.schema.createIndex('audit_events_email').on('audit_events').columns(['email', 'at']).execute();
    await db.schema.createIndex('audit_events_at').on('audit_events').column('at').execute();

    await db.schema.alterTable('wallets').addColumn('registration_email', 'text').execute();
    await sql`update wallets set registration_email = lower(notification_email) where notification_email is not null`.execute(db);
  },
};
