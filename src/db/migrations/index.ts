import type { SatgateMigration } from './helpers.ts';
import { foundation } from './0001-foundation.ts';
import { rates } from './0002-rates.ts';
import { chain } from './0003-chain.ts';
import { payments } from './0004-payments.ts';
import { paymentOutputRates } from './0005-payment-output-rates.ts';
import { fundedAddressIndex } from './0006-funded-address-index.ts';
import { idempotencyScopes } from './0007-idempotency-scopes.ts';
import { paymentForms } from './0009-payment-forms.ts';
import { dashboard } from './0010-dashboard.ts';
import { spendingRefunds } from './0011-spending-refunds.ts';
import { partners } from './0012-partners.ts';
import { lightHeaders } from './0013-light-headers.ts';
import { addressPool } from './0014-address-pool.ts';
import { leases } from './0015-leases.ts';
import { greenfield } from './0016-greenfield.ts';
import { greenfieldWebhooks } from './0017-greenfield-webhooks.ts';
import { loginFailures } from './0018-login-failures.ts';
import { unconfirmedAccountName } from './0019-unconfirmed-account-name.ts';
import { payerReceipts } from './0020-payer-receipts.ts';
import { walletDescriptor } from './0021-wallet-descriptor.ts';
import { ledgerEntries } from './0022-ledger-entries.ts';
import { greenfieldArchive } from './0023-greenfield-archive.ts';
import { payerLanguages } from './0024-payer-languages.ts';
import { payouts } from './0025-payouts.ts';
import { paymentRequests } from './0026-payment-requests.ts';
import { payButtons } from './0027-pay-buttons.ts';
import { posApps } from './0028-pos-apps.ts';
import { walletMembers } from './0029-wallet-members.ts';
import { walletInvitations } from './0030-wallet-invitations.ts';
import { walletAudit } from './0031-wallet-audit.ts';

/** Every migration in order; append only, never edit a released one. */
export const MIGRATIONS: readonly SatgateMigration[] = [
  foundation,
  rates,
  chain,
  payments,
  paymentOutputRates,
  fundedAddressIndex,
  idempotencyScopes,
  paymentForms,
  dashboard,
  spendingRefunds,
  partners,
  lightHeaders,
  addressPool,
  leases,
  greenfield,
  greenfieldWebhooks,
  loginFailures,
  unconfirmedAccountName,
  payerReceipts,
  walletDescriptor,
  ledgerEntries,
  greenfieldArchive,
  payerLanguages,
  payouts,
  paymentRequests,
  payButtons,
  posApps,
  walletMembers,
  walletInvitations,
  walletAudit,
];
