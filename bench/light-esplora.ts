// Light mode on an Esplora source with 10,000 watched addresses (issue 21): satgate's light watcher follows
// the Esplora test server over a real bcoin regtest chain, with the addresses tiered as a shop's would be
// (a few hot: open orders; some warm: paid or expired in the last days; the rest cold). Measured at the
// server: requests per hour at rest, and during a run of payments the extra requests per payment; measured
// at satgate: detection latency of payments to hot addresses (payment in the node's mempool → its verified
// record committed), p50/p95. Polling only with one server and with BENCH_LIGHT_SERVERS (default 3) servers
// (issue 38: requests per server per hour), and with mempool.space's websocket pushing hot addresses.
// The defaults are satgate's (1 s polls, 5 requests/s with bursts of 20, tip cached 10 s, warm every 10th
// poll, one cold address per poll).
// Run: npm run bench:light   (env: BENCH_LIGHT_ADDRESSES=10000, BENCH_LIGHT_HOT=20, BENCH_LIGHT_WARM=200,
//   BENCH_LIGHT_REST_S=60, BENCH_LIGHT_PAYMENTS=15, BENCH_LIGHT_POLL_MS=1000, BENCH_LIGHT_RPS=5, BENCH_LIGHT_SERVERS=3)
import { cpus, totalmem } from 'node:os';
import pino from 'pino';
import { startRegtestNode, type RegtestNode } from '../src/devchain/regtest-node.ts';
import { startEsploraTestServer, type EsploraTestServer } from '../test/support/esplora-test-server.ts';
import { createTestDb } from '../test/support/test-db.ts';
import { ChainService } from '../src/chain/chain-service.ts';
import { WalletRepository, type WalletRow } from '../src/wallets/wallet-repository.ts';
import { registerWallet } from '../src/wallets/wallet-registration.ts';
import { generateNewWallet } from '../src/bitcoin/new-wallet.ts';
import { AddressIssuer } from '../src/wallets/address-issuer.ts';
import { MasterKey } from '../src/security/master-key.ts';
import { scriptSha } from '../test/support/light-chain-index.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const TOTAL = env('BENCH_LIGHT_ADDRESSES', 10_000);
const HOT = env('BENCH_LIGHT_HOT', 20);
const WARM = env('BENCH_LIGHT_WARM', 200);
const REST_S = env('BENCH_LIGHT_REST_S', 60);
const PAYMENTS = env('BENCH_LIGHT_PAYMENTS', 15);
const POLL_MS = env('BENCH_LIGHT_POLL_MS', 1000);
const RPS = env('BENCH_LIGHT_RPS', 5);
const SERVERS = env('BENCH_LIGHT_SERVERS', 3);
const COLD = TOTAL - HOT - WARM;
const DAY = 86_400_000;
const log = pino({ level: 'silent' });
const KEY = MasterKey.fromBytes(new Uint8Array(32).fill(7));

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Result {
  mode: string;
  restPerHour: number;
  /** At rest, each server's requests per hour. */
  perServerPerHour: number[];
  perPayment: number;
  txRequestsPerPayment: number;
  readyS: number;
  p50: number;
  p95: number;
  max: number;
  detected: number;
  tracked: number;
}

