// The payment API v1 capability as the app context holds it: OAuth clients, the payment service
// (operations 26 to 29 and the hosted page's lookup) and the status machine wired to the chains.
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { Config } from '../config/config.ts';
import type { Rates } from '../rates/rates-port.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { AddressIssuer } from '../wallets/address-issuer.ts';
import type { WalletRepository } from '../wallets/wallet-repository.ts';
import type { PaymentPageData } from '../pages/payment-page.ts';
import { OAuthClients } from './oauth.ts';
import { PaymentService } from './payment-service.ts';
import { PaymentStatusMachine } from './status-machine.ts';
import { IdempotencyStore } from '../db/idempotency-store.ts';

/** Payment API v1 services; `publicRecord` is what the hosted page (src/pages) reads. */
export interface Payments {
  oauth: OAuthClients;
  service: PaymentService;
  machine: PaymentStatusMachine;
  publicRecord(reference: string): Promise<PaymentPageData | null>;
}

/** What building the capability needs from the context. */
export interface PaymentsDeps {
  config: Pick<Config, 'publicUrl' | 'monitorWindowMs' | 'allowPrivateWebhooks'>;
  db: Db;
  clock: Clock;
  log: Logger;
  rates: Rates;
  chains: ChainService;
  issuer: AddressIssuer;
  repo: WalletRepository;
  isSupportedCurrency(code: string): boolean;
}

/** Builds the capability and registers the status machine as a listener of every chain. */
export function createPayments(deps: PaymentsDeps): Payments {
  const { config, db, clock, log, rates, chains } = deps;
  const oauth = new OAuthClients(db, clock);
  const machine = new PaymentStatusMachine({ db, clock, log, rates, publicUrl: config.publicUrl });
  chains.onChange(machine.onChainChange);
  const service = new PaymentService({ ...deps, oauth, machine, idempotency: new IdempotencyStore(db) });
  return { oauth, service, machine, publicRecord: (reference) => service.publicRecord(reference) };
}
