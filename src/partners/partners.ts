// The partners capability: partner keys, partner merchant wallets, KYC, and (in src/withdrawals/) the
// withdrawals of those wallets. One factory; the routes and the CLI use what it returns.
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { Network } from '../bitcoin/networks.ts';
import type { MasterKey } from '../security/master-key.ts';
import type { Rates } from '../rates/rates-port.ts';
import type { ChainService } from '../chain/chain-service.ts';
import { PartnerKeys } from './partner-keys.ts';
import { PartnerWallets } from './partner-wallets.ts';
import { Kyc } from './kyc.ts';
import { Withdrawals } from '../withdrawals/withdrawals.ts';
import { WithdrawalSender } from '../withdrawals/withdrawal-sender.ts';
import type { Spending } from '../spending/spending.ts';

/** What the partners capability needs from the process. */
export interface PartnersDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  masterKey: MasterKey;
  rates: Rates;
  chains: ChainService;
  spending: Pick<Spending, 'spend' | 'onStatus'>;
  testNetwork: Network;
  allowPrivateWebhooks: boolean;
  isSupportedCurrency(code: string): boolean;
}

/** The capability's parts. */
export interface Partners {
  keys: PartnerKeys;
  wallets: PartnerWallets;
  kyc: Kyc;
  withdrawals: Withdrawals;
  /** Sends confirmed withdrawals through the spending capability. */
  sender: WithdrawalSender;
  /** Starts background work (the withdrawal sender). */
  start(): void;
  stop(): Promise<void>;
  /** Asks the sender to look for confirmed withdrawals now. */
  kick(): void;
}

/** Builds the partners capability and hooks withdrawal statuses to chain changes. */
export function createPartners(deps: PartnersDeps): Partners {
  const keys = new PartnerKeys(deps.db, deps.masterKey, { testNetwork: deps.testNetwork, allowPrivateWebhooks: deps.allowPrivateWebhooks });
  const wallets = new PartnerWallets(deps);
  const kyc = new Kyc(deps.db, deps.masterKey, deps.clock, wallets);
  const withdrawals = new Withdrawals({ db: deps.db, clock: deps.clock, rates: deps.rates, chains: deps.chains, wallets });
  // Derived inside the watcher's transaction: a withdrawal is `success` exactly when the chain says so.
  deps.chains.onChange((trx, change) => withdrawals.deriveForChain(trx, change.chain, change.now));
  deps.spending.onStatus(async (trx, spend) => {
    if (spend.purpose === 'withdrawal') await withdrawals.deriveForSpend(trx, spend.id, deps.clock());
  });
  const sender = new WithdrawalSender({ db: deps.db, log: deps.log, spending: deps.spending, withdrawals });
  return {
    keys,
    wallets,
    kyc,
    withdrawals,
    sender,
    start: () => sender.start(),
    stop: () => sender.stop(),
    kick: () => sender.kick(),
  };
}
