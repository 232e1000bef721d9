import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/** Wallets (registered account keys), the addresses issued from them, and their notes. */
export const foundation: SatgateMigration = {
  name: '0001-foundation',
  async up(db, engine) {
    await withId(db.schema.createTable('wallets'), engine)
      .addColumn('api_id', 'text', (c) => c.notNull().unique())
      .addColumn('pub', 'text', (c) => c.notNull().unique())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('script_type', 'text', (c) => c.notNull())
      .addColumn('wallet_type', 'bigint', (c) => c.notNull())
      .addColumn('local_currency', 'text', (c) => c.notNull())
      .addColumn('notification_email', 'text')
      .addColumn('return_url', 'text')
      .addColumn('account_name', 'text')
      .addColumn('account_type', 'text')
      .addColumn('info', 'text')
      .addColumn('required_confirmations', 'bigint', (c) => c.notNull().defaultTo(1))
      .addColumn('box_public_key', 'text', (c) => c.notNull())
      .addColumn('box_secret_sealed', 'text', (c) => c.notNull())
      .addColumn('sign_public_key', 'text', (c) => c.notNull())
      .addColumn('sign_secret_sealed', 'text', (c) => c.notNull())
      .addColumn('seed_sealed', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await withId(db.schema.createTable('addresses'), engine)
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('derivation_index', 'bigint', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull().unique())
      .addColumn('script_hex', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('reserved_until', 'bigint')
      .addColumn('first_funded_at', 'bigint')
      .addUniqueConstraint('addresses_wallet_index', ['wallet_id', 'derivation_index'])
      .execute();
    await db.schema.createIndex('addresses_script').on('addresses').column('script_hex').execute();

    await withId(db.schema.createTable('address_notes'), engine)
      .addColumn('address_id', 'bigint', (c) => c.notNull().references('addresses.id'))
      .addColumn('info', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('address_notes_address').on('address_notes').column('address_id').execute();
  },
};
