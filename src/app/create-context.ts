import pino, { type Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/database.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import { HealthRegistry } from '../http/health.ts';
import { ChainService, type ChainEndpoints } from '../chain/chain-service.ts';
import { createRateService } from '../rates/rate-service.ts';
import { OutboxWorker } from '../notify/outbox-worker.ts';
import { WebhookSender } from '../notify/webhook-sender.ts';
import { Mailer } from '../notify/mailer.ts';
import { createPayments } from '../payments/payments.ts';
import { createGreenfield } from '../greenfield/greenfield.ts';
import { PaymentRequests } from '../payment-requests/payment-requests.ts';
import { createPos } from '../pos/pos.ts';
import { createGreenfieldHooks } from '../greenfield/webhooks.ts';
import { greenfieldDelivery } from '../greenfield/webhook-delivery.ts';
import { createSpending } from '../spending/spending.ts';
import { createRefunds } from '../refunds/refunds.ts';
import { profileWallets } from '../dashboard/accounts.ts';
import { createForms } from '../forms/forms.ts';
import { createButtons } from '../buttons/buttons.ts';
import { createWallets } from '../wallets/wallets.ts';
import { createDashboard } from '../dashboard/dashboard.ts';
import { createMerchant } from '../dashboard/merchant.ts';
import { createPartners } from '../partners/partners.ts';
import { createWithdrawals } from '../withdrawals/create-withdrawals.ts';
import type { Kernel } from '../config/kernel.ts';
import type { AppContext } from './context.ts';
import { SingletonRole } from './singleton-role.ts';
import { ledgerOnChainChange } from '../reports/ledger-listener.ts';
import { startInOrder, stopInReverse, type Lifecycle } from '../core/lifecycle.ts';

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
  const kernel: Kernel = { db, clock, log, masterKey, config };
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
  await chains.configure(opts.chains ?? config.chains);
  chains.usePush(config.nodePush);
  for (const mode of ['live', 'test'] as const) {
    const chain = chains.get(mode);
    if (chain) health.register(`chain_${mode}`, () => chain.watcher.health());
  }

  const currencies = rateService.currencies;
  const isSupportedCurrency = (code: string) => currencies.isSupported(code);
  const wallets = createWallets({ ...kernel, rates: rateService.rates, chains, isSupportedCurrency });
  const mailer = new Mailer(config.smtpUrl, config.dataDir, config.mailFrom, log);
  const webhooks = new WebhookSender(db, masterKey, config.allowPrivateWebhooks);
  const worker = new OutboxWorker({ db, clock, log, mailer, masterKey, webhooks });
  // Greenfield's events go one webhook at a time, signed BTCPay-style: its own delivery kind.
  worker.register(greenfieldDelivery({ db, masterKey, webhooks }));
  health.register('mail', () => ({ ok: true, delivery: mailer.describe() }));
  // A status change's webhook leaves as soon as the change commits, not at the worker's next tick.
  chains.onCommitted(() => worker.wake());
  const payments = createPayments({
    ...kernel,
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
    ...kernel,
    rates: rateService.rates,
    chains,
    issuer: wallets.issuer,
    repo: wallets.repo,
    isSupportedCurrency,
  });
  const buttons = createButtons({ db, clock, repo: wallets.repo, payments, isSupportedCurrency });
  const partners = createPartners({ ...kernel, rates: rateService.rates, isSupportedCurrency });
  // After refunds: the spending capability calls its status listeners in the order they were added.
  const withdrawals = createWithdrawals({ db, clock, log, rates: rateService.rates, chains, spending, wallets: partners.wallets });
  const paymentRequests = new PaymentRequests({ db, clock, payments, isSupportedCurrency, masterKey, publicUrl: config.publicUrl });
  const pos = createPos({ db, clock, masterKey, payments, isSupportedCurrency });
  const greenfield = createGreenfield({ db, clock, config, payments, repo: wallets.repo, chains, isSupportedCurrency, spending, issuer: wallets.issuer, requests: paymentRequests, pos: pos.apps });
  const greenfieldHooks = createGreenfieldHooks({
    db,
    clock,
    log,
    masterKey,
    greenfield,
    publicUrl: config.publicUrl,
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    spending,
    chains,
    feeCapSats: config.refundFeeCapSats,
    wake: () => worker.wake(),
  });
  // One ordered registration: each listener runs inside the change's transaction, and Greenfield's events
  // read the payment statuses the status machine has just written, so the machine comes first.
  // The ledger last: its receipt rows read the late-payment rates the status machines record.
  for (const listener of [payments.onChainChange, paymentRequests.onChainChange, pos.apps.onChainChange, forms.onChainChange, withdrawals.onChainChange, greenfieldHooks.onChainChange, ledgerOnChainChange(db, log)]) {
    chains.onChange(listener);
  }
  // Started in this order, stopped in reverse: senders stop before the spending broadcaster, that before the
  // chain watchers, and the rate refresher (which pricing sweeps read) last.
  const singletons: Lifecycle[] = [
    {
      // Another holder may have recorded outputs since this process loaded them: start from the truth.
      start: async () => {
        for (const c of chains.all()) {
          c.watched.outpoints.clear();
          await c.watched.load(db);
        }
      },
      stop: async () => {},
    },
    rateService.background,
    chains,
    payments.background,
    spending.background,
    refunds.background,
    forms.background,
    withdrawals.background,
    greenfieldHooks.background,
  ];
  // Chain watchers, rate refresher, spending broadcaster, refund, payment, form and partner sweepers run in one process at a time (the lease holder).
  const singleton = new SingletonRole({
    db,
    role: config.role,
    leaseMs: config.leaseMs,
    log,
    work: {
      start: () => startInOrder(singletons),
      stop: () => stopInReverse(singletons),
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
    paymentRequests,
    pos,
    greenfield,
    greenfieldHooks,
    spending,
    refunds,
    forms,
    buttons,
    partners,
    withdrawals,
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
