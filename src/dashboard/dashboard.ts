import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import { Sessions } from './sessions.ts';
import { profileWallets } from './accounts.ts';

/** What the dashboard needs from the rest of the service. */
export interface DashboardDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  masterKey: MasterKey;
}

/** The merchant dashboard (operations 18 to 23): sessions now, login, profile and accounts built on them. */
export interface Dashboard {
  /** Session tokens; also the verifier the dashboard authentication hook (http/dashboard-auth.ts) uses. */
  sessions: Sessions;
  /** The wallets a profile may act on (the ownership check refunds use). */
  profileWallets(profileId: bigint): ReturnType<typeof profileWallets>;
}

/** Builds the dashboard services from explicit dependencies. */
export function createDashboard(deps: DashboardDeps): Dashboard {
  const sessions = new Sessions(deps.db, deps.clock);
  return {
    sessions,
    profileWallets: (profileId) => profileWallets(deps.db, profileId),
  };
}
