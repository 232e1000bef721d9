import pino, { type Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/database.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import { HealthRegistry } from '../http/health.ts';
import { WalletRepository } from '../wallets/wallet-repository.ts';
import { AddressNotes } from '../wallets/address-notes.ts';
import { ISO_4217_CODES, isIso4217 } from '../rates/currencies.ts';
import type { AppContext, CurrencyCatalog } from './context.ts';

/** Options for building a context; tests pass their own clock and logger. */
export interface ContextOptions {
  config: Config;
  db: Db;
  masterKey: MasterKey;
  clock?: Clock;
  log?: Logger;
}

/** The fixed ISO 4217 list, used until live rates say which currencies can be priced. */
export const isoCurrencies: CurrencyCatalog = {
  isSupported: (code) => isIso4217(code),
  list: () => [...ISO_4217_CODES],
};

/** Wires the services of one process around an open, migrated database. */
export function createContext(opts: ContextOptions): AppContext {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? pino({ level: 'silent' });
  const health = new HealthRegistry();
  const repo = new WalletRepository(opts.db);
  const currencies = isoCurrencies;
  health.register('database', async () => {
    await opts.db.ping();
    return { ok: true, engine: opts.db.engine };
  }, true);
  const stoppers: Array<() => Promise<void>> = [];
  return {
    config: opts.config,
    db: opts.db,
    log,
    masterKey: opts.masterKey,
    clock,
    health,
    currencies,
    wallets: {
      repo,
      notes: new AddressNotes(repo, clock),
      registration: {
        repo,
        masterKey: opts.masterKey,
        clock,
        testNetwork: opts.config.testNetwork,
        isSupportedCurrency: (code) => currencies.isSupported(code),
      },
    },
    stopBackground: async () => {
      for (const stop of stoppers.reverse()) await stop();
    },
  };
}
