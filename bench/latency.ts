// Detection latency benchmark (issue 16): on a bcoin regtest node, payments broadcast at random moments;
// for each, the time from sendrawtransaction returning to (a) its status showing it (the committed payment
// row no longer `unpaid`, which is what GET /api/v1/payment/:ref answers) and (b) its signed webhook
// (signature verified) arriving at a local merchant server. Reported as p50/p95/p99 in milliseconds and in
// units of the poll interval, at 250 ms and 1 s polling, with the node's push events off (polling only)
// and on (bcoin's websocket, or Bitcoin Core's ZMQ protocol from a ZMTP publisher fed by the same node).
// Run: node bin/run-ts.js bench/latency.ts   (env: BENCH_LATENCY_PAYMENTS, default 200)
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { createTestApp } from '../test/support/test-app.ts';
import { writeRatesFile } from '../test/support/rates-file.ts';
import { startRegtestNode, type RegtestNode } from '../src/devchain/regtest-node.ts';
import { generateNewWallet } from '../src/bitcoin/new-wallet.ts';
import { verifyWebhookSignature } from '../src/notify/webhook-signature.ts';
import { relayRegtest, ZmqTestPublisher } from '../test/support/zmq-publisher.ts';

const PAYMENTS = Number(process.env.BENCH_LATENCY_PAYMENTS ?? 200);
/** off: polling only; bcoin: bcoin's websocket; zmq: Bitcoin Core's ZMQ protocol (test publisher fed by the node). */
type Push = 'off' | 'bcoin' | 'zmq';
const CONFIGS: { pollMs: number; push: Push }[] = [
  { pollMs: 250, push: 'off' },
  { pollMs: 1000, push: 'off' },
  { pollMs: 250, push: 'bcoin' },
  { pollMs: 1000, push: 'bcoin' },
  { pollMs: 1000, push: 'zmq' },
];

