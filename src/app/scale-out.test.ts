// Several `satgate start` processes on one PostgreSQL database and one node, behind a round-robin proxy:
// one lease holder watches the chain for payments created through any of them, takes over on SIGKILL and
// is fenced off after SIGSTOP. PostgreSQL only (on SQLite the service is one process).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestDb, type TestDb } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { eventually, runCli, startServerProcess, type ServerProcess } from '../../test/support/server-process.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../test/support/round-robin-proxy.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { decodeAddress } from '../bitcoin/address.ts';

const PG_URL = process.env.TEST_DATABASE_URL;
if (!PG_URL && process.env.CI !== 'true') console.warn('skipping scale-out tests: TEST_DATABASE_URL is not set (they need PostgreSQL)');
const LEASE_MS = 1_500;

/** Exact satoshis of a BTC decimal string. */
function sats(btc: string): bigint {
  const [whole, frac = ''] = btc.split('.');
  return BigInt(whole!) * 100_000_000n + BigInt(frac.padEnd(8, '0'));
}

describe.skipIf(!PG_URL && process.env.CI !== 'true')('three satgate processes on one PostgreSQL database', () => {
  let node: RegtestNode;
  let testDb: TestDb;
  let env: Record<string, string>;
  const procs: ServerProcess[] = [];
  const up = new Set<ServerProcess>();
  let proxy: RoundRobinProxy;
  let token: string;
  let apiId: string;

  const json = async (res: Response) => (await res.json()) as Record<string, any>;
  const health = async (p: ServerProcess) => (await json(await fetch(`${p.url}/health`))).singleton as Record<string, any>;
  const createPayment = async () => {
    const res = await fetch(`${proxy.url}/api/v1/payment/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ type: 'custom', api_id: apiId, crypto_currency: 'testBTC', order_currency: 'USD', order_amount: 25, payer_id: 'payer@example.com', payer_ip: '203.0.113.7', notify_url: 'http://127.0.0.1:9/hook' }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    // The amount as the exact decimal the JSON carries, not as a float.
    const amount = /"crypto_amount":\s*"?([0-9.]+)/.exec(text)![1]!;
    return { ...(JSON.parse(text) as { payment_reference: string; crypto_address: string }), crypto_amount: amount };
  };
  const statusOf = async (ref: string) => (await json(await fetch(`${proxy.url}/api/v1/payment/${ref}`))).status as string;
  const waitStatus = (ref: string, status: string, ms = 20_000) =>
    eventually(async () => ((await statusOf(ref)) === status ? true : undefined), ms, `${ref} ${status}`);
  const pay = async (p: { crypto_address: string; crypto_amount: string }) => node.pay(decodeAddress(p.crypto_address).script, sats(p.crypto_amount));
  const holderOf = async (among: ServerProcess[]) => {
    for (const p of among) if ((await health(p)).state === 'holder') return p;
    return undefined;
  };

  beforeAll(async () => {
    node = await startRegtestNode();
    testDb = await createTestDb('postgres');
    await testDb.db.close();
    env = {
      ...testDb.env,
      SATGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'satgate-scale-')),
      SATGATE_TEST_RPC_URL: node.rpcUrl,
      SATGATE_TEST_NETWORK: 'regtest',
      SATGATE_RATES_FILE: writeRatesFile(),
      SATGATE_POLL_MS: '100',
      SATGATE_LEASE_MS: String(LEASE_MS),
      SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1',
    };
    // The first process starts alone, so it is the holder; the other two follow.
    for (let i = 0; i < 3; i++) {
      const p = await startServerProcess(env);
      procs.push(p);
      up.add(p);
    }
    proxy = await startRoundRobinProxy(() => procs.filter((p) => up.has(p)).map((p) => p.url));
    const wallet = await json(
      await fetch(`${proxy.url}/add_pub`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pub: generateNewWallet(true).accountKey }) }),
    );
    apiId = wallet.api_id;
    const cli = await runCli(['client', 'create', '--api-id', apiId, '--json'], env);
    expect(cli.code, cli.stderr).toBe(0);
    const client = JSON.parse(cli.stdout) as { client_id: string; client_secret: string };
    const t = await json(
      await fetch(`${proxy.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
      }),
    );
    token = t.access_token;
  }, 120_000);

  afterAll(async () => {
    for (const p of procs) {
      p.child.kill('SIGCONT');
      p.child.kill('SIGKILL');
    }
    await proxy?.close();
    await testDb?.dispose();
    await node?.stop();
  });

  it('elects one holder that watches payments created through every process, notifying each status change once', async () => {
    const states = await Promise.all(procs.map(health));
    expect(states.map((s) => s.state)).toEqual(['holder', 'follower', 'follower']);
    expect(new Set(states.map((s) => s.holder))).toEqual(new Set([states[0]!.process]));
    expect(states[0]!.lease_age_ms).toBeLessThan(LEASE_MS);

    const payments = [await createPayment(), await createPayment(), await createPayment()];
    // Round robin: each of the three processes created one of them.
    expect(new Set(proxy.served.slice(-3))).toEqual(new Set(procs.map((p) => p.url)));
    for (const p of payments) await pay(p);
    for (const p of payments) await waitStatus(p.payment_reference, 'unconfirmed');
    await node.mine(1);
    for (const p of payments) await waitStatus(p.payment_reference, 'confirmed');
    const metrics = await Promise.all(procs.map(async (p) => (await fetch(`${p.url}/metrics`)).text()));
    expect(metrics.map((m) => /^satgate_singleton_holder (\d)$/m.exec(m)?.[1])).toEqual(['1', '0', '0']);
  }, 60_000);

  it('after SIGKILL of the holder another takes over within two lease periods and sees the payments made meanwhile', async () => {
    const holder = (await holderOf(procs))!;
    const killedAt = Date.now();
    holder.child.kill('SIGKILL');
    up.delete(holder);
    const during = await createPayment();
    await pay(during);
    const survivors = procs.filter((p) => up.has(p));
    const next = await eventually(() => holderOf(survivors), 4 * LEASE_MS, 'a new holder');
    expect(Date.now() - killedAt).toBeLessThanOrEqual(2 * LEASE_MS + 500);
    expect((await health(next)).holder).toBe((await health(next)).process);
    await waitStatus(during.payment_reference, 'unconfirmed');
    await node.mine(1);
    await waitStatus(during.payment_reference, 'confirmed');
  }, 60_000);

  it('a holder stopped past its lease writes nothing after losing it and rejoins as a follower', async () => {
    const survivors = procs.filter((p) => up.has(p));
    const stopped = (await holderOf(survivors))!;
    const other = survivors.find((p) => p !== stopped)!;
    stopped.child.kill('SIGSTOP');
    up.delete(stopped);
    const next = await eventually(async () => ((await health(other)).state === 'holder' ? other : undefined), 4 * LEASE_MS, 'takeover');
    const during = await createPayment();
    await pay(during);
    await waitStatus(during.payment_reference, 'unconfirmed');

    stopped.child.kill('SIGCONT');
    up.add(stopped);
    // The lease row names its holder only while it is unexpired: on a loaded machine the live holder's renewal can
    // come late, so the resumed process is asked until it reports both its loss and the holder. A process just
  // resumed from SIGSTOP on a saturated 2-core machine can take several lease periods to run its next renewal.
    const after = await eventually(async () => {
      const h = await health(stopped);
      return h.state === 'lost' && h.lost_at !== null && h.holder !== null ? h : undefined;
    }, 10 * LEASE_MS, 'the resumed process to see it lost the lease');
    expect(after.holder).toBe((await health(next)).process);
    expect(after.lost_at).not.toBeNull();
    await node.mine(1);
    await waitStatus(during.payment_reference, 'confirmed');
    // It competes again as a follower. Which process holds the lease afterwards is the machine's timing (on a
    // saturated machine the live holder's own renewal can come late and pass the lease on); what must hold is
    // that exactly one of the running processes holds it.
    const holders = await eventually(async () => {
      const states = await Promise.all(procs.filter((p) => up.has(p)).map(health));
      const held = states.filter((s) => s.state === 'holder');
      return held.length === 1 && states.every((s) => s.holder === held[0]!.process) ? held : undefined;
    }, 10 * LEASE_MS, 'exactly one holder among the running processes');
    expect(holders).toHaveLength(1);
  }, 90_000);

  it('recorded every status change and queued every notification exactly once across the processes', async () => {
    const c = new pg.Client({ connectionString: env.DATABASE_URL });
    await c.connect();
    try {
      const dupTransitions = await c.query(
        `select payment_id, to_status, count(*) as n from payment_transitions group by payment_id, to_status having count(*) > 1`,
      );
      expect(dupTransitions.rows).toEqual([]);
      const transitions = await c.query(`select count(*)::int as n from payment_transitions where from_status is not null`);
      const webhooks = await c.query(`select count(*)::int as n from outbox where kind = 'webhook' and payment_id is not null`);
      // Five payments went unpaid -> unconfirmed -> confirmed: ten changes, one webhook each.
      expect(transitions.rows[0].n).toBe(10);
      expect(webhooks.rows[0].n).toBe(10);
      const dupOutbox = await c.query(`select payload_json, count(*) from outbox group by payload_json having count(*) > 1`);
      expect(dupOutbox.rows).toEqual([]);
    } finally {
      await c.end();
    }
  });
});
