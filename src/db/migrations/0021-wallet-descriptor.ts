import type { SatgateMigration } from './helpers.ts';

/**
 * Wallets of every kind (issue 32): `descriptor` holds the canonical output descriptor (BIP380 checksum, receive and
 * change as one BIP389 `<0;1>` step) of a wallet registered from a descriptor, a BTCPay derivation scheme or a
 * multisig cosigner set; null for a wallet registered from one extended key, which derives from `pub` and
 * `script_type` as before. Unique: one descriptor, whichever form it was registered in, is one wallet.
 */
export const walletDescriptor: SatgateMigration = {
  name: '0021-wallet-descriptor',
  async up(db) {
    await db.schema.alterTable('wallets').addColumn('descriptor', 'text').execute();
    await db.schema.createIndex('wallets_descriptor').on('wallets').column('descriptor').unique().execute();
  },
};