async function run(node: RegtestNode, push: boolean, servers = 1): Promise<Result> {
  const all: EsploraTestServer[] = [];
  for (let i = 0; i < servers; i++) all.push(await startEsploraTestServer(node));
  const esplora = all[0]!;
  const requests = () => all.map((s) => s.throttle.requests);
  // Several servers: where each server's request log stands, and what all of them were asked since.
  const mark = () => all.map((s) => s.paths.length);
  const since = (from: number[], to = mark()) => all.flatMap((s, i) => s.paths.slice(from[i], to[i]));
  const testDb = await createTestDb('sqlite');
  const repo = new WalletRepository(testDb.db);
  const { api_id } = await registerWallet(
    { repo, masterKey: KEY, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true },
    { pub: generateNewWallet(true).accountKey },
  );
  const wallet: WalletRow = (await repo.findByApiId(api_id))!;
  const issuer = new AddressIssuer(testDb.db.engine);
  // Oldest first (cold, then warm, then hot), in batches of 500 per transaction.
  const t0 = Date.now();
  const plan: number[] = [...Array(COLD).fill(t0 - 30 * DAY), ...Array(WARM).fill(t0 - 2 * DAY), ...Array(HOT).fill(t0)];
  const rows: Array<{ id: bigint; script: Uint8Array }> = [];
  for (let i = 0; i < plan.length; i += 500) {
    const batch = plan.slice(i, i + 500);
    const issued = await testDb.db.kysely.transaction().execute(async (trx) => {
      const out = [];
      for (const at of batch) out.push(await issuer.issueForPayment(trx, wallet, at));
      return out;
    });
    for (const r of issued) rows.push({ id: r.id, script: Buffer.from(r.script_hex, 'hex') });
  }
  const hot = rows.slice(COLD + WARM);

  const chains = new ChainService(testDb.db, Date.now, log, POLL_MS, 2n);
  await chains.configure({
    test: {
      esploraUrl: esplora.url,
      ...(servers > 1 ? { extraServers: all.slice(1).map((s) => s.url) } : {}),
      budget: { ratePerSecond: RPS, burst: RPS * 4 },
      network: 'regtest',
      ...(push ? { esploraWsUrl: esplora.ws.url } : {}),
    },
  });
  const detectedAt = new Map<bigint, number>();
  chains.onChange(async (_trx, change) => {
    const at = performance.now();
    for (const id of change.addressIds) if (!detectedAt.has(id)) detectedAt.set(id, at);
  });
  const watcher = chains.get('test')!.watcher;
  chains.start();
  try {
    // Caught up: the header chain synced, every hot address asked once (and tracked, with push).
    const readyT0 = performance.now();
    const ready = Date.now() + 300_000;
    while (Date.now() < ready) {
      const h = watcher.health() as Record<string, unknown> & { push?: { tracked: number } };
      if ((h.polls as number) >= 2 && h.tipHeight !== null && (!push || h.push?.tracked === Math.min(HOT, 100))) break;
      await sleep(200);
    }
    const readyS = (performance.now() - readyT0) / 1000;
    await sleep(3000);

    // At rest: no payment, count what reaches the server.
    const restStart = requests();
    const restT0 = performance.now();
    await sleep(REST_S * 1000);
    const restEach = requests().map((n, i) => n - restStart[i]!);
    const restReqs = restEach.reduce((a, b) => a + b, 0);
    const restMs = performance.now() - restT0;
    const restRate = restReqs / restMs; // per ms

    // Payments to hot addresses at random moments, one at a time. Counted per payment: the requests naming
    // its address's history from payment to detection and from the block to its confirmation, and those
    // naming its txid (raw transaction, Merkle proof).
    const latencies: number[] = [];
    const pathsBefore = mark();
    const txids: string[] = [];
    const histories = (sha: string, from: number[], to: number[]) => since(from, to).filter((p) => p === `/scripthash/${sha}/txs`).length;
    let historyAsks = 0;
    for (let i = 0; i < Math.min(PAYMENTS, hot.length); i++) {
      await sleep(Math.random() * 2 * POLL_MS);
      const target = hot[i]!;
      const payIdx = mark();
      const paid = await node.pay(target.script, 20_000n + BigInt(i));
      const sent = performance.now();
      txids.push(paid.txid);
      const end = Date.now() + 180_000;
      while (!detectedAt.has(target.id) && Date.now() < end) await sleep(5);
      const at = detectedAt.get(target.id);
      if (at !== undefined) latencies.push(Math.max(0, at - sent));
      historyAsks += histories(scriptSha(target.script), payIdx, mark());
    }
    // Their confirmation: one block, until each is recorded mined.
    detectedAt.clear();
    const mineIdx = mark();
    await node.mine(1);
    const end = Date.now() + 300_000;
    while (hot.slice(0, PAYMENTS).some((h) => !detectedAt.has(h.id)) && Date.now() < end) await sleep(20);
    for (const h of hot.slice(0, PAYMENTS)) historyAsks += histories(scriptSha(h.script), mineIdx, mark());
    const paid = latencies.length;
    const txPaths = since(pathsBefore).filter((p) => txids.some((t) => p.includes(t))).length;
    latencies.sort((a, b) => a - b);
    const h = watcher.health() as { push?: { tracked: number } };
    return {
      mode: push ? 'polling + websocket push' : `polling only, ${servers} server${servers > 1 ? 's' : ''}`,
      restPerHour: Math.round(restRate * 3_600_000),
      perServerPerHour: restEach.map((n) => Math.round((n / restMs) * 3_600_000)),
      perPayment: paid > 0 ? (historyAsks + txPaths) / paid : Number.NaN,
      txRequestsPerPayment: paid > 0 ? txPaths / paid : Number.NaN,
      readyS,
      p50: quantile(latencies, 0.5),
      p95: quantile(latencies, 0.95),
      max: latencies[latencies.length - 1] ?? Number.NaN,
      detected: paid,
      tracked: h.push?.tracked ?? 0,
    };
  } finally {
    await chains.close();
    for (const s of all) await s.close();
    await testDb.dispose();
  }
}

console.log('satgate light mode (Esplora) benchmark');
console.log(`machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`);
console.log(
  `${TOTAL} watched addresses: ${HOT} hot, ${WARM} warm, ${COLD} cold; polls ${POLL_MS} ms apart, budget ${RPS} requests/s (bursts ${RPS * 4}), ` +
    `tip cached 10 s; ${REST_S} s at rest, then ${PAYMENTS} payments to hot addresses and one block`,
);
const node = await startRegtestNode();
const results: Result[] = [];
try {
  results.push(await run(node, false, 1));
  if (SERVERS > 1) results.push(await run(node, false, SERVERS));
  results.push(await run(node, true, 1));
} finally {
  await node.stop();
}
const ms = (v: number) => (Number.isNaN(v) ? 'n/a' : `${Math.round(v)} ms`);
console.log('');
console.log('| mode | requests/hour at rest | per server | requests per payment (of which txid) | detection p50 | p95 | max | detected | initial sync |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  console.log(
    `| ${r.mode}${r.tracked ? ` (${r.tracked} tracked)` : ''} | ${r.restPerHour.toLocaleString('en-US')} | ${r.perServerPerHour.map((n) => n.toLocaleString('en-US')).join(' / ')} | ${r.perPayment.toFixed(1)} (${r.txRequestsPerPayment.toFixed(1)}) | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.max)} | ${r.detected}/${PAYMENTS} | ${r.readyS.toFixed(0)} s |`,
  );
}
process.exit(0);
