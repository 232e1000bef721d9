import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * Spending from service-held wallets and refunds: each spend (a transaction the service built, or a
 * merchant-signed one it verified), its inputs and outputs, the coins it reserves (one row per coin, so
 * two spends can never reserve the same one), the transactions a fee bump replaced; refunds with their
 * transitions.
 *
 * Change addresses live in `addresses` with purpose 'change' and derivation_index -(i+1) for the key's
 * child 1/i: the foundation's unique (wallet_id, derivation_index) constraint cannot be dropped on SQLite
 * without rebuilding the table, and negative indexes leave every receive-chain query (max index, lowest
 * free index) unchanged.
 */
export const spendingRefunds: SatgateMigration = {
  name: '0011-spending-refunds',
  async up(db, engine) {
    // The key's origin (master fingerprint and path) when the operator gives it, for PSBTs hardware wallets sign.
    await db.schema.alterTable('wallets').addColumn('key_origin', 'text').execute();

    await withId(db.schema.createTable('spends'), engine)
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('reference', 'text')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('txid', 'text', (c) => c.notNull())
      .addColumn('raw_hex', 'text', (c) => c.notNull())
      .addColumn('fee_sats', 'bigint', (c) => c.notNull())
      .addColumn('fee_rate', 'bigint', (c) => c.notNull())
      .addColumn('vsize', 'bigint', (c) => c.notNull())
      .addColumn('change_address_id', 'bigint', (c) => c.references('addresses.id'))
      .addColumn('broadcast_attempts', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('broadcast_at', 'bigint')
      .addColumn('confirmed_at', 'bigint')
      .addUniqueConstraint('spends_reference', ['wallet_id', 'purpose', 'reference'])
      .execute();
    await db.schema.createIndex('spends_status').on('spends').column('status').execute();
    await db.schema.createIndex('spends_txid').on('spends').column('txid').execute();

    await withId(db.schema.createTable('spend_inputs'), engine)
      .addColumn('spend_id', 'bigint', (c) => c.notNull().references('spends.id'))
      .addColumn('n', 'bigint', (c) => c.notNull())
      .addColumn('output_id', 'bigint', (c) => c.notNull().references('chain_outputs.id'))
      .addColumn('txid', 'text', (c) => c.notNull())
      .addColumn('vout', 'bigint', (c) => c.notNull())
      .addColumn('value_sats', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('spend_inputs_n', ['spend_id', 'n'])
      .execute();

    await withId(db.schema.createTable('spend_outputs'), engine)
      .addColumn('spend_id', 'bigint', (c) => c.notNull().references('spends.id'))
      .addColumn('n', 'bigint', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('script_hex', 'text', (c) => c.notNull())
      .addColumn('amount_sats', 'bigint', (c) => c.notNull())
      .addColumn('is_change', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('spend_outputs_n', ['spend_id', 'n'])
      .execute();

    // The primary key is the coin: a second reservation of it fails inside the spend's transaction.
    await db.schema
      .createTable('coin_reservations')
      .addColumn('output_id', 'bigint', (c) => c.primaryKey().references('chain_outputs.id'))
      .addColumn('spend_id', 'bigint', (c) => c.notNull().references('spends.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('coin_reservations_spend').on('coin_reservations').column('spend_id').execute();

    await withId(db.schema.createTable('spend_replacements'), engine)
      .addColumn('spend_id', 'bigint', (c) => c.notNull().references('spends.id'))
      .addColumn('txid', 'text', (c) => c.notNull())
      .addColumn('raw_hex', 'text', (c) => c.notNull())
      .addColumn('fee_sats', 'bigint', (c) => c.notNull())
      .addColumn('fee_rate', 'bigint', (c) => c.notNull())
      .addColumn('replaced_at', 'bigint', (c) => c.notNull())
      .execute();

    await withId(db.schema.createTable('refunds'), engine)
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('profile_id', 'bigint', (c) => c.notNull())
      .addColumn('credit_txid', 'text', (c) => c.notNull())
      .addColumn('amount_sats', 'bigint', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('token_sealed', 'text', (c) => c.notNull())
      .addColumn('idempotency_key', 'text')
      .addColumn('payer_email', 'text')
      .addColumn('address', 'text')
      .addColumn('script_hex', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('spend_id', 'bigint', (c) => c.references('spends.id'))
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('refunds_idempotency', ['profile_id', 'credit_txid', 'idempotency_key'])
      .execute();
    await db.schema.createIndex('refunds_wallet_state').on('refunds').columns(['wallet_id', 'state']).execute();
    await db.schema.createIndex('refunds_credit').on('refunds').columns(['wallet_id', 'credit_txid']).execute();

    await withId(db.schema.createTable('refund_transitions'), engine)
      .addColumn('refund_id', 'bigint', (c) => c.notNull().references('refunds.id'))
      .addColumn('from_status', 'text')
      .addColumn('to_status', 'text', (c) => c.notNull())
      .addColumn('cause', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
