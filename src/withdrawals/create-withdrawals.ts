// The withdrawals capability (INTERFACE.md ops 15 to 17) as the app context holds it: the service, the sender
// that pays confirmed withdrawals through spending, and the statuses derived from spends and chain changes.
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { Lifecycle } from '../core/lifecycle.ts';
import type { Rates } from '../rates/rates-port.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { ChainChangeListener } from '../chain/chain-events.ts';
import type { Spending } from '../spending/spending.ts';
import type { PartnerWallets } from '../partners/partner-wallets.ts';
import { Withdrawals } from './withdrawals.ts';
import { WithdrawalSender } from './withdrawal-sender.ts';

/** What building the capability needs. */
export interface WithdrawalsDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  rates: Rates;
  chains: ChainService;
  spending: Pick<Spending, 'spend' | 'onStatus'>;
  /** The partners capability's merchant wallets, which withdrawals pay out of. */
  wallets: PartnerWallets;
}

/** The capability's parts. */
export interface WithdrawalsCapability {
  withdrawals: Withdrawals;
  /** Sends confirmed withdrawals through the spending capability. */
  sender: WithdrawalSender;
  /** The sender's loop (singleton work). */
  background: Lifecycle;
  /** Derives withdrawal statuses inside each chain change's transaction (registered by the context). */
  onChainChange: ChainChangeListener;
  /** Asks the sender to look for confirmed withdrawals now. */
  kick(): void;
}

/** Builds the capability and hooks withdrawal statuses to spend statuses. */
export function createWithdrawals(deps: WithdrawalsDeps): WithdrawalsCapability {
  const withdrawals = new Withdrawals({ db: deps.db, clock: deps.clock, rates: deps.rates, chains: deps.chains, wallets: deps.wallets });
  deps.spending.onStatus(async (trx, spend) => {
    if (spend.purpose === 'withdrawal') await withdrawals.deriveForSpend(trx, spend.id, deps.clock());
  });
  const sender = new WithdrawalSender({ db: deps.db, log: deps.log, spending: deps.spending, withdrawals });
  return {
    withdrawals,
    sender,
    background: { start: () => sender.start(), stop: () => sender.stop() },
    // Derived inside the watcher's transaction: a withdrawal is `success` exactly when the chain says so.
    onChainChange: (trx, change) => withdrawals.deriveForChain(trx, change.chain, change.now),
    kick: () => sender.kick(),
  };
}
