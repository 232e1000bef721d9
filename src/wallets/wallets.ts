// The wallet API capability (operations 1, 2, 4, 5, 8 to 12) as the app context holds it: registration, order
// addresses and what the chain shows for them, built from explicit dependencies like payments/payments.ts.
import type { Config } from '../config/config.ts';
import type { Kernel } from '../config/kernel.ts';
import type { Rates } from '../rates/rates-port.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { ChainId } from '../chain/chain-id.ts';
import { AddressActivity } from './address-activity.ts';
import { AddressIssuer } from './address-issuer.ts';
import { AddressNotes } from './address-notes.ts';
import { AddressPool } from './address-pool.ts';
import { DerivationWorker } from './derivation-worker.ts';
import type { OrderAddressDeps } from './order-address.ts';
import { WalletMonitor } from './wallet-monitor.ts';
import type { RegistrationDeps } from './wallet-registration.ts';
import { WalletRepository } from './wallet-repository.ts';
import { RateLimiter } from '../security/rate-limiter.ts';

/** Wallet API services; `repo` and `issuer` are also what payments build on. */
export interface Wallets {
  repo: WalletRepository;
  issuer: AddressIssuer;
  /** Pre-derived addresses the issuer claims; `close` it when the process stops. */
  pool: AddressPool;
  notes: AddressNotes;
  registration: RegistrationDeps;
  orderAddresses: OrderAddressDeps;
  monitor: WalletMonitor;
}

/** What building the capability needs from the context. */
export interface WalletsDeps
  extends Kernel<Pick<Config, 'testNetwork' | 'allowPrivateWebhooks' | 'publicUrl' | 'gapLimit' | 'orderReuseGraceMs' | 'issueLimitPerWallet' | 'issueLimitPerIp'>> {
  rates: Rates;
  chains: ChainService;
  isSupportedCurrency(code: string): boolean;
}

/** Builds the capability. */
export function createWallets(deps: WalletsDeps): Wallets {
  const { config, db, clock, log, masterKey, rates, chains } = deps;
  const repo = new WalletRepository(db);
  const issuer = new AddressIssuer(
    db.engine,
    (wallet, index) =>
      log.warn({ api_id: wallet.api_id, index }, `issuing an address past the gap limit of ${config.gapLimit} unused addresses; wallets may need a larger gap to see it`),
    {
      gapLimit: config.gapLimit,
      reuseGraceMs: config.orderReuseGraceMs,
      perWalletPerMinute: config.issueLimitPerWallet,
      perIpPerMinute: config.issueLimitPerIp,
    },
  );
  issuer.useRateLimiter(new RateLimiter(db));
  const pool = new AddressPool(db, clock, log, (wallet, index) => issuer.derive(wallet, index), new DerivationWorker());
  issuer.usePool(pool);
  issuer.useFreshHistoryCheck(async (mode, script) => (await chains.get(mode as ChainId)?.source.freshHistory(script)) ?? null, log);
  return {
    repo,
    issuer,
    pool,
    notes: new AddressNotes(repo, clock),
    registration: {
      repo,
      masterKey,
      clock,
      testNetwork: config.testNetwork,
      isSupportedCurrency: deps.isSupportedCurrency,
      allowPrivateWebhooks: config.allowPrivateWebhooks,
      publicUrl: config.publicUrl,
      limiter: new RateLimiter(db),
    },
    orderAddresses: { db, repo, issuer, rates, chains, masterKey, clock, currencies: { isSupported: deps.isSupportedCurrency } },
    monitor: new WalletMonitor(repo, new AddressActivity(db), masterKey),
  };
}
