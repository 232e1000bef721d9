import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * What the chain watcher knows: per-chain tip, the blocks it processed (for reorg detection), every
 * transaction touching a watched script, its outputs to issued addresses and its spends of them, and
 * the orders that reserved addresses through set_addr.
 */
export const chain: SatgateMigration = {
  name: '0003-chain',
  async up(db, engine) {
    await db.schema
      .createTable('chain_tips')
      .addColumn('chain', 'text', (c) => c.primaryKey())
      .addColumn('tip_hash', 'text', (c) => c.notNull())
      .addColumn('tip_height', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('chain_blocks')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('height', 'bigint', (c) => c.notNull())
      .addColumn('prev_hash', 'text', (c) => c.notNull())
      .addColumn('time', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('chain_blocks_pk', ['chain', 'hash'])
      .execute();
    await db.schema.createIndex('chain_blocks_height').on('chain_blocks').columns(['chain', 'height']).execute();

    await withId(db.schema.createTable('chain_txs'), engine)
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('txid', 'text', (c) => c.notNull())
      .addColumn('locktime', 'bigint', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('block_hash', 'text')
      .addColumn('block_height', 'bigint')
      .addColumn('block_time', 'bigint')
      .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('withdrawn_at', 'bigint')
      .addColumn('withdrawn_reason', 'text')
      .addUniqueConstraint('chain_txs_txid', ['chain', 'txid'])
      .execute();
    await db.schema.createIndex('chain_txs_block').on('chain_txs').columns(['chain', 'block_height']).execute();
    await db.schema.createIndex('chain_txs_state').on('chain_txs').columns(['chain', 'state']).execute();

    await withId(db.schema.createTable('chain_outputs'), engine)
      .addColumn('tx_id', 'bigint', (c) => c.notNull().references('chain_txs.id'))
      .addColumn('vout', 'bigint', (c) => c.notNull())
      .addColumn('address_id', 'bigint', (c) => c.notNull().references('addresses.id'))
      .addColumn('value_sats', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('chain_outputs_outpoint', ['tx_id', 'vout'])
      .execute();
    await db.schema.createIndex('chain_outputs_address').on('chain_outputs').column('address_id').execute();

    await withId(db.schema.createTable('chain_spends'), engine)
      .addColumn('tx_id', 'bigint', (c) => c.notNull().references('chain_txs.id'))
      .addColumn('vin', 'bigint', (c) => c.notNull())
      .addColumn('output_id', 'bigint', (c) => c.notNull().references('chain_outputs.id'))
      .addUniqueConstraint('chain_spends_input', ['tx_id', 'vin'])
      .execute();
    await db.schema.createIndex('chain_spends_output').on('chain_spends').column('output_id').execute();

    await db.schema.alterTable('addresses').addColumn('purpose', 'text', (c) => c.notNull().defaultTo('order')).execute();

    await withId(db.schema.createTable('address_orders'), engine)
      .addColumn('address_id', 'bigint', (c) => c.notNull().references('addresses.id'))
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('client_txid', 'text')
      .addColumn('return_email', 'text')
      .addColumn('local_currency', 'text', (c) => c.notNull())
      .addColumn('order_amount', 'text')
      .addColumn('exchange_rate', 'text', (c) => c.notNull())
      .addColumn('exchange_rate_at', 'bigint', (c) => c.notNull())
      .addColumn('rate_lock_expires_at', 'bigint', (c) => c.notNull())
      .addColumn('client_public_key', 'text')
      .addColumn('payload_json', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('reserved_until', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('address_orders_address').on('address_orders').column('address_id').execute();
  },
};
