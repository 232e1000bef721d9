import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * Partners (operator-issued keys), their merchants' service-held wallets, KYC documents, withdrawals,
 * and the status transitions of partner wallets and withdrawals. Personal data and documents are sealed.
 */
export const partners: SatgateMigration = {
  name: '0012-partners',
  async up(db, engine) {
    await withId(db.schema.createTable('partners'), engine)
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('key_hint', 'text', (c) => c.notNull())
      .addColumn('settlement_address', 'text', (c) => c.notNull())
      .addColumn('webhook_url', 'text')
      .addColumn('webhook_secret_sealed', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();

    await withId(db.schema.createTable('partner_wallets'), engine)
      .addColumn('partner_id', 'bigint', (c) => c.notNull().references('partners.id'))
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().unique().references('wallets.id'))
      .addColumn('partner_merchant_id', 'text', (c) => c.notNull())
      .addColumn('merchant_name', 'text', (c) => c.notNull())
      .addColumn('merchant_key_hash', 'text', (c) => c.notNull())
      .addColumn('withdrawal_key_hash', 'text', (c) => c.notNull())
      .addColumn('wallet_status', 'text', (c) => c.notNull())
      .addColumn('status_reason', 'text')
      .addColumn('status_at', 'bigint', (c) => c.notNull())
      .addColumn('contact_sealed', 'text', (c) => c.notNull())
      .addColumn('bank_info_sealed', 'text', (c) => c.notNull())
      .addColumn('metadata_sealed', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('partner_wallets_partner_merchant', ['partner_id', 'partner_merchant_id'])
      .execute();

    await withId(db.schema.createTable('kyc_documents'), engine)
      .addColumn('partner_wallet_id', 'bigint', (c) => c.notNull().references('partner_wallets.id'))
      .addColumn('doc_id', 'text', (c) => c.notNull())
      .addColumn('mime_type', 'text', (c) => c.notNull())
      .addColumn('size_bytes', 'bigint', (c) => c.notNull())
      .addColumn('description_sealed', 'text', (c) => c.notNull())
      .addColumn('content_sealed', 'text', (c) => c.notNull())
      .addColumn('metadata_sealed', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('kyc_documents_wallet_doc', ['partner_wallet_id', 'doc_id'])
      .execute();

    await withId(db.schema.createTable('withdrawals'), engine)
      .addColumn('withdrawal_id', 'text', (c) => c.notNull().unique())
      .addColumn('partner_wallet_id', 'bigint', (c) => c.notNull().references('partner_wallets.id'))
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('amount', 'text', (c) => c.notNull())
      .addColumn('exchange_rate', 'text', (c) => c.notNull())
      .addColumn('crypto_sats', 'bigint', (c) => c.notNull())
      .addColumn('fee_estimate_sats', 'bigint', (c) => c.notNull())
      .addColumn('rate_lock_id', 'bigint')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('status_at', 'bigint', (c) => c.notNull())
      .addColumn('failure_reason', 'text')
      .addColumn('settlement_address', 'text', (c) => c.notNull())
      .addColumn('spend_id', 'bigint', (c) => c.references('spends.id'))
      .addColumn('txid', 'text')
      .addColumn('send_attempts', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('confirmed_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('withdrawals_wallet_status').on('withdrawals').columns(['wallet_id', 'status']).execute();

    await withId(db.schema.createTable('partner_wallet_transitions'), engine)
      .addColumn('partner_wallet_id', 'bigint', (c) => c.notNull().references('partner_wallets.id'))
      .addColumn('from_status', 'text')
      .addColumn('to_status', 'text', (c) => c.notNull())
      .addColumn('cause', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('partner_wallet_transitions_wallet').on('partner_wallet_transitions').column('partner_wallet_id').execute();

    await withId(db.schema.createTable('withdrawal_transitions'), engine)
      .addColumn('withdrawal_id', 'bigint', (c) => c.notNull().references('withdrawals.id'))
      .addColumn('from_status', 'text')
      .addColumn('to_status', 'text', (c) => c.notNull())
      .addColumn('cause', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('withdrawal_transitions_withdrawal').on('withdrawal_transitions').column('withdrawal_id').execute();
  },
};
