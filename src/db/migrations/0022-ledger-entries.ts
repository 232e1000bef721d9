import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * The merchant's ledger (issue 34): append-only rows, one per money fact of a wallet (an incoming output, a spend)
 * with the fiat value at the moment it was first seen. A fact the chain takes back (double spend, reorg) gets a
 * reversing row (`reverses_id`) instead of an edit, so an export taken earlier stays true. The only column written
 * after insert is the first confirmation (`confirmed_*`), once, from null.
 */
export const ledgerEntries: SatgateMigration = {
  name: '0022-ledger-entries',
  async up(db, engine) {
    await withId(db.schema.createTable('ledger_entries'), engine)
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('reverses_id', 'bigint', (c) => c.references('ledger_entries.id'))
      .addColumn('reason', 'text')
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('txid', 'text', (c) => c.notNull())
      .addColumn('vout', 'bigint')
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('amount_sats', 'bigint', (c) => c.notNull())
      .addColumn('fee_sats', 'bigint')
      .addColumn('ref_kind', 'text')
      .addColumn('ref', 'text')
      .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('confirmed_height', 'bigint')
      .addColumn('confirmed_block_hash', 'text')
      .addColumn('confirmed_at', 'bigint')
      .addColumn('late', 'bigint', (c) => c.notNull())
      .addColumn('paid', 'text')
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('rate', 'text')
      .addColumn('rate_source', 'text')
      .addColumn('rate_at', 'bigint')
      .addColumn('rate_estimated', 'bigint', (c) => c.notNull())
      .addColumn('fiat_value', 'text')
      .addColumn('locked_rate', 'text')
      .addColumn('invoiced_amount', 'text')
      .addColumn('invoiced_currency', 'text')
      .addColumn('recorded_at', 'bigint', (c) => c.notNull())
      .execute();
    // One reversal per row at most: two syncs racing cannot take a fact back twice.
    await db.schema.createIndex('ledger_entries_reverses').unique().on('ledger_entries').column('reverses_id').execute();
    await db.schema.createIndex('ledger_entries_wallet_at').on('ledger_entries').columns(['wallet_id', 'at', 'id']).execute();
    // The chain change listener reads a change's transactions' rows by txid: without this it scans the wallet's rows.
    await db.schema.createIndex('ledger_entries_wallet_txid').on('ledger_entries').columns(['wallet_id', 'chain', 'txid']).execute();
  },
};
