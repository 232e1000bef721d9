import type { SatgateMigration } from './helpers.ts';

/**
 * Greenfield's invoice archive (DELETE …/invoices/{id}): BTCPay never deletes an invoice, it hides it from lists,
 * so the payment, its chain history and its webhooks stay. `archived_at` is when it was archived (null: listed).
 * Also the store wallet's current receive address.
 */
export const greenfieldArchive: SatgateMigration = {
  name: '0023-greenfield-archive',
  async up(db) {
    await db.schema.alterTable('greenfield_invoices').addColumn('archived_at', 'bigint').execute();
    // The store wallet's current receive address (GET …/wallet/address answers it again until used or unreserved).
    await db.schema
      .createTable('greenfield_receive_addresses')
      .addColumn('wallet_id', 'bigint', (c) => c.primaryKey().references('wallets.id'))
      .addColumn('address_id', 'bigint', (c) => c.notNull().references('addresses.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
