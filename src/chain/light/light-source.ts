// What the light source kinds (Electrum, Esplora) share: a light server's answers behind the source other
// code asks, and the verifying light watcher following it.
import { LightChainSource } from '../chain-source.ts';
import type { OpenedSource, SourceDeps } from '../source-kind.ts';
import type { LightBackend } from './light-backend.ts';
import type { MempoolSocket } from './mempool-socket.ts';
import { LightWatcher } from './light-watcher.ts';

/** The watcher's pacing and the pushes beside the server, as the kind's endpoint sets them. */
export interface LightFollowing {
  warmEvery?: number;
  coldPerPoll?: number;
  push?: MempoolSocket;
  pushTrackMs?: number;
}

export function openLight(backend: LightBackend, deps: SourceDeps, following: LightFollowing): OpenedSource {
  const { store, watched, clock, log, pollMs, network, db } = deps;
  return {
    source: new LightChainSource(backend, deps.fallbackFeeRate),
    watcher: new LightWatcher({ backend, db, ...following, store, watched, clock, log, pollMs, network }),
  };
}