interface Pending {
  sentAt: number;
  /** When the node announced the transaction in its mempool (bcoin validates after sendrawtransaction returns). */
  acceptedAt?: number;
  statusAt?: number;
  webhookAt?: number;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** When the node accepted each transaction into its mempool, by txid. */
const acceptedAt = new Map<string, number>();

async function runConfig(node: RegtestNode, zmqUrl: string, ratesFile: string, pollMs: number, push: Push) {
  const byRef = new Map<string, Pending>();
  let secret = '';
  let badSignatures = 0;
  const merchant = createServer((req, res) => {
    void readBody(req).then((body) => {
      const at = performance.now();
      const sig = String(req.headers['x-satgate-signature'] ?? '');
      if (!verifyWebhookSignature(sig, body, secret)) badSignatures++;
      else {
        const event = JSON.parse(body) as { payment_reference?: string; status?: string };
        const p = event.payment_reference ? byRef.get(event.payment_reference) : undefined;
        if (p && p.webhookAt === undefined && event.status !== 'unpaid') p.webhookAt = at;
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', r));
  const notifyUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/hook`;
  const t = await createTestApp('sqlite', {
    env: { SATGATE_RATES_FILE: ratesFile, SATGATE_POLL_MS: String(pollMs), SATGATE_NODE_PUSH: push === 'off' ? '0' : '1', SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1' },
    chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest', ...(push === 'zmq' ? { zmqUrl } : {}) } },
    start: true,
  });
  try {
    const reg = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey } });
    const apiId = String(reg.json().api_id);
    const client = await t.ctx.payments.oauth.createClient([apiId], t.ctx.masterKey);
    secret = client.webhook_secret;
    const tok = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret } });
    const token = String(tok.json().access_token);
    const created: { reference: string; address: string; sats: bigint }[] = [];
    for (let i = 0; i < PAYMENTS; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/payment/request',
        headers: { authorization: `Bearer ${token}` },
        payload: { type: 'custom', api_id: apiId, crypto_currency: 'testBTC', order_currency: 'USD', order_amount: 5, payer_id: `p${i}@example.com`, payer_ip: '203.0.113.7', notify_url: notifyUrl },
      });
      const body = res.json() as { payment_reference: string; crypto_address: string; crypto_amount: number | string };
      if (res.statusCode !== 200) throw new Error(`create failed: ${res.body}`);
      const row = await t.ctx.db.kysely.selectFrom('payments').select('crypto_sats').where('reference', '=', body.payment_reference).executeTakeFirstOrThrow();
      created.push({ reference: body.payment_reference, address: body.crypto_address, sats: row.crypto_sats });
    }
    const scripts = new Map((await t.ctx.db.kysely.selectFrom('addresses').select(['address', 'script_hex']).execute()).map((a) => [a.address, Buffer.from(a.script_hex, 'hex')]));
    // The status probe: every 2 ms, which pending payments the database (what the status read answers) shows as seen.
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const waiting = [...byRef.entries()].filter(([, p]) => p.statusAt === undefined).map(([r]) => r);
        if (waiting.length > 0) {
          const seen = await t.ctx.db.kysely.selectFrom('payments').select('reference').where('reference', 'in', waiting).where('status', '!=', 'unpaid').execute();
          const now = performance.now();
          for (const s of seen) byRef.get(s.reference)!.statusAt = now;
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    // Random moments: each payment after a random pause of 0 to 1.5 poll intervals, so sends fall at every phase of the poll.
    for (const c of created) {
      await new Promise((r) => setTimeout(r, Math.random() * pollMs * 1.5));
      const pending: Pending = { sentAt: 0 };
      const paid = await node.payMany([{ script: scripts.get(c.address)!, amount: c.sats }], (at) => {
        pending.sentAt = at;
        byRef.set(c.reference, pending);
      });
      pending.acceptedAt = acceptedAt.get(paid.txid);
    }
    const deadline = performance.now() + 30_000 + pollMs * 5;
    while (performance.now() < deadline && [...byRef.values()].some((p) => p.statusAt === undefined || p.webhookAt === undefined)) {
      await new Promise((r) => setTimeout(r, 20));
    }
    probing = false;
    await probe;
    const all = [...byRef.values()];
    const toStatus = all.filter((p) => p.statusAt !== undefined).map((p) => p.statusAt! - p.sentAt).sort((a, b) => a - b);
    const toHook = all.filter((p) => p.webhookAt !== undefined).map((p) => p.webhookAt! - p.sentAt).sort((a, b) => a - b);
    const accepted = all.filter((p) => p.acceptedAt !== undefined);
    const toAccept = accepted.map((p) => p.acceptedAt! - p.sentAt).sort((a, b) => a - b);
    const acceptToStatus = accepted.filter((p) => p.statusAt !== undefined).map((p) => p.statusAt! - p.acceptedAt!).sort((a, b) => a - b);
    const acceptToHook = accepted.filter((p) => p.webhookAt !== undefined).map((p) => p.webhookAt! - p.acceptedAt!).sort((a, b) => a - b);
    return { pollMs, push, sent: all.length, toStatus, toHook, toAccept, acceptToStatus, acceptToHook, badSignatures };
  } finally {
    await t.close();
    await new Promise((r) => merchant.close(r));
  }
}

async function main(): Promise<void> {
  const cpu = cpus();
  console.log('satgate detection latency benchmark');
  console.log(`machine: ${cpu.length} CPUs (${cpu[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`);
  console.log(`${PAYMENTS} payments per configuration, each sent after a random pause of 0 to 1.5 poll intervals; SQLite; bcoin regtest node in-process`);
  const node = await startRegtestNode();
  const zmq = await ZmqTestPublisher.start();
  relayRegtest(zmq, node);
  node.onMempoolTx((txid) => acceptedAt.set(txid, performance.now()));
  const ratesFile = writeRatesFile();
  const rows: string[][] = [];
  const nodeRows: string[][] = [];
  try {
    for (const c of CONFIGS) {
      process.stdout.write(`  poll ${c.pollMs} ms, push ${c.push} … `);
      const r = await runConfig(node, zmq.url, ratesFile, c.pollMs, c.push);
      // Confirm what was sent so the payer's coins stay plentiful and the next block starts clean.
      await node.mine(1);
      const fmt = (xs: number[], q: number) => {
        const v = quantile(xs, q);
        return `${v.toFixed(0)} ms (${(v / c.pollMs).toFixed(2)})`;
      };
      rows.push([
        `${c.pollMs} ms`,
        c.push,
        `${r.toStatus.length}/${r.sent}`,
        fmt(r.toStatus, 0.5),
        fmt(r.toStatus, 0.95),
        fmt(r.toStatus, 0.99),
        `${r.toHook.length}/${r.sent}`,
        fmt(r.toHook, 0.5),
        fmt(r.toHook, 0.95),
        fmt(r.toHook, 0.99),
      ]);
      const ms = (xs: number[], q: number) => `${quantile(xs, q).toFixed(0)} ms`;
      nodeRows.push([
        `${c.pollMs} ms`,
        c.push,
        ms(r.toAccept, 0.5),
        ms(r.toAccept, 0.95),
        ms(r.acceptToStatus, 0.5),
        ms(r.acceptToStatus, 0.95),
        ms(r.acceptToStatus, 0.99),
        ms(r.acceptToHook, 0.5),
        ms(r.acceptToHook, 0.95),
        ms(r.acceptToHook, 0.99),
      ]);
      console.log(`done${r.badSignatures > 0 ? ` (${r.badSignatures} webhooks with a bad signature)` : ''}`);
    }
  } finally {
    await node.stop();
    await zmq.close();
  }
  const table = (head: string[], body: string[][]) => {
    const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
    const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
    console.log(line(head));
    console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
    for (const r of body) console.log(line(r));
  };
  console.log('');
  table(['poll', 'push', 'seen', 'status p50', 'status p95', 'status p99', 'hooks', 'webhook p50', 'webhook p95', 'webhook p99'], rows);
  console.log('Latency from sendrawtransaction returning; in brackets, in units of the poll interval.');
  console.log('');
  table(['poll', 'push', 'node accepts p50', 'node accepts p95', 'status p50', 'status p95', 'status p99', 'webhook p50', 'webhook p95', 'webhook p99'], nodeRows);
  console.log("The same split at the node's mempool acceptance: bcoin answers sendrawtransaction before it validates, so");
  console.log("'node accepts' is the node's own share (Bitcoin Core answers after validating); the rest is from acceptance on.");
}

await main();
