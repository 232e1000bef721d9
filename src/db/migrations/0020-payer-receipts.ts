import type { SatgateMigration } from './helpers.ts';

/**
 * A payment form's payer may ask for a receipt by e-mail ("E-mail me a receipt", unchecked by default): consent is
 * stored with the order. `receipt_requested_at` is when the payer asked (null: no consent), `receipt_link_sealed` the
 * order page's address sealed with the master key (the form token in it is otherwise kept only hashed, and the receipt
 * links to the page), `receipt_queued_at` when the receipt went into the outbox, in the transaction that made the
 * order paid and confirmed (null: not yet), so a reorg that takes the confirmation away and gives it back sends no
 * second receipt.
 */
export const payerReceipts: SatgateMigration = {
  name: '0020-payer-receipts',
  async up(db) {
    await db.schema.alterTable('payment_forms').addColumn('receipt_requested_at', 'bigint').execute();
    await db.schema.alterTable('payment_forms').addColumn('receipt_link_sealed', 'text').execute();
    await db.schema.alterTable('payment_forms').addColumn('receipt_queued_at', 'bigint').execute();
  },
};
