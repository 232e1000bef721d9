import { withId, type SatgateMigration } from './helpers.ts';

/**
 * Greenfield (BTCPay-compatible) webhooks: each store (wallet) may register several, each with its own URL and
 * signing secret (sealed with the master key: the secret must be readable to sign, so it cannot be hashed).
 * Deliveries are ordinary outbox rows, marked with the webhook they belong to (`outbox.greenfield_webhook_id`),
 * so they share the durable queue, the SSRF-guarded sender and the 3-day retry schedule. What was already
 * announced about each invoice (`greenfield_event_marks`) makes every event happen once, whichever process
 * or path (chain change, sweep, manual marking) notices it. Refunds asked for through Greenfield's pull-payment
 * route keep their Greenfield face in `greenfield_pull_payments`.
 */
export const greenfieldWebhooks: SatgateMigration = {
  name: '0017-greenfield-webhooks',
  async up(db, engine) {
    await withId(db.schema.createTable('greenfield_webhooks'), engine)
      .addColumn('public_id', 'text', (c) => c.notNull().unique())
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('automatic_redelivery', 'integer', (c) => c.notNull())
      .addColumn('everything', 'integer', (c) => c.notNull())
      .addColumn('specific_events', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('greenfield_webhooks_wallet').on('greenfield_webhooks').column('wallet_id').execute();

    await db.schema.alterTable('outbox').addColumn('greenfield_webhook_id', 'bigint').execute();
    await db.schema.createIndex('outbox_greenfield_webhook').on('outbox').columns(['greenfield_webhook_id', 'id']).execute();

    await db.schema
      .createTable('greenfield_event_marks')
      .addColumn('payment_id', 'bigint', (c) => c.notNull().references('payments.id'))
      .addColumn('mark', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('greenfield_event_marks_pk', ['payment_id', 'mark'])
      .execute();
    // The Greenfield status last announced per invoice (null before InvoiceCreated).
    await db.schema
      .createTable('greenfield_event_status')
      .addColumn('payment_id', 'bigint', (c) => c.primaryKey().references('payments.id'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('additional_status', 'text', (c) => c.notNull())
      .addColumn('expiry_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // The expiry sweep looks for invoices still announced New or Processing past their expiry.
    await db.schema.createIndex('greenfield_event_status_open').on('greenfield_event_status').columns(['status', 'expiry_at']).execute();

    await withId(db.schema.createTable('greenfield_pull_payments'), engine)
      .addColumn('public_id', 'text', (c) => c.notNull().unique())
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('refund_id', 'bigint', (c) => c.notNull().references('refunds.id'))
      .addColumn('payment_id', 'bigint', (c) => c.notNull().references('payments.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('amount', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
