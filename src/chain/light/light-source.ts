// What the light source kinds (Electrum, Esplora) share: a light server's answers behind the source other
// code asks, and the verifying light watcher following it.
import { LightChainSource } from '../chain-source.ts';
import type { OpenedSource, SourceDeps } from '../source-kind.ts';
import type { LightBackend } from './light-backend.ts';
import type { MempoolSocket } from './mempool-socket.ts';
import { LightWatcher } from './light-watcher.ts';
import { ServerPool } from './server-pool.ts';
import type { LightBudget } from '../../config/chain-endpoint.ts';

/** The watcher's pacing and the pushes beside the server, as the kind's endpoint sets them. */
export interface LightFollowing {
  warmEvery?: number;
  coldPerPoll?: number;
  hotEveryMs?: number;
  push?: MempoolSocket;
  pushTrackMs?: number;
}

/**
 * Each server's share of the configured budget (SATGATE_LIGHT_MAX_RPS is for the whole list): n servers ask
 * each about 1/n of what one server alone would be asked, and each backs off on its own.
 */
export function budgetShare(budget: LightBudget | undefined, servers: number): LightBudget | undefined {
  if (servers <= 1) return budget;
  const rate = (budget?.ratePerSecond ?? 5) / servers;
  return { ...budget, ratePerSecond: rate, burst: Math.max(1, Math.ceil((budget?.burst ?? 20) / servers)) };
}

/** One backend per configured server; several are followed as one pool (server-pool.ts). */
export function lightBackend(backends: LightBackend[], deps: SourceDeps, quorum?: number): LightBackend {
  return backends.length === 1 ? backends[0]! : new ServerPool(backends, { clock: deps.clock, log: deps.log, quorum });
}

export function openLight(backend: LightBackend, deps: SourceDeps, following: LightFollowing): OpenedSource {
  const { store, watched, clock, log, pollMs, network, db } = deps;
  const watcher = new LightWatcher({ backend, db, ...following, store, watched, clock, log, pollMs, network });
  return { source: new LightChainSource(backend, deps.fallbackFeeRate, (raw) => watcher.noteBroadcast(raw)), watcher };
}
