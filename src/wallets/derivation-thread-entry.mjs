// Entry of the address-derivation worker thread (see derivation-worker.ts). Plain JavaScript so that the thread
// starts the same way from the compiled dist/ and from the TypeScript sources (tests, benches, `SATGATE_RUN_SOURCE`):
// with sources it registers tsx (a development dependency) in this thread before loading the derivation module.
import { workerData } from 'node:worker_threads';

if (workerData.module.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.module);
