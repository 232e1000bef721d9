import type { SatgateMigration } from './helpers.ts';

/**
 * Leases elect the one process that runs the singleton work (chain watchers, rate refresher, sweepers) when
 * several share a PostgreSQL database. `token` grows on every change of holder: the fencing check compares it,
 * so a paused ex-holder cannot pass for the current one. Times are the database's epoch milliseconds. SQLite
 * has the table too (one schema for both engines) but never uses it: there the service is one process.
 */
export const leases: SatgateMigration = {
  name: '0015-leases',
  async up(db) {
    await db.schema
      .createTable('leases')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('token', 'bigint', (c) => c.notNull())
      .addColumn('acquired_at', 'bigint', (c) => c.notNull())
      .addColumn('renewed_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
