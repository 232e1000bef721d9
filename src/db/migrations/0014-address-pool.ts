import { sql } from 'kysely';
import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * Issue 16: a pool of pre-derived, not yet issued receiving addresses per wallet, so issuing one is a
 * claim of a row instead of a derivation under the wallet's lock. A separate table keeps pooled addresses
 * out of every listing, count, gap-limit check and the watched set until they are issued (moved to
 * `addresses` in the issuing transaction). Also an index for set_addr's "lowest free order address".
 */
export const addressPool: SatgateMigration = {
  name: '0014-address-pool',
  async up(db, engine) {
    await withId(db.schema.createTable('address_pool'), engine)
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('derivation_index', 'bigint', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull().unique())
      .addColumn('script_hex', 'text', (c) => c.notNull())
      /** The script type the address was encoded for; rows of another type are never claimed. */
      .addColumn('script_type', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('address_pool_wallet_index', ['wallet_id', 'derivation_index'])
      .execute();
    // set_addr reuses the lowest unfunded order address whose reservation lapsed; without this the lookup
    // walks every reserved address of the wallet.
    await db.schema
      .createIndex('addresses_free_orders')
      .on('addresses')
      .columns(['wallet_id', 'reserved_until', 'derivation_index'])
      .where((eb) => eb.and([eb(sql.ref('purpose'), '=', sql.lit('order')), eb(sql.ref('first_funded_at'), 'is', null)]))
      .execute();
  },
};
