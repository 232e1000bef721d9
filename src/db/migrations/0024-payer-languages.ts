import type { SatgateMigration } from './helpers.ts';

/**
 * The payer's language (issue 35). `wallets.default_language` is the merchant's default for the wallet's payer pages
 * and e-mails (a supported tag; null: none, the payer's browser decides). `greenfield_invoices.default_language` is the
 * supported language a Greenfield invoice's `checkout.defaultLanguage` names (null: none given). The payer's own
 * language is recorded when they act, in the language the page they acted on was shown in:
 * `payment_forms.receipt_language` when they ask for a receipt, `refunds.payer_language` when they set the refund
 * address; the e-mail that follows is written in it.
 */
export const payerLanguages: SatgateMigration = {
  name: '0024-payer-languages',
  async up(db) {
    await db.schema.alterTable('wallets').addColumn('default_language', 'text').execute();
    await db.schema.alterTable('greenfield_invoices').addColumn('default_language', 'text').execute();
    await db.schema.alterTable('payment_forms').addColumn('receipt_language', 'text').execute();
    await db.schema.alterTable('refunds').addColumn('payer_language', 'text').execute();
  },
};
