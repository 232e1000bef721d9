// The Greenfield capability as the app context holds it: keys, invoices, and what the routes read of the chains.
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { Payments } from '../payments/payments.ts';
import type { WalletRepository } from '../wallets/wallet-repository.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { ChainId } from '../chain/chain-id.ts';
import type { FollowerHealth } from '../chain/chain-source.ts';
import { GreenfieldKeys } from './api-keys.ts';
import { GreenfieldInvoices } from './invoices.ts';

/** Greenfield compatibility services. */
export interface Greenfield {
  keys: GreenfieldKeys;
  invoices: GreenfieldInvoices;
  repo: WalletRepository;
  config: { publicUrl: string; monitorWindowMs: number };
  /** The chain watcher's health for a wallet mode, when this process follows that chain. */
  chainHealth(mode: string): FollowerHealth | undefined;
}

/** What building it needs. */
export interface GreenfieldDeps {
  db: Db;
  clock: Clock;
  config: { publicUrl: string; monitorWindowMs: number };
  payments: Payments;
  repo: WalletRepository;
  chains: ChainService;
  isSupportedCurrency(code: string): boolean;
}

/** Builds the capability. */
export function createGreenfield(deps: GreenfieldDeps): Greenfield {
  return {
    keys: new GreenfieldKeys(deps.db, deps.clock),
    invoices: new GreenfieldInvoices(deps),
    repo: deps.repo,
    config: deps.config,
    chainHealth: (mode) => deps.chains.get(mode as ChainId)?.watcher.health(),
  };
}
