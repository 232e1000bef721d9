import type { SatgateMigration } from './helpers.ts';

/**
 * Payment API v1: the spot rate at which an output first seen after a payment's `expiry_date` is valued.
 * Recorded once, at first sight, so every later derivation of the status values it the same way.
 */
export const paymentOutputRates: SatgateMigration = {
  name: '0005-payment-output-rates',
  async up(db) {
    await db.schema
      .createTable('payment_output_rates')
      .addColumn('payment_id', 'bigint', (c) => c.notNull().references('payments.id'))
      .addColumn('txid', 'text', (c) => c.notNull())
      .addColumn('vout', 'bigint', (c) => c.notNull())
      .addColumn('rate', 'text', (c) => c.notNull())
      .addColumn('rate_at', 'bigint', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('payment_output_rates_pk', ['payment_id', 'txid', 'vout'])
      .execute();
  },
};
