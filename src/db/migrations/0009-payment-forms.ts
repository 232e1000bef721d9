import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * Payment forms (operations 13 and 14) and the order state of forms and set_addr orders (6.2):
 * forms with their rate locks (the first one and each refresh), the order-status transitions of
 * both kinds of order (one table each), the derived state columns of set_addr orders, and the
 * order an outbox event belongs to (so deliveries can be listed by form token or order address).
 */
export const paymentForms: SatgateMigration = {
  name: '0009-payment-forms',
  async up(db, engine) {
    await withId(db.schema.createTable('payment_forms'), engine)
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('address_id', 'bigint', (c) => c.notNull().references('addresses.id'))
      .addColumn('order_id', 'text', (c) => c.notNull())
      .addColumn('order_amount', 'text', (c) => c.notNull())
      .addColumn('order_currency', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text')
      .addColumn('user_email', 'text')
      .addColumn('payment_cancel_url', 'text', (c) => c.notNull())
      .addColumn('payment_complete_url', 'text', (c) => c.notNull())
      .addColumn('payment_update_url', 'text', (c) => c.notNull())
      .addColumn('site_name', 'text', (c) => c.notNull())
      .addColumn('user_fields_json', 'text', (c) => c.notNull())
      .addColumn('auth_token_sealed', 'text', (c) => c.notNull())
      .addColumn('auth_token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('fields_submitted_at', 'bigint')
      .addColumn('lock_expires_at', 'bigint', (c) => c.notNull())
      .addColumn('order_status', 'text', (c) => c.notNull())
      .addColumn('payment_status', 'text', (c) => c.notNull())
      .addColumn('status_at', 'bigint', (c) => c.notNull())
      .addColumn('tx_snapshot_json', 'text', (c) => c.notNull())
      .addColumn('open_txs', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('payment_forms_address').on('payment_forms').column('address_id').execute();
    await db.schema.createIndex('payment_forms_status').on('payment_forms').columns(['order_status', 'lock_expires_at']).execute();

    await withId(db.schema.createTable('form_rate_locks'), engine)
      .addColumn('form_id', 'bigint', (c) => c.notNull().references('payment_forms.id'))
      .addColumn('rate_lock_id', 'bigint', (c) => c.notNull().references('rate_locks.id'))
      .addColumn('rate', 'text', (c) => c.notNull())
      .addColumn('rate_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('form_rate_locks_form').on('form_rate_locks').column('form_id').execute();

    // One transition table per record kind, as notify/status-transition.ts expects.
    await withId(db.schema.createTable('form_transitions'), engine)
      .addColumn('form_id', 'bigint', (c) => c.notNull().references('payment_forms.id'))
      .addColumn('from_status', 'text')
      .addColumn('to_status', 'text', (c) => c.notNull())
      .addColumn('cause', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('form_transitions_form').on('form_transitions').column('form_id').execute();
    await withId(db.schema.createTable('address_order_transitions'), engine)
      .addColumn('address_order_id', 'bigint', (c) => c.notNull().references('address_orders.id'))
      .addColumn('from_status', 'text')
      .addColumn('to_status', 'text', (c) => c.notNull())
      .addColumn('cause', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('address_order_transitions_order').on('address_order_transitions').column('address_order_id').execute();

    // The spot rate an output first seen after its order's rate lock ran out is valued at, recorded at first sight.
    await db.schema
      .createTable('order_output_rates')
      .addColumn('order_kind', 'text', (c) => c.notNull())
      .addColumn('order_id', 'bigint', (c) => c.notNull())
      .addColumn('txid', 'text', (c) => c.notNull())
      .addColumn('vout', 'bigint', (c) => c.notNull())
      .addColumn('rate', 'text', (c) => c.notNull())
      .addColumn('rate_at', 'bigint', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('order_output_rates_pk', ['order_kind', 'order_id', 'txid', 'vout'])
      .execute();

    await db.schema.alterTable('address_orders').addColumn('order_status', 'text').execute();
    await db.schema.alterTable('address_orders').addColumn('payment_status', 'text').execute();
    await db.schema.alterTable('address_orders').addColumn('status_at', 'bigint').execute();
    await db.schema.alterTable('address_orders').addColumn('tx_snapshot_json', 'text').execute();
    await db.schema.alterTable('address_orders').addColumn('open_txs', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('address_orders').addColumn('auth_token_sealed', 'text').execute();

    // What the tracker looks for on every block (transactions awaiting confirmation) and the sweeper on the clock.
    await db.schema.createIndex('payment_forms_open_txs').on('payment_forms').column('open_txs').execute();
    await db.schema.createIndex('address_orders_open_txs').on('address_orders').column('open_txs').execute();
    await db.schema.createIndex('address_orders_status').on('address_orders').columns(['order_status', 'reserved_until']).execute();

    await db.schema.alterTable('outbox').addColumn('order_kind', 'text').execute();
    await db.schema.alterTable('outbox').addColumn('order_id', 'bigint').execute();
    await db.schema.createIndex('outbox_order').on('outbox').columns(['order_kind', 'order_id']).execute();
  },
};
