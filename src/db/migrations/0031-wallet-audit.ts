import type { SatgateMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * Store teams' audit trail (issue 40): every state-changing action a member (console, dashboard API, key
 * authorization) or a Greenfield API key took, written before the answer leaves (src/teams/audit.ts). `actor`: the
 * member's sign-in e-mail or the key's public id (`actor_kind` says which); `action`: the permission table's action
 * (null for the person's own things); `route`: `METHOD pattern`; `target`: the ids in the path; `detail`: a short
 * text a route adds (never a body, never a secret). `wallet_id` null: an action on no wallet (the profile, sign-out).
 */
export const walletAudit: SatgateMigration = {
  name: '0031-wallet-audit',
  async up(db, engine) {
    await withId(db.schema.createTable('wallet_audit'), engine)
      .addColumn('wallet_id', 'bigint', (c) => c.references('wallets.id'))
      .addColumn('actor_kind', 'text', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('profile_id', 'bigint')
      .addColumn('action', 'text')
      .addColumn('route', 'text', (c) => c.notNull())
      .addColumn('target', 'text')
      .addColumn('detail', 'text')
      .addColumn('status', 'bigint', (c) => c.notNull())
      .addColumn('ip', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('wallet_audit_wallet').on('wallet_audit').columns(['wallet_id', 'id']).execute();
  },
};
