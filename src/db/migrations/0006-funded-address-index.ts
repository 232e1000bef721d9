import { sql } from 'kysely';
import type { SatgateMigration } from './helpers.ts';

/**
 * Issuing an address asks for the wallet's last funded index (the gap limit check). Without this partial
 * index that read walks every address of the wallet, which grows slow past tens of thousands of addresses.
 */
export const fundedAddressIndex: SatgateMigration = {
  name: '0006-funded-address-index',
  async up(db) {
    await db.schema
      .createIndex('addresses_funded')
      .on('addresses')
      .columns(['wallet_id', 'derivation_index'])
      .where(sql.ref('first_funded_at'), 'is not', null)
      .execute();
  },
};
