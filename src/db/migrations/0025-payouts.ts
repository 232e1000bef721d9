import { withId, type SatgateMigration } from './helpers.ts';

/**
 * Greenfield pull payments in general (not refunds, which keep greenfield_pull_payments) and their payouts.
 * A pull payment is a limit in BTC a payee may claim; a payout is one claim to one address. A payout's state
 * is BTCPay's (AwaitingApproval, AwaitingPayment, InProgress, Completed, Cancelled); once approved on a
 * service-held wallet it is paid by a spend (`spend_id`) and follows that spend's status, so the chain decides
 * InProgress and Completed. `announced_state` is the state last sent to webhooks (PayoutUpdated once per change).
 */
export const payouts: SatgateMigration = {
  name: '0025-payouts',
  async up(db, engine) {
    await withId(db.schema.createTable('greenfield_pulls'), engine)
      .addColumn('public_id', 'text', (c) => c.notNull().unique())
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('amount_sats', 'bigint', (c) => c.notNull())
      .addColumn('auto_approve', 'integer', (c) => c.notNull())
      .addColumn('starts_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .addColumn('archived_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('greenfield_pulls_wallet').on('greenfield_pulls').columns(['wallet_id', 'id']).execute();

    await withId(db.schema.createTable('greenfield_payouts'), engine)
      .addColumn('public_id', 'text', (c) => c.notNull().unique())
      .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
      .addColumn('pull_id', 'bigint', (c) => c.notNull().references('greenfield_pulls.id'))
      .addColumn('destination', 'text', (c) => c.notNull())
      .addColumn('amount_sats', 'bigint', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('announced_state', 'text', (c) => c.notNull())
      .addColumn('spend_id', 'bigint', (c) => c.references('spends.id'))
      .addColumn('last_error', 'text')
      .addColumn('metadata_json', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('greenfield_payouts_wallet').on('greenfield_payouts').columns(['wallet_id', 'id']).execute();
    await db.schema.createIndex('greenfield_payouts_pull').on('greenfield_payouts').columns(['pull_id', 'id']).execute();
    await db.schema.createIndex('greenfield_payouts_spend').on('greenfield_payouts').column('spend_id').execute();
  },
};
