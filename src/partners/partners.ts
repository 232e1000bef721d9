// The partners capability: partner keys, partner merchant wallets and KYC (withdrawals of those wallets:
// src/withdrawals/). One factory; the routes and the CLI use what it returns.
import type { Config } from '../config/config.ts';
import type { Kernel } from '../config/kernel.ts';
import type { Rates } from '../rates/rates-port.ts';
import { PartnerKeys } from './partner-keys.ts';
import { PartnerWallets } from './partner-wallets.ts';
import { Kyc } from './kyc.ts';

/** What the partners capability needs from the process. */
export interface PartnersDeps extends Kernel<Pick<Config, 'testNetwork' | 'allowPrivateWebhooks'>> {
  rates: Rates;
  isSupportedCurrency(code: string): boolean;
}

/** The capability's parts. */
export interface Partners {
  keys: PartnerKeys;
  wallets: PartnerWallets;
  kyc: Kyc;
}

/** Builds the partners capability. */
export function createPartners(deps: PartnersDeps): Partners {
  const keys = new PartnerKeys(deps.db, deps.masterKey, { testNetwork: deps.config.testNetwork, allowPrivateWebhooks: deps.config.allowPrivateWebhooks });
  const wallets = new PartnerWallets(deps);
  const kyc = new Kyc(deps.db, deps.masterKey, deps.clock, wallets);
  return { keys, wallets, kyc };
}
