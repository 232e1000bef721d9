// The point of sale capability as the app context holds it: the apps over the payment API's payments, and the
// counter's checkout status and receipts.
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import { RateLimiter } from '../security/rate-limiter.ts';
import type { Payments } from '../payments/payments.ts';
import { PosApps, type ChargeBudgets } from './pos-apps.ts';
import { PosReceipts } from './pos-receipt.ts';

export interface Pos {
  apps: PosApps;
  receipts: PosReceipts;
}

export interface PosCapabilityDeps {
  db: Db;
  clock: Clock;
  masterKey: MasterKey;
  payments: Payments;
  isSupportedCurrency(code: string): boolean;
  budgets?: Partial<ChargeBudgets>;
}

export function createPos(deps: PosCapabilityDeps): Pos {
  const apps = new PosApps({
    db: deps.db,
    clock: deps.clock,
    payments: deps.payments.service,
    limiter: new RateLimiter(deps.db),
    isSupportedCurrency: deps.isSupportedCurrency,
    ...(deps.budgets ? { budgets: deps.budgets } : {}),
  });
  return { apps, receipts: new PosReceipts({ db: deps.db, clock: deps.clock, masterKey: deps.masterKey, payments: deps.payments.service, apps }) };
}
