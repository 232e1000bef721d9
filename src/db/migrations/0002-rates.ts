import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * Exchange rates: one row per stored rate record (each refresh, and each past day fetched from a provider's
 * history), with its prices as JSON text of decimal strings; and the rate locks other capabilities take.
 */
export const rates: SatgateMigration = {
  name: '0002-rates',
  async up(db, engine) {
    await withId(db.schema.createTable('rate_records'), engine)
      .addColumn('rate_at', 'bigint', (c) => c.notNull())
      .addColumn('fetched_at', 'bigint', (c) => c.notNull())
      .addColumn('origin', 'text', (c) => c.notNull())
      .addColumn('rates_json', 'text', (c) => c.notNull())
      .addColumn('sources_json', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('rate_records_at').on('rate_records').columns(['rate_at']).execute();
    await db.schema.createIndex('rate_records_origin_at').on('rate_records').columns(['origin', 'rate_at']).execute();

    await withId(db.schema.createTable('rate_locks'), engine)
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('rate', 'text', (c) => c.notNull())
      .addColumn('rate_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
