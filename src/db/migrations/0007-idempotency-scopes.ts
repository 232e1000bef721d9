import { sql } from 'kysely';
import type { SatgateMigration } from './helpers.ts';

/**
 * Idempotency keys belong to a scope (the caller: `oauth-client:<id>` today, a partner or merchant key later)
 * instead of an OAuth client row, so every creation route can use the one store. The replayed answer is all a
 * retry needs, so the payment_id column goes. Existing keys keep working under their client's scope.
 */
export const idempotencyScopes: SatgateMigration = {
  name: '0007-idempotency-scopes',
  async up(db) {
    await db.schema
      .createTable('idempotency_records')
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('body_hash', 'text', (c) => c.notNull())
      .addColumn('response_json', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_records_pk', ['scope', 'key'])
      .execute();
    await sql`INSERT INTO idempotency_records (scope, "key", body_hash, response_json, created_at)
      SELECT 'oauth-client:' || CAST(client_id AS TEXT), "key", body_hash, response_json, created_at FROM idempotency_keys`.execute(db);
    await db.schema.dropTable('idempotency_keys').execute();
    await db.schema.alterTable('idempotency_records').renameTo('idempotency_keys').execute();
  },
};
