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
];
