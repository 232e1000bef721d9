// Scale-out rows of the API benchmark (issue 14): payment creation and status reads through 2 `satgate start`
// processes on one PostgreSQL database vs 1, with the same total number of connections, as a ratio. Each
// process is a real child process; the load is split evenly over them (as a load balancer would), one
// autocannon worker per process. On a machine with few cores the processes compete for the same CPUs, so
// the ratio says what a second process buys there, not what it buys on a bigger machine.
// Standalone: node bin/run-ts.js bench/scale-out.ts   (env: BENCH_DURATION, BENCH_CONNECTIONS, BENCH_DATABASE_URL)
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startServerProcess, runCli, type ServerProcess } from '../test/support/server-process.ts';
import { writeRatesFile } from '../test/support/rates-file.ts';
import { startRegtestNode, type RegtestNode } from '../src/devchain/regtest-node.ts';
import { generateNewWallet } from '../src/bitcoin/new-wallet.ts';

interface Result {
  requests: { mean: number };
  latency: { p50: number; p99: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<Result>;

/** One row in the shape of bench/api.ts's table; `ratio` is against the same scenario on 1 process. */
export interface ScaleOutRow {
  engine: 'postgres';
  scenario: string;
  connections: number;
  /** What `ratio` divides by. */
  vs: string;
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  bad: number;
  codes: string;
  ratio: number;
}

function int(name: string, fallback: number): number {
  const v = process.env[name];
  return v && /^[1-9]\d*$/.test(v) ? Number(v) : fallback;
}

/** Runs the 1-process and 2-process blocks and returns their rows. */
export async function benchScaleOut(pgUrl: string, node: RegtestNode, ratesFile: string): Promise<ScaleOutRow[]> {
  const duration = int('BENCH_DURATION', 10);
  const connections = int('BENCH_CONNECTIONS', 10);
  const schema = `bench_scale_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(pgUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const env = {
    DATABASE_URL: url.toString(),
    SATGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'satgate-bench-scale-')),
    SATGATE_TEST_RPC_URL: node.rpcUrl,
    SATGATE_TEST_NETWORK: 'regtest',
    SATGATE_RATES_FILE: ratesFile,
    LOG_LEVEL: 'error',
    SATGATE_AUTO_MIGRATE: '1',
  };
  const procs: ServerProcess[] = [];
  const rows: ScaleOutRow[] = [];
  try {
    procs.push(await startServerProcess(env));
    procs.push(await startServerProcess(env));
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
      (await (await fetch(`${procs[0]!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })).json()) as Record<string, any>;
    const apiId = (await post('/add_pub', { pub: generateNewWallet(true).accountKey })).api_id as string;
    const cli = await runCli(['client', 'create', '--api-id', apiId, '--json'], env);
    if (cli.code !== 0) throw new Error(`client create failed: ${cli.stderr}`);
    const client = JSON.parse(cli.stdout);
    const token = (await post('/oauth/token', { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret })).access_token as string;
    const body = JSON.stringify({ type: 'custom', api_id: apiId, crypto_currency: 'testBTC', order_currency: 'USD', order_amount: 25, payer_id: 'payer@example.com', payer_ip: '203.0.113.7' });
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const reference = (await post('/api/v1/payment/request', JSON.parse(body), auth)).payment_reference as string;
    const scenarios = [
      { name: 'status read GET /api/v1/payment/:ref', method: 'GET', path: `/api/v1/payment/${reference}` },
      { name: 'create POST /api/v1/payment/request', method: 'POST', path: '/api/v1/payment/request', headers: auth, body },
    ];
    for (const s of scenarios) {
      let one = 0;
      for (const n of [1, 2]) {
        const run = (p: ServerProcess, d: number) =>
          autocannon({ url: `${p.url}${s.path}`, method: s.method, connections: Math.max(1, Math.floor(connections / n)), duration: d, workers: 1, ...(s.headers ? { headers: s.headers } : {}), ...(s.body ? { body: s.body } : {}) });
        await Promise.all(procs.slice(0, n).map((p) => run(p, 1))); // warm-up, discarded
        process.stdout.write(`  postgres scale-out: ${s.name} through ${n} process${n > 1 ? 'es' : ''} … `);
        const results = await Promise.all(procs.slice(0, n).map((p) => run(p, duration)));
        const rps = results.reduce((a, r) => a + r.requests.mean, 0);
        const bad = results.reduce((a, r) => a + r.non2xx + r.errors + r.timeouts, 0);
        if (n === 1) one = rps;
        rows.push({
          engine: 'postgres',
          scenario: `scale-out ${n} proc: ${s.name}`,
          connections,
          vs: `${s.name} through 1 process`,
          rps,
          p50: Math.max(...results.map((r) => r.latency.p50)),
          p99: Math.max(...results.map((r) => r.latency.p99)),
          ok: results.reduce((a, r) => a + r['2xx'], 0),
          bad,
          codes: bad > 0 ? `${bad} failed` : '',
          ratio: one > 0 ? rps / one : 0,
        });
        process.stdout.write(`${rps.toFixed(0)} req/s${n === 2 && one > 0 ? ` (×${(rps / one).toFixed(2)} of 1 process)` : ''}\n`);
      }
    }
  } finally {
    for (const p of procs) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('bench/scale-out.ts')) {
  const node = await startRegtestNode({ blocks: 10 });
  try {
    const rows = await benchScaleOut(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', node, writeRatesFile());
    for (const r of rows) console.log(`${r.scenario}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms, ratio vs 1 process ${r.ratio.toFixed(2)}`);
  } finally {
    await node.stop();
  }
}
