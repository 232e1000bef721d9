import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * Payment requests (issue 36): a long-lived request for an amount in fiat or BTC, paid in one or several parts.
 * Each part is an ordinary payment of payment API v1 (its own rate lock, address and statuses), linked here; the
 * request's status is derived from its parts and its due date, never stored, so it cannot drift from them.
 * `request_id` is the unguessable public id (`/request/<id>`, Greenfield's paymentRequestId). `completed_mail_at`:
 * when the payer's "paid in full" mail was queued (once; null before).
 */
export const paymentRequests: SatgateMigration = {
  name: '0026-payment-requests',
  async up(db, engine) {
    await withId(db.schema.createTable('payment_requests'), engine)
      .addColumn('request_id', 'text', (c) => c.notNull().unique())
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('amount', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('due_at', 'bigint')
      .addColumn('payer_email', 'text')
      .addColumn('allow_partial', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('archived_at', 'bigint')
      .addColumn('completed_mail_at', 'bigint')
      .execute();
    await db.schema.createIndex('payment_requests_wallet').on('payment_requests').columns(['wallet_id', 'created_at']).execute();
    await db.schema
      .createTable('payment_request_parts')
      .addColumn('payment_id', 'bigint', (c) => c.primaryKey().references('payments.id'))
      .addColumn('request_row_id', 'bigint', (c) => c.notNull().references('payment_requests.id'))
      .addColumn('amount', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('payment_request_parts_request').on('payment_request_parts').column('request_row_id').execute();
  },
};
