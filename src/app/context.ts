import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import type { HealthRegistry } from '../http/health.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { Rates } from '../rates/rates-port.ts';
import type { CurrencyCatalog } from '../rates/currency-catalog.ts';
import type { RateHistory } from '../rates/rate-history.ts';
import type { OutboxWorker } from '../notify/outbox-worker.ts';
import type { Mailer } from '../notify/mailer.ts';
import type { Payments } from '../payments/payments.ts';
import type { Spending } from '../spending/spending.ts';
import type { Refunds } from '../refunds/refunds.ts';
import type { Forms } from '../forms/forms.ts';
import type { Buttons } from '../buttons/buttons.ts';
import type { Wallets } from '../wallets/wallets.ts';
import type { Dashboard } from '../dashboard/dashboard.ts';
import type { Merchant } from '../dashboard/merchant.ts';
import type { SingletonRole } from './singleton-role.ts';
import type { Partners } from '../partners/partners.ts';
import type { WithdrawalsCapability } from '../withdrawals/create-withdrawals.ts';
import type { Greenfield } from '../greenfield/greenfield.ts';
import type { PaymentRequests } from '../payment-requests/payment-requests.ts';
import type { GreenfieldHooks } from '../greenfield/webhooks.ts';
import type { Pos } from '../pos/pos.ts';

/** Everything the HTTP layer and background workers share: built once per process. */
export interface AppContext {
  config: Config;
  db: Db;
  log: Logger;
  masterKey: MasterKey;
  clock: Clock;
  health: HealthRegistry;
  currencies: CurrencyCatalog;
  rates: Rates;
  /** Stored rates of past days (exchange_history). */
  rateHistory: RateHistory;
  chains: ChainService;
  notify: { worker: OutboxWorker; mailer: Mailer };
  /** Payment API v1: OAuth clients, operations 26 to 29, the status machine, the hosted page's lookup. */
  payments: Payments;
  /** Sending from service-held wallets: coin selection, signing, broadcast, fee bumps. */
  spending: Spending;
  /** Refunds (operations 24 and 25), sent from service-held wallets or signed by watch-only wallets' owners. */
  refunds: Refunds;
  /** Payment forms (operations 13 and 14, the form page) and the order state of forms and set_addr orders (6.2). */
  forms: Forms;
  /** Pay buttons (issue 36): the merchant's buttons and the payments payers ask for on them. */
  buttons: Buttons;
  /** The merchant dashboard: OTP login, sessions, profiles, accounts (operations 18 to 23). */
  dashboard: Dashboard;
  /** The dashboard's merchant views (wallets, orders, deliveries, chart, login history) for its API and the console. */
  merchant: Merchant;
  /** Partner keys, partner merchant wallets and KYC. */
  partners: Partners;
  /** Withdrawals of partner merchant wallets and their sender. */
  withdrawals: WithdrawalsCapability;
  /** Payment requests: an amount owed, paid in parts that are payments of payment API v1 (issue 36). */
  paymentRequests: PaymentRequests;
  /** Point of sale apps: the counter page /pos/<id>, its charges (payments of payment API v1) and receipts (issue 36). */
  pos: Pos;
  /** BTCPay Greenfield compatibility: API keys, invoices (payments of payment API v1), stores. */
  greenfield: Greenfield;
  /** Greenfield webhooks (signed BTCPay-style, delivered through the outbox) and pull-payment refunds. */
  greenfieldHooks: GreenfieldHooks;
  /** Wallet API: registration, order addresses, balances; its repository and issuer serve payments too. */
  wallets: Wallets;
  /** The singleton role: which process runs the chain watchers, rate refresher and sweepers (a lease on PostgreSQL). */
  singleton: SingletonRole;
  /** Stops background work (watchers, refreshers, workers) before the database closes. */
  stopBackground(): Promise<void>;
}
