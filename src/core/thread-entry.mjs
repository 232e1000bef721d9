// Entry of the worker threads (address derivation, SQLite's writer). Plain JavaScript so that a thread starts the
// same way from the compiled dist/ and from the TypeScript sources (tests, benches, `SATGATE_RUN_SOURCE`): with
// sources it registers tsx (a development dependency) in this thread before loading the thread's module.
import { workerData } from 'node:worker_threads';

if (workerData.module.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.module);
