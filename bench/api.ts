// HTTP API benchmark (issues 5 and 16): requests per second for payment creation (op 26), status reads
// (op 27) and set_addr (op 8) of the real app on a real loopback port, each beside a raw-driver baseline
// measured in the same run on the same engine (bench/baselines.ts: Fastify + one INSERT + one SELECT, and
// Fastify + one SELECT with one join, same durability), on SQLite and on PostgreSQL. Creation is swept over
// 1, 10 and 50 connections. Figures are meant to be read as ratios to their baseline, not as absolute numbers.
// Run: node bin/run-ts.js bench/api.ts   (env: BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_DATABASE_URL)
import { createRequire } from 'node:module';
import { cpus, totalmem, platform, arch } from 'node:os';
import { randomBytes } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../test/support/test-app.ts';
import { createTestDb } from '../test/support/test-db.ts';
import { writeRatesFile } from '../test/support/rates-file.ts';
import { startRegtestNode, type RegtestNode } from '../src/devchain/regtest-node.ts';
import { generateNewWallet } from '../src/bitcoin/new-wallet.ts';
import type { Engine } from '../src/db/database.ts';
import { BENCH_PG_URL, createBenchPostgresDb, postgresReachable } from './bench-postgres.ts';
import { benchScaleOut } from './scale-out.ts';
import { startPostgresBaseline, startSqliteBaseline, type Baseline } from './baselines.ts';

// Just the parts of autocannon's (untyped, CommonJS) programmatic API used here.
interface Histogram {
  mean: number;
  p50: number;
  p99: number;
}
interface AutocannonResult {
  requests: Histogram;
  latency: Histogram;
  duration: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}
interface AutocannonOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  duration: number;
  workers?: number;
  /** Path of a module the worker requires and calls with every client it makes. */
  setupClient?: string;
  /** Copied into each client's options: bench/latency-probe.cjs reads its run id from here. */
  initialContext?: Record<string, string>;
}
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as (opts: AutocannonOptions) => Promise<AutocannonResult>;
const AUTOCANNON_VERSION = (require('autocannon/package.json') as { version: string }).version;

const DURATION_S = positiveInt('BENCH_DURATION', 10);
const WARMUP_S = positiveInt('BENCH_WARMUP', 1);
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 10);
/** Baseline change between the start and end of an engine block above which the block is flagged as noisy. */
const DRIFT_TOLERANCE = 0.15;
/** Profiling aid: only the scenarios whose names match (and the baselines they divide by); no scale-out rows. */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
/** Profiling aid: `sqlite` or `postgres` to bench one engine. */
const ENGINES = process.env.BENCH_ENGINES?.split(',') ?? null;
const PG_URL = BENCH_PG_URL;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[1-9]\d*$/.test(raw)) throw new Error(`${name} must be a positive whole number, got ${JSON.stringify(raw)}`);
  return Number.parseInt(raw, 10);
}

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Name of the scenario (same engine block) this one's ratio divides by; none for a baseline itself. */
  vs?: string;
  /** Load run alongside, from its own worker thread, through the warm-up and the measured run; not measured. */
  alongside?: Omit<Scenario, 'name' | 'vs' | 'alongside'>;
}

interface Row {
  engine: Engine;
  scenario: string;
  connections: number;
  vs: string;
  rps: number;
  /** Fractional milliseconds, from every 2xx response's own latency (bench/latency-probe.cjs). */
  p50: number;
  p99: number;
  /** autocannon's whole-millisecond percentiles, shown beside them. */
  wholeMs: { p50: number; p99: number } | null;
  ok: number;
  bad: number;
  codes: string;
  ratio: number;
}

const LATENCY_PROBE = fileURLToPath(new URL('./latency-probe.cjs', import.meta.url));
const latencyChannel = new BroadcastChannel('satgate-bench-latency');
latencyChannel.unref();
const latencyRuns = new Map<string, Float64Array[]>();
latencyChannel.onmessage = (event: unknown) => {
  const { run, samples } = (event as { data: { run: string; samples: Float64Array } }).data;
  latencyRuns.get(run)?.push(samples);
};

