// Start time of the server, compiled (dist/, what a package install runs) against the TypeScript sources through
// tsx (what a clone ran before issue 20): time from spawning `satgate start` until /health answers, on a fresh
// SQLite data directory with fixed rates and no chain source (no dev chain, so only satgate's own start is timed).
// Builds dist/ first when stale. Reported as a ratio in the same run; tests never time anything.
// Run: node bin/run-ts.js bench/start-time.ts   (env: BENCH_RUNS, default 5)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/server-process.ts';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const build = spawnSync(process.execPath, ['tools/build-if-stale.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

async function startOnce(fromSource: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'satgate-bench-start-'));
  const rates = join(dir, 'rates.json');
  writeFileSync(rates, '{"USD":"50000.00"}');
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/satgate.js', 'start'], {
    // A live RPC URL nobody answers: no dev chain is started, the watcher retries in the background.
    env: { ...process.env, SATGATE_RUN_SOURCE: fromSource ? '1' : '0', SATGATE_DATA_DIR: join(dir, 'data'), PORT: String(port), LOG_LEVEL: 'silent', SATGATE_RATES_FILE: rates, SATGATE_RATE_PROVIDERS: 'file', SATGATE_TEST_RPC_URL: 'http://127.0.0.1:9/', SATGATE_TEST_NETWORK: 'regtest' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`satgate start exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status > 0, () => false);
      if (ok) return performance.now() - started;
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const compiled: number[] = [];
const source: number[] = [];
for (let i = 0; i < runs; i++) {
  // Interleaved, so machine load hits both alike.
  compiled.push(await startOnce(false));
  source.push(await startOnce(true));
}
console.log(`start until /health answers, median of ${runs}: compiled dist/ ${median(compiled).toFixed(0)} ms, tsx sources ${median(source).toFixed(0)} ms`);
console.log(`compiled / tsx = ${(median(compiled) / median(source)).toFixed(2)}`);
