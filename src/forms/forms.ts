// The payment form capability as the app context holds it: the form service (operations 13 and 14 and
// the form page's operations) and the order tracker (order state of forms and set_addr orders, 6.2).
import type { Config } from '../config/config.ts';
import type { Kernel } from '../config/kernel.ts';
import type { Rates } from '../rates/rates-port.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { ChainChangeListener } from '../chain/chain-events.ts';
import type { Lifecycle } from '../core/lifecycle.ts';
import type { AddressIssuer } from '../wallets/address-issuer.ts';
import type { WalletRepository } from '../wallets/wallet-repository.ts';
import { FormService } from './form-service.ts';
import { OrderTracker } from './order-tracker.ts';
import { IdempotencyStore } from '../db/idempotency-store.ts';

/** Payment forms and order tracking. */
export interface Forms {
  service: FormService;
  tracker: OrderTracker;
  /** The order tracker's sweep (singleton work). */
  background: Lifecycle;
  /** The order tracker's chain listener, registered by the context. */
  onChainChange: ChainChangeListener;
}

/** What building the capability needs from the context. */
export interface FormsDeps extends Kernel<Pick<Config, 'publicUrl' | 'allowPrivateWebhooks'>> {
  rates: Rates;
  chains: ChainService;
  issuer: AddressIssuer;
  repo: WalletRepository;
  isSupportedCurrency(code: string): boolean;
}

/** Builds the capability; the context registers its order tracker as a listener of every chain. */
export function createForms(deps: FormsDeps): Forms {
  const tracker = new OrderTracker({ db: deps.db, clock: deps.clock, log: deps.log, masterKey: deps.masterKey, rates: deps.rates });
  const service = new FormService({
    db: deps.db,
    clock: deps.clock,
    log: deps.log,
    rates: deps.rates,
    chains: deps.chains,
    issuer: deps.issuer,
    repo: deps.repo,
    masterKey: deps.masterKey,
    tracker,
    idempotency: new IdempotencyStore(deps.db),
    publicUrl: deps.config.publicUrl,
    allowPrivateWebhooks: deps.config.allowPrivateWebhooks,
    isSupportedCurrency: deps.isSupportedCurrency,
  });
  return { service, tracker, background: tracker, onChainChange: tracker.onChainChange };
}