/** Every connection's latencies of one run, once all of them have posted theirs (they post as the run ends). */
async function latenciesOf(run: string, connections: number): Promise<Float64Array> {
  const lists = latencyRuns.get(run) ?? [];
  for (let waited = 0; lists.length < connections && waited < 5_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  latencyRuns.delete(run);
  if (lists.length < connections) throw new Error(`latency probe: ${lists.length} of ${connections} connections reported`);
  const all = new Float64Array(lists.reduce((n, l) => n + l.length, 0));
  let at = 0;
  for (const l of lists) {
    all.set(l, at);
    at += l.length;
  }
  return all.sort();
}

/** Nearest-rank percentile of sorted samples. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** One warm-up run (discarded, but its failures still count) then the measured run. */
async function measure(s: Scenario): Promise<{ result: AutocannonResult; warmupBad: number; p50: number; p99: number; alongsideRps?: number }> {
  // One worker thread: the load generator stays off the server's event loop (main thread).
  const base: AutocannonOptions = {
    url: s.url,
    method: s.method,
    connections: s.connections,
    duration: WARMUP_S,
    workers: 1,
    ...(s.headers ? { headers: s.headers } : {}),
    // No idReplacement: autocannon 8.0.0 sizes Content-Length for 33-character ids but hyperid 3 makes
    // 24-character ones, so every such request hangs. Without an Idempotency-Key each POST is a new payment anyway.
    ...(s.body !== undefined ? { body: s.body } : {}),
  };
  const other = s.alongside;
  const alongside = other
    ? autocannon({
      url: other.url,
      method: other.method,
      connections: other.connections,
      // Started first and ended last: it covers the warm-up and the whole measured run.
      duration: WARMUP_S + DURATION_S + 1,
      workers: 1,
      ...(other.headers ? { headers: other.headers } : {}),
      ...(other.body !== undefined ? { body: other.body } : {}),
    })
    : undefined;
  const warm = await autocannon(base);
  const run = randomBytes(8).toString('hex');
  latencyRuns.set(run, []);
  const result = await autocannon({ ...base, duration: DURATION_S, setupClient: LATENCY_PROBE, initialContext: { latencyRun: run } });
  const latencies = await latenciesOf(run, s.connections);
  const side = await alongside;
  return { result, warmupBad: failures(warm) + (side ? failures(side) + (side['2xx'] === 0 ? 1 : 0) : 0), p50: percentile(latencies, 50), p99: percentile(latencies, 99), ...(side ? { alongsideRps: side.requests.mean } : {}) };
}

function failures(r: AutocannonResult): number {
  return r.non2xx + r.errors + r.timeouts;
}

function codesOf(r: AutocannonResult): string {
  const parts = Object.entries(r.statusCodeStats).map(([code, { count }]) => `${code}×${count}`);
  if (r.errors > 0) parts.push(`errors×${r.errors}`);
  if (r.timeouts > 0) parts.push(`timeouts×${r.timeouts}`);
  return parts.join(' ');
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${addr.port}`;
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${res.url}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Registers a sandbox wallet, an OAuth client and a token over HTTP, and creates one payment to read. */
async function prepare(t: TestApp, url: string): Promise<{ token: string; apiId: string; reference: string }> {
  const postJson = (body: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const wallet = await json(await fetch(`${url}/add_pub`, postJson({ pub: generateNewWallet(true).accountKey, account_name: 'Bench Shop' })));
  if (wallet.return !== '0') throw new Error(`add_pub failed: ${JSON.stringify(wallet)}`);
  const apiId = String(wallet.api_id);
  const client = await t.ctx.payments.oauth.createClient([apiId], t.ctx.masterKey);
  const tok = await json(
    await fetch(`${url}/oauth/token`, postJson({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret })),
  );
  const token = String(tok.access_token);
  const created = await json(
    await fetch(`${url}/api/v1/payment/request`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: paymentBody(apiId, 'seed') }),
  );
  return { token, apiId, reference: String(created.payment_reference) };
}

/** A custom sandbox payment request from the payer. */
function paymentBody(apiId: string, payer: string): string {
  return JSON.stringify({
    type: 'custom',
    api_id: apiId,
    crypto_currency: 'testBTC',
    order_currency: 'USD',
    order_amount: 25,
    payer_id: `payer-${payer}@example.com`,
    payer_ip: '203.0.113.7',
  });
}

const BARE = 'baseline: bare Fastify GET';
const INSERT_BASE = (c: number) => `baseline: Fastify + INSERT + SELECT @${c}`;
const READ_BASE = 'baseline: Fastify + SELECT with join';
const SWEEP = [1, CONNECTIONS, 50].filter((c, i, all) => all.indexOf(c) === i);

async function benchEngine(engine: Engine, node: RegtestNode, ratesFile: string, rows: Row[]): Promise<void> {
  const testDb = engine === 'postgres' ? await createBenchPostgresDb() : await createTestDb('sqlite');
  const t = await createTestApp(engine, {
    testDb,
    // The set_addr scenario measures the reservation path at full speed, thousands of unpaid orders for one wallet:
    // the issuing rule of calls without a login (gap limit 20, 60 a minute per wallet) would refuse all but the first.
    env: { SATGATE_RATES_FILE: ratesFile, SATGATE_GAP_LIMIT: '10000000', SATGATE_ISSUE_LIMIT_PER_WALLET: '0', SATGATE_ISSUE_LIMIT_PER_IP: '0' },
    chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
    start: true,
  });
  const baseline: Baseline = engine === 'postgres' ? await startPostgresBaseline(PG_URL) : await startSqliteBaseline();
  try {
    const url = await listen(t.app);
    const { token, apiId, reference } = await prepare(t, url);
    const create = (c: number): Scenario => ({
      name: `satgate: create POST /api/v1/payment/request @${c}`,
      method: 'POST',
      url: `${url}/api/v1/payment/request`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: paymentBody(apiId, 'load'),
      connections: c,
      vs: INSERT_BASE(c),
    });
    const insertBase = (c: number): Scenario => ({ name: INSERT_BASE(c), method: 'POST', url: baseline.insertUrl, connections: c });
    // Each satgate row right after its baseline, so both see the same machine load.
    const all: Scenario[] = [
      { name: BARE, method: 'GET', url: baseline.bareUrl, connections: CONNECTIONS },
      ...SWEEP.flatMap((c) => {
        const pair = [insertBase(c), create(c)];
        if (c !== CONNECTIONS) return pair;
        return [
          ...pair,
          {
            name: `satgate: set_addr POST /set_addr @${c}`,
            method: 'POST' as const,
            url: `${url}/set_addr`,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ api_id: apiId }),
            connections: c,
            vs: INSERT_BASE(c),
          },
        ];
      }),
      { name: READ_BASE, method: 'GET', url: baseline.readUrl, connections: CONNECTIONS },
      { name: `satgate: status GET /api/v1/payment/:ref @${CONNECTIONS}`, method: 'GET', url: `${url}/api/v1/payment/${reference}`, connections: CONNECTIONS, vs: READ_BASE },
      // A shop polling statuses during a burst of creations: what the creations' writes cost the reads.
      {
        name: `satgate: status GET @${CONNECTIONS} during creations @${CONNECTIONS}`,
        method: 'GET',
        url: `${url}/api/v1/payment/${reference}`,
        connections: CONNECTIONS,
        vs: `satgate: status GET /api/v1/payment/:ref @${CONNECTIONS}`,
        alongside: { ...create(CONNECTIONS) },
      },
      // Measured again last: if it moved, the machine's load changed during the block and the ratios are rough.
      { name: `${BARE} (drift check)`, method: 'GET', url: baseline.bareUrl, connections: CONNECTIONS, vs: BARE },
    ];
    const scenarios = ONLY ? all.filter((s) => ONLY.test(s.name) || all.some((x) => ONLY.test(x.name) && x.vs === s.name)) : all;
    const byName = new Map<string, number>();
    for (const s of scenarios) {
      process.stdout.write(`  ${engine}: ${s.name} … `);
      const pool = t.ctx.wallets.pool;
      const [claims0, misses0] = [pool.claims, pool.misses];
      const batch0 = t.ctx.db.sqliteWriteStats?.();
      const { result, warmupBad, p50, p99, alongsideRps } = await measure(s);
      // Issues that found the address pool empty derive under the wallet lock: they should be rare.
      const issued = pool.claims - claims0 + pool.misses - misses0;
      const batch1 = t.ctx.db.sqliteWriteStats?.();
      const batches = batch0 && batch1 ? batch1.batches - batch0.batches : 0;
      const batchNote = batches > 0 ? `, group commit: ${batch1!.writes - batch0!.writes} writes in ${batches} commits` : '';
      const poolNote = issued > 0 ? `  (address pool: ${pool.claims - claims0} claimed, ${pool.misses - misses0} derived inline${batchNote})` : '';
      // A run that completed nothing failed too, even if autocannon counted no error.
      const bad = failures(result) + warmupBad + (result['2xx'] === 0 ? 1 : 0);
      byName.set(s.name, result.requests.mean);
      const base = s.vs === undefined ? undefined : byName.get(s.vs);
      rows.push({
        engine,
        scenario: s.name,
        connections: s.connections,
        vs: s.vs ?? '',
        rps: result.requests.mean,
        p50,
        p99,
        wholeMs: { p50: result.latency.p50, p99: result.latency.p99 },
        ok: result['2xx'],
        bad,
        codes: codesOf(result),
        ratio: base === undefined ? Number.NaN : result.requests.mean / base,
      });
      process.stdout.write(`${result.requests.mean.toFixed(0)} req/s${bad > 0 ? `  (${bad} failed: ${codesOf(result)})` : ''}${poolNote}${alongsideRps === undefined ? '' : `  (alongside: ${alongsideRps.toFixed(0)} req/s)`}\n`);
    }
    const drift = (rows.at(-1)?.ratio ?? 1) - 1;
    if (Math.abs(drift) > DRIFT_TOLERANCE) {
      console.log(`  NOTICE: ${engine}: the bare baseline moved ${(drift * 100).toFixed(0)}% within the block; the machine's load changed, so treat its ratios as rough`);
    }
    // Every creation must have stored its own payment and derived its own address. Requests cut off when the
    // run ended may still be finishing on the server: let them settle, then count both in one statement.
    await new Promise((r) => setTimeout(r, 500));
    const counted = await sql<{ payments: string | bigint; addresses: string | bigint; distinct_addresses: string | bigint }>`
      select (select count(*) from payments) as payments,
             (select count(*) from addresses where purpose = 'payment') as addresses,
             (select count(distinct address_id) from payments) as distinct_addresses`.execute(t.ctx.db.kysely);
    const c = counted.rows[0];
    const payments = String(c?.payments);
    console.log(`  ${engine}: stored ${payments} payments on ${String(c?.distinct_addresses)} distinct addresses (${String(c?.addresses)} payment addresses issued) after the run`);
    if (payments !== String(c?.addresses) || payments !== String(c?.distinct_addresses)) {
      console.log(`  WARNING: ${engine}: payments and addresses differ; creation is not one address per payment`);
    }
  } finally {
    await baseline.close();
    await t.close();
  }
}

