// The pay button capability as the app context holds it: the button service over the payment API's payments.
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import { RateLimiter } from '../security/rate-limiter.ts';
import type { WalletRepository } from '../wallets/wallet-repository.ts';
import type { Payments } from '../payments/payments.ts';
import { ButtonService, type ButtonBudgets } from './button-service.ts';

export interface Buttons {
  service: ButtonService;
}

export interface ButtonsDeps {
  db: Db;
  clock: Clock;
  repo: WalletRepository;
  payments: Payments;
  isSupportedCurrency(code: string): boolean;
  budgets?: Partial<ButtonBudgets>;
}

export function createButtons(deps: ButtonsDeps): Buttons {
  const service = new ButtonService({
    db: deps.db,
    clock: deps.clock,
    repo: deps.repo,
    payments: deps.payments.service,
    limiter: new RateLimiter(deps.db),
    isSupportedCurrency: deps.isSupportedCurrency,
    ...(deps.budgets ? { budgets: deps.budgets } : {}),
  });
  return { service };
}
