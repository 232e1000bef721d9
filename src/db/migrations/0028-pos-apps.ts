import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * Point of sale apps (issue 36, item 1): a wallet's counter app at `/pos/<public_id>` (unguessable: the page's only
 * key), named to Greenfield by `app_id` (another random id, not a key: it travels in invoice metadata), its items
 * (price an exact decimal in the app's currency, `stock` null: not counted) and each charge it made: the payment,
 * the cart as the server priced it (`cart_json`), and `stock_applied_at`, set in the chain transaction that first
 * sees the payment paid (stock decrements then, once). `deleted_at`: deleted through the console or Greenfield (its
 * charges and their payments stay).
 */
export const posApps: SatgateMigration = {
  name: '0028-pos-apps',
  async up(db, engine) {
    await withId(db.schema.createTable('pos_apps'), engine)
      .addColumn('public_id', 'text', (c) => c.notNull().unique())
      .addColumn('app_id', 'text', (c) => c.notNull().unique())
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('app_name', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('keypad_only', 'bigint', (c) => c.notNull())
      .addColumn('custom_amount', 'bigint', (c) => c.notNull())
      .addColumn('tip_presets', 'text', (c) => c.notNull())
      .addColumn('custom_tip', 'bigint', (c) => c.notNull())
      .addColumn('default_language', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('deleted_at', 'bigint')
      .execute();
    await db.schema.createIndex('pos_apps_wallet').on('pos_apps').column('wallet_id').execute();
    await withId(db.schema.createTable('pos_items'), engine)
      .addColumn('app_id', 'bigint', (c) => c.notNull().references('pos_apps.id'))
      .addColumn('item_code', 'text', (c) => c.notNull())
      .addColumn('position', 'bigint', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('price', 'text', (c) => c.notNull())
      .addColumn('image_url', 'text')
      .addColumn('description', 'text')
      .addColumn('stock', 'bigint')
      .execute();
    await db.schema.createIndex('pos_items_code').on('pos_items').columns(['app_id', 'item_code']).unique().execute();
    await db.schema
      .createTable('pos_charges')
      .addColumn('payment_id', 'bigint', (c) => c.primaryKey().references('payments.id'))
      .addColumn('app_id', 'bigint', (c) => c.notNull().references('pos_apps.id'))
      .addColumn('cart_json', 'text', (c) => c.notNull())
      .addColumn('language', 'text')
      .addColumn('stock_applied_at', 'bigint')
      .addColumn('stock_taken_json', 'text')
      .addColumn('receipt_mail_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('pos_charges_app').on('pos_charges').column('app_id').execute();
  },
};