function printTable(rows: Row[]): void {
  const head = ['engine', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'p99/p50', 'autocannon p50/p99', '2xx', 'non-2xx/err', 'vs its baseline'];
  // Rows without the probe's figures (scale-out: other processes) carry autocannon's whole milliseconds.
  const ms = (r: Row, v: number) => (r.wholeMs === null ? String(v) : v.toFixed(2));
  const body = rows.map((r) => [
    r.engine,
    r.scenario,
    r.rps.toFixed(0),
    ms(r, r.p50),
    ms(r, r.p99),
    r.p50 > 0 ? (r.p99 / r.p50).toFixed(1) : '-',
    r.wholeMs === null ? '-' : `${r.wholeMs.p50}/${r.wholeMs.p99}`,
    String(r.ok),
    String(r.bad),
    Number.isNaN(r.ratio) ? '(baseline)' : `${r.ratio.toFixed(2)}× ${r.vs.replace(/^baseline: /, '')}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i >= 2 && i <= 8 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of body) console.log(line(b));
}

async function main(): Promise<void> {
  const cpu = cpus();
  console.log('satgate API benchmark');
  console.log(`machine: ${cpu.length} CPUs (${cpu[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, ${platform()} ${arch()}`);
  console.log(`node ${process.version}, autocannon ${AUTOCANNON_VERSION}`);
  console.log(
    `load: ${CONNECTIONS} connections (creation also at ${SWEEP.join(', ')}), ${WARMUP_S} s warm-up (discarded) then ${DURATION_S} s measured per scenario; ` +
      'autocannon runs in a worker thread of this process, the servers on its main thread (loopback, same machine)',
  );
  console.log('service: the real app (createTestApp) with background work started, request logging off, a bcoin regtest node in-process');

  const engines: Engine[] = ENGINES?.includes('postgres') && !ENGINES.includes('sqlite') ? [] : ['sqlite'];
  if (ENGINES && !ENGINES.includes('postgres')) {
    // one engine asked for
  } else if (await postgresReachable()) engines.push('postgres');
  else console.log(`NOTICE: PostgreSQL at ${new URL(PG_URL).host} is not reachable; skipping it (set BENCH_DATABASE_URL)`);

  const node = await startRegtestNode({ blocks: 10 });
  const ratesFile = writeRatesFile();
  const rows: Row[] = [];
  try {
    for (const engine of engines) await benchEngine(engine, node, ratesFile, rows);
    if (engines.includes('postgres') && !ONLY) rows.push(...(await benchScaleOut(PG_URL, node, ratesFile)).map((r) => ({ ...r, wholeMs: null })));
  } finally {
    await node.stop();
  }
  console.log('');
  printTable(rows);
  console.log('p50/p99 are nearest-rank percentiles of every 2xx response\'s latency in fractional milliseconds (bench/latency-probe.cjs); autocannon\'s own histogram, shown beside them, keeps whole milliseconds. Scale-out rows show autocannon\'s.');
  console.log('req/s is the mean of per-second samples; "vs its baseline" divides by the named raw-driver baseline of the same engine block, measured just before it.');
  console.log('The "scale-out" rows (separate satgate processes on PostgreSQL) divide by the same scenario through 1 process instead.');
  const failed = rows.filter((r) => r.bad > 0);
  if (failed.length > 0) {
    console.log('');
    console.log('WARNING: INVALID BENCHMARK: some requests failed (non-2xx, socket errors or timeouts), so their figures do not measure success:');
    for (const r of failed) console.log(`  ${r.engine} / ${r.scenario}: ${r.bad} failed; status codes: ${r.codes || 'none completed'}`);
    process.exitCode = 1;
  }
}

await main();
