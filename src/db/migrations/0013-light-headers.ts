import type { SatgateMigration } from './helpers.ts';

/**
 * Issue 21: the header chain a light source (Electrum, Esplora) verified, kept so a restart does not fetch and
 * check every header again from the checkpoint (about 13,000 Esplora requests on mainnet). One row per height of
 * the best verified chain; a reorganisation replaces the rows above the fork in one transaction. The raw 80
 * bytes are kept (the hash, work and links are recomputed from them when loaded); `hash` is there for reading
 * (`satgate status`) without parsing.
 */
export const lightHeaders: SatgateMigration = {
  name: '0013-light-headers',
  async up(db) {
    await db.schema
      .createTable('light_headers')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('height', 'bigint', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('header_hex', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('light_headers_pk', ['chain', 'height'])
      .execute();
  },
};
