import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * BTCPay Greenfield compatibility (issue 19): API keys scoped to one store (a wallet) with BTCPay's permission
 * strings, stored hashed and revocable; invoices, each one payment of payment API v1 with the Greenfield
 * metadata echoed and its checkout settings; manual markings with their cause. A payment may ask for its own
 * number of confirmations (Greenfield's speedPolicy); null keeps the wallet's.
 */
export const greenfield: SatgateMigration = {
  name: '0016-greenfield',
  async up(db, engine) {
    await db.schema.alterTable('payments').addColumn('required_confirmations', 'bigint').execute();

    await withId(db.schema.createTable('greenfield_api_keys'), engine)
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('key_hint', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull().unique())
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('store_id', 'text', (c) => c.notNull())
      .addColumn('permissions_json', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('greenfield_api_keys_store').on('greenfield_api_keys').column('store_id').execute();

    await withId(db.schema.createTable('greenfield_invoices'), engine)
      .addColumn('invoice_id', 'text', (c) => c.notNull().unique())
      .addColumn('payment_id', 'bigint', (c) => c.notNull().unique().references('payments.id'))
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('store_id', 'text', (c) => c.notNull())
      .addColumn('order_id', 'text')
      .addColumn('amount', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('metadata_json', 'text', (c) => c.notNull())
      .addColumn('checkout_json', 'text', (c) => c.notNull())
      .addColumn('payment_tolerance', 'text', (c) => c.notNull())
      .addColumn('manual_status', 'text')
      .addColumn('manual_at', 'bigint')
      .addColumn('created_by_key', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('greenfield_invoices_store').on('greenfield_invoices').columns(['store_id', 'created_at']).execute();
    await db.schema.createIndex('greenfield_invoices_order').on('greenfield_invoices').columns(['store_id', 'order_id']).execute();

    await withId(db.schema.createTable('greenfield_invoice_marks'), engine)
      .addColumn('invoice_row_id', 'bigint', (c) => c.notNull().references('greenfield_invoices.id'))
      .addColumn('from_status', 'text', (c) => c.notNull())
      .addColumn('to_status', 'text', (c) => c.notNull())
      .addColumn('cause', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('greenfield_invoice_marks_invoice').on('greenfield_invoice_marks').column('invoice_row_id').execute();
  },
};
