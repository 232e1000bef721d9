// The payment API v1 capability as the app context holds it: OAuth clients, the payment service
// (operations 26 to 29 and the hosted page's lookup) and the status machine wired to the chains.
import type { Config } from '../config/config.ts';
import type { Kernel } from '../config/kernel.ts';
import type { Rates } from '../rates/rates-port.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { ChainChangeListener } from '../chain/chain-events.ts';
import type { Lifecycle } from '../core/lifecycle.ts';
import type { AddressIssuer } from '../wallets/address-issuer.ts';
import type { WalletRepository } from '../wallets/wallet-repository.ts';
import type { HostedPageRecord } from '../pages/routes.ts';
import { OAuthClients } from './oauth.ts';
import { PaymentService } from './payment-service.ts';
import { PaymentStatusMachine } from './status-machine.ts';
import { IdempotencyStore } from '../db/idempotency-store.ts';

/** Payment API v1 services; `publicRecord` is what the hosted page (src/pages) reads. */
export interface Payments {
  oauth: OAuthClients;
  service: PaymentService;
  machine: PaymentStatusMachine;
  /** The status machine's expiry sweep (singleton work). */
  background: Lifecycle;
  /** The status machine's chain listener, registered by the context first of all. */
  onChainChange: ChainChangeListener;
  publicRecord(reference: string): Promise<HostedPageRecord | null>;
}

/** What building the capability needs from the context. */
export interface PaymentsDeps extends Kernel<Pick<Config, 'publicUrl' | 'monitorWindowMs' | 'allowPrivateWebhooks'>> {
  rates: Rates;
  chains: ChainService;
  issuer: AddressIssuer;
  repo: WalletRepository;
  isSupportedCurrency(code: string): boolean;
}

/** Builds the capability; the context registers its status machine as a listener of every chain. */
export function createPayments(deps: PaymentsDeps): Payments {
  const { config, db, clock, log, rates } = deps;
  const oauth = new OAuthClients(db, clock);
  const machine = new PaymentStatusMachine({ db, clock, log, rates, publicUrl: config.publicUrl });
  const service = new PaymentService({ ...deps, oauth, machine, idempotency: new IdempotencyStore(db) });
  return {
    oauth,
    service,
    machine,
    background: machine,
    onChainChange: machine.onChainChange,
    publicRecord: (reference) => service.publicRecord(reference),
  };
}
