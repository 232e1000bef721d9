import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * Payment API v1: OAuth clients and tokens, webhook secrets per wallet, payment requests with their
 * status transitions, idempotency keys, and the durable outbox (webhooks and e-mails) with delivery attempts.
 */
export const payments: SatgateMigration = {
  name: '0004-payments',
  async up(db, engine) {
    await withId(db.schema.createTable('oauth_clients'), engine)
      .addColumn('client_id', 'text', (c) => c.notNull().unique())
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema
      .createTable('oauth_client_wallets')
      .addColumn('client_id', 'bigint', (c) => c.notNull().references('oauth_clients.id'))
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addPrimaryKeyConstraint('oauth_client_wallets_pk', ['client_id', 'wallet_id'])
      .execute();
    await withId(db.schema.createTable('oauth_tokens'), engine)
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('client_id', 'bigint', (c) => c.notNull().references('oauth_clients.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('webhook_secrets')
      .addColumn('wallet_id', 'bigint', (c) => c.primaryKey().references('wallets.id'))
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      .addColumn('previous_secret_sealed', 'text')
      .addColumn('previous_valid_until', 'bigint')
      .addColumn('rotated_at', 'bigint', (c) => c.notNull())
      .execute();

    await withId(db.schema.createTable('payments'), engine)
      .addColumn('reference', 'text', (c) => c.notNull().unique())
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('address_id', 'bigint', (c) => c.notNull().references('addresses.id'))
      .addColumn('client_id', 'bigint', (c) => c.references('oauth_clients.id'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('crypto_currency', 'text', (c) => c.notNull())
      .addColumn('crypto_sats', 'bigint', (c) => c.notNull())
      .addColumn('order_currency', 'text', (c) => c.notNull())
      .addColumn('order_amount', 'text', (c) => c.notNull())
      .addColumn('exchange_rate', 'text', (c) => c.notNull())
      .addColumn('rate_lock_id', 'bigint')
      .addColumn('expiry_at', 'bigint', (c) => c.notNull())
      .addColumn('monitor_until', 'bigint', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('status_at', 'bigint', (c) => c.notNull())
      .addColumn('confirmed_sats', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('unconfirmed_sats', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('confirmed_order_amount', 'text', (c) => c.notNull().defaultTo('0'))
      .addColumn('unconfirmed_order_amount', 'text', (c) => c.notNull().defaultTo('0'))
      .addColumn('request_json', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('payments_address').on('payments').column('address_id').execute();
    await db.schema.createIndex('payments_status').on('payments').column('status').execute();

    await withId(db.schema.createTable('payment_transitions'), engine)
      .addColumn('payment_id', 'bigint', (c) => c.notNull().references('payments.id'))
      .addColumn('from_status', 'text')
      .addColumn('to_status', 'text', (c) => c.notNull())
      .addColumn('cause', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('payment_transitions_payment').on('payment_transitions').column('payment_id').execute();

    await db.schema
      .createTable('idempotency_keys')
      .addColumn('client_id', 'bigint', (c) => c.notNull().references('oauth_clients.id'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('body_hash', 'text', (c) => c.notNull())
      .addColumn('payment_id', 'bigint', (c) => c.references('payments.id'))
      .addColumn('response_json', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['client_id', 'key'])
      .execute();

    await withId(db.schema.createTable('outbox'), engine)
      .addColumn('event_id', 'text', (c) => c.notNull().unique())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('wallet_id', 'bigint', (c) => c.references('wallets.id'))
      .addColumn('payment_id', 'bigint', (c) => c.references('payments.id'))
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('payload_json', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_until', 'bigint')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('delivered_at', 'bigint')
      .execute();
    await db.schema.createIndex('outbox_due').on('outbox').columns(['state', 'next_attempt_at']).execute();
    await db.schema.createIndex('outbox_payment').on('outbox').column('payment_id').execute();

    await withId(db.schema.createTable('outbox_attempts'), engine)
      .addColumn('outbox_id', 'bigint', (c) => c.notNull().references('outbox.id'))
      .addColumn('attempt', 'bigint', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('http_status', 'bigint')
      .addColumn('error', 'text')
      .addColumn('duration_ms', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('outbox_attempts_outbox').on('outbox_attempts').column('outbox_id').execute();
  },
};
