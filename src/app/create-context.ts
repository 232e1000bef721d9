import pino, { type Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/database.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import { HealthRegistry } from '../http/health.ts';
import { ChainService, type ChainEndpoint, type ChainEndpoints } from '../chain/chain-service.ts';
import { createRateService } from '../rates/rate-service.ts';
import { OutboxWorker } from '../notify/outbox-worker.ts';
import { WebhookSender } from '../notify/webhook-sender.ts';
import { Mailer } from '../notify/mailer.ts';
import { createPayments } from '../payments/payments.ts';
import { createGreenfield } from '../greenfield/greenfield.ts';
import { createGreenfieldHooks } from '../greenfield/webhooks.ts';
import { createSpending } from '../spending/spending.ts';
import { createRefunds } from '../refunds/refunds.ts';
import { profileWallets } from '../dashboard/accounts.ts';
import { createForms } from '../forms/forms.ts';
import { createWallets } from '../wallets/wallets.ts';
import { createDashboard } from '../dashboard/dashboard.ts';
import { createMerchant } from '../dashboard/merchant.ts';
import { createPartners } from '../partners/partners.ts';
import type { AppContext } from './context.ts';
import { SingletonRole } from './singleton-role.ts';

/** Options for building a context; tests pass their own clock, logger and chain endpoints. */
export interface ContextOptions {
  config: Config;
  db: Db;
  masterKey: MasterKey;
  clock?: Clock;
  log?: Logger;
  /** Overrides the nodes named by the configuration (the dev chain passes the node it started). */
  chains?: ChainEndpoints;
}

/** Wires the services of one process around an open, migrated database; nothing runs until `start`. */
export async function createContext(opts: ContextOptions): Promise<AppContext & { start(): Promise<void> }> {
  const { config, db, masterKey } = opts;
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? pino({ level: 'silent' });
  const health = new HealthRegistry();
  health.register(
    'database',
    async () => {
      await db.ping();
      return { ok: true, engine: db.engine };
    },
    true,
  );

  const rateService = createRateService({ config, db, clock, log });
  health.register('rates', () => rateService.health());

  const chains = new ChainService(db, clock, log, config.pollMs, config.fallbackFeeRate);
  await chains.configure(opts.chains ?? endpointsFromConfig(config));
  chains.usePush(config.nodePush);
  for (const mode of ['live', 'test'] as const) {
    const chain = chains.get(mode);
    if (chain) health.register(`chain_${mode}`, () => chain.watcher.health());
  }

  const currencies = rateService.currencies;
  const isSupportedCurrency = (code: string) => currencies.isSupported(code);
  const wallets = createWallets({ config, db, clock, log, masterKey, rates: rateService.rates, chains, isSupportedCurrency });
  const mailer = new Mailer(config.smtpUrl, config.dataDir, config.mailFrom, log);
  const worker = new OutboxWorker({ db, clock, log, mailer, masterKey, webhooks: new WebhookSender(db, masterKey, config.allowPrivateWebhooks) });
  health.register('mail', () => ({ ok: true, delivery: mailer.describe() }));
  // A status change's webhook leaves as soon as the change commits, not at the worker's next tick.
  chains.onCommitted(() => worker.wake());
  const payments = createPayments({
    config,
    db,
    clock,
    log,
    rates: rateService.rates,
    chains,
    issuer: wallets.issuer,
    repo: wallets.repo,
    isSupportedCurrency,
  });
  const spending = createSpending({ db, chains, masterKey, clock, log, pollMs: config.pollMs, fallbackFeeRate: config.fallbackFeeRate });
  const refunds = createRefunds({
    db,
    log,
    clock,
    masterKey,
    chains,
    spending,
    profileWallets: (profileId, trx) => profileWallets(trx ?? db, profileId),
    publicUrl: config.publicUrl,
    feeCapSats: config.refundFeeCapSats,
    pollMs: config.pollMs,
  });
  const forms = createForms({
    config,
    db,
    clock,
    log,
    masterKey,
    rates: rateService.rates,
    chains,
    issuer: wallets.issuer,
    repo: wallets.repo,
    isSupportedCurrency,
  });
  const partners = createPartners({
    db,
    clock,
    log,
    masterKey,
    rates: rateService.rates,
    chains,
    spending,
    testNetwork: config.testNetwork,
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    isSupportedCurrency,
  });
  const greenfield = createGreenfield({ db, clock, config, payments, repo: wallets.repo, chains, isSupportedCurrency });
  // After payments: its chain listener must run after the payment status machine's, in the same transaction.
  const greenfieldHooks = createGreenfieldHooks({
    db,
    clock,
    log,
    masterKey,
    chains,
    greenfield,
    publicUrl: config.publicUrl,
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    wake: () => worker.wake(),
  });
  // Chain watchers, rate refresher, spending broadcaster, refund, payment, form and partner sweepers run in one process at a time (the lease holder).
  const singleton = new SingletonRole({
    db,
    role: config.role,
    leaseMs: config.leaseMs,
    log,
    work: {
      start: async () => {
        // Another holder may have recorded outputs since this process loaded them: start from the truth.
        for (const c of chains.all()) {
          c.watched.outpoints.clear();
          await c.watched.load(db);
        }
        await rateService.start();
        chains.start();
        payments.machine.start();
        spending.start();
        refunds.start();
        forms.tracker.start();
        partners.start();
        greenfieldHooks.start();
      },
      stop: async () => {
        await refunds.stop();
        await partners.stop();
        await greenfieldHooks.stop();
        await spending.stop();
        await chains.stop();
        await payments.machine.stop();
        await forms.tracker.stop();
        await rateService.stop();
      },
      follow: () => rateService.loadStored(),
    },
  });
  health.register('singleton', () => singleton.health());
  return {
    config,
    db,
    singleton,
    log,
    masterKey,
    clock,
    health,
    currencies,
    rates: rateService.rates,
    rateHistory: rateService.history,
    chains,
    notify: { worker, mailer },
    payments,
    greenfield,
    greenfieldHooks,
    spending,
    refunds,
    forms,
    partners,
    wallets,
    dashboard: createDashboard({
      db,
      clock,
      log,
      masterKey,
      publicUrl: config.publicUrl,
      walletTransactions: (pub) => wallets.monitor.walletTransactions(pub),
    }),
    merchant: createMerchant({ db, clock, rates: rateService.rates, registration: wallets.registration, wakeOutbox: () => worker.wake() }),
    start: async () => {
      worker.start();
      await singleton.start();
    },
    stopBackground: async () => {
      await singleton.stop();
      // Closes the light sources' connections too (the singleton only stops the watchers).
      await chains.close();
      await worker.stop();
      await wallets.pool.close();
    },
  };
}

/** The chain source of each network: a node (SATGATE_*_RPC_URL), an Electrum server or an Esplora API. */
export function endpointsFromConfig(config: Config): ChainEndpoints {
  const light = {
    proxy: config.proxy,
    tipCacheMs: config.esploraTipCacheMs,
    budget: { ratePerSecond: config.lightMaxRps, burst: config.lightMaxRps * 4 },
  };
  const source = (
    rpcUrl: string | null,
    zmqUrl: string | null,
    electrumUrl: string | null,
    esploraUrl: string | null,
    esploraWsUrl: string | null,
  ): ChainEndpoint | undefined =>
    rpcUrl
      ? { rpcUrl, zmqUrl }
      : electrumUrl
        ? { electrumUrl, ...light }
        : esploraUrl
          ? { esploraUrl, ...light, ...(esploraWsUrl ? { esploraWsUrl, wsMaxAddresses: config.esploraWsMaxAddresses } : {}) }
          : undefined;
  const live = source(config.liveRpcUrl, config.liveZmqUrl, config.liveElectrumUrl, config.liveEsploraUrl, config.liveEsploraWsUrl);
  const test = source(config.testRpcUrl, config.testZmqUrl, config.testElectrumUrl, config.testEsploraUrl, config.testEsploraWsUrl);
  return { ...(live ? { live } : {}), ...(test ? { test: { ...test, network: config.testNetwork } } : {}) };
}
