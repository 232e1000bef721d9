// Start time of the server (issues 20 and 39): from spawning `satgate start` until /health first answers (its
// "starting" 503 counts: the port is served) and until it answers 200 (migrated, built, ready), compiled (dist/, what
// a package install runs) and through tsx (a clone's sources), on a fresh SQLite data directory with fixed rates and
// no chain source (no dev chain, so only satgate's own start is timed). The floor is a bare `node -e` start, measured
// interleaved in the same run. Goal (issue 39): compiled, first answer in at most 1 s (median).
// Builds dist/ first when stale. Tests never time anything.
// Run: npm run bench:start   (env: BENCH_RUNS, default 10)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/server-process.ts';

const runs = Number(process.env.BENCH_RUNS ?? 10);
const build = spawnSync(process.execPath, ['tools/build-if-stale.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

interface StartTimes {
  firstAnswer: number;
  ready: number;
}

async function startOnce(fromSource: boolean): Promise<StartTimes> {
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
    let firstAnswer: number | null = null;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`satgate start exited with ${child.exitCode}`);
      const status = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status, () => 0);
      if (status > 0) firstAnswer ??= performance.now() - started;
      if (status === 200) return { firstAnswer: firstAnswer!, ready: performance.now() - started };
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A bare Node.js start and exit: what no program can start under on this machine. */
function bareNode(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  return new Promise((resolve) => child.once('exit', () => resolve(performance.now() - started)));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const floor: number[] = [];
const compiled: StartTimes[] = [];
const source: StartTimes[] = [];
for (let i = 0; i < runs; i++) {
  // Interleaved, so machine load hits all alike.
  floor.push(await bareNode());
  compiled.push(await startOnce(false));
  source.push(await startOnce(true));
}
const ms = (x: number) => `${x.toFixed(0)} ms`;
const row = (label: string, xs: number[]) => `| ${label} | ${ms(median(xs))} | ${(median(xs) / median(floor)).toFixed(1)}x |`;
console.log(`\nmedian of ${runs} starts each, interleaved\n`);
console.log('| start | median | / bare node |');
console.log('|---|---|---|');
console.log(row('bare `node -e 0` (the floor)', floor));
console.log(row('compiled dist/: first /health answer ("starting")', compiled.map((c) => c.firstAnswer)));
console.log(row('compiled dist/: /health 200 (ready)', compiled.map((c) => c.ready)));
console.log(row('tsx sources: first /health answer', source.map((c) => c.firstAnswer)));
console.log(row('tsx sources: /health 200 (ready)', source.map((c) => c.ready)));
const first = median(compiled.map((c) => c.firstAnswer));
console.log(`\ncompiled first answer ${ms(first)}: ${first <= 1000 ? 'within' : 'over'} the 1 s goal`);
