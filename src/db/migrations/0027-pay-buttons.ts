import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * Pay buttons (issue 36, item 3): a merchant's button on a wallet, reached at `/button/<public_id>` from a plain
 * HTML form on any page. `amount` is the fixed amount (exact decimal in `currency`), or null when the payer
 * chooses it between `min_amount` and `max_amount`. Each payment a button created is linked in `pay_button_payments`.
 */
export const payButtons: SatgateMigration = {
  name: '0027-pay-buttons',
  async up(db, engine) {
    await withId(db.schema.createTable('pay_buttons'), engine)
      .addColumn('public_id', 'text', (c) => c.notNull().unique())
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('amount', 'text')
      .addColumn('min_amount', 'text')
      .addColumn('max_amount', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('pay_buttons_wallet').on('pay_buttons').column('wallet_id').execute();
    await db.schema
      .createTable('pay_button_payments')
      .addColumn('payment_id', 'bigint', (c) => c.primaryKey().references('payments.id'))
      .addColumn('button_id', 'bigint', (c) => c.notNull().references('pay_buttons.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('pay_button_payments_button').on('pay_button_payments').column('button_id').execute();
  },
};
