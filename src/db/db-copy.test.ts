// `satgate db copy` end to end: a SQLite installation with wallets, payments, chain transactions, outbox rows
// and rate history is copied into an empty PostgreSQL schema; the service started on the copy answers every
// status, balance and transaction listing exactly as before. Needs PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { eventually, runCli, startServerProcess, type ServerProcess } from '../../test/support/server-process.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { decodeAddress } from '../bitcoin/address.ts';

const PG_URL = process.env.TEST_DATABASE_URL;
if (!PG_URL && process.env.CI !== 'true') console.warn('skipping db copy tests: TEST_DATABASE_URL is not set (they need PostgreSQL)');

describe.skipIf(!PG_URL && process.env.CI !== 'true')('satgate db copy from SQLite to PostgreSQL', () => {
  let node: RegtestNode;
  let server: ServerProcess | undefined;
  let env: Record<string, string>;
  let targetUrl: string;
  const schema = `t_${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    node = await startRegtestNode();
    env = {
      SATGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'satgate-copy-')),
      SATGATE_TEST_RPC_URL: node.rpcUrl,
      SATGATE_TEST_NETWORK: 'regtest',
      SATGATE_RATES_FILE: writeRatesFile(),
      SATGATE_POLL_MS: '100',
      SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1',
    };
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const u = new URL(PG_URL!);
    u.searchParams.set('options', `-c search_path=${schema}`);
    targetUrl = u.toString();
  }, 60_000);

  afterAll(async () => {
    server?.child.kill('SIGKILL');
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
    await node?.stop();
  });

  const call = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${server!.url}${path}`, init);
    return { status: res.status, body: await res.text() };
  };
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
    JSON.parse((await call(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })).body) as Record<
      string,
      any
    >;

  it('copies every row, verifies it, and the service on the copy answers every read identically', async () => {
    server = await startServerProcess(env);
    const pubs = [generateNewWallet(true).accountKey, generateNewWallet(true).accountKey];
    const apiIds: string[] = [];
    for (const pub of pubs) apiIds.push((await post('/add_pub', { pub, notification_email: 'shop@example.com' })).api_id);
    const addrs = [(await post('/set_addr', { api_id: apiIds[0] })).addr, (await post('/set_addr', { api_id: apiIds[1] })).addr] as string[];
    const cli = await runCli(['client', 'create', '--api-id', apiIds[0]!, '--json'], env);
    expect(cli.code, cli.stderr).toBe(0);
    const client = JSON.parse(cli.stdout);
    const token = (await post('/oauth/token', { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }))
      .access_token as string;
    const refs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call('/api/v1/payment/request', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ type: 'custom', api_id: apiIds[0], crypto_currency: 'testBTC', order_currency: 'USD', order_amount: 10 + i, payer_id: 'p@example.com', payer_ip: '203.0.113.7', notify_url: 'http://127.0.0.1:9/hook' }),
      });
      expect(res.status, res.body).toBe(200);
      const p = JSON.parse(res.body);
      refs.push(p.payment_reference);
      const amount = /"crypto_amount":\s*"?([0-9.]+)/.exec(res.body)![1]!;
      const [w, f = ''] = amount.split('.');
      // The first two are paid in full, the third in part.
      const sats = BigInt(w!) * 100_000_000n + BigInt(f.padEnd(8, '0'));
      await node.pay(decodeAddress(p.crypto_address).script, i < 2 ? sats : sats / 2n);
    }
    await node.pay(decodeAddress(addrs[0]!).script, 123_456n);
    await node.pay(decodeAddress(addrs[1]!).script, 7_000_000n);
    await node.mine(1);
    await node.pay(decodeAddress(addrs[1]!).script, 1_000n); // stays unconfirmed
    const height = await node.height();
    await eventually(async () => (JSON.parse((await call('/health')).body).chain_test.tipHeight === height ? true : undefined), 20_000, 'caught up');
    await eventually(async () => (JSON.parse((await call(`/balance/${addrs[1]}`)).body).balance.unconfirmed !== '0' ? true : undefined), 20_000, 'mempool');
    await eventually(async () => (JSON.parse((await call(`/api/v1/payment/${refs[0]}`)).body).status === 'confirmed' ? true : undefined), 20_000, 'paid');

    // Not compared: the current spot rate and today's exchange_history, which the new process's own rate refresh
    // changes; the copied rate history is compared row by row by the copy's checksum instead.
    const reads = [
      ...refs.map((r) => `/api/v1/payment/${r}`),
      ...addrs.map((a) => `/balance/${a}`),
      ...addrs.map((a) => `/unspent/${a}`),
      ...addrs.map((a) => `/addr_info/${a}`),
      ...pubs.map((p) => `/tx/${p}`),
      ...pubs.map((p) => `/wallet_type/${p}`),
    ];
    const before = await Promise.all(reads.map((r) => call(r)));
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;

    const copy = await runCli(['db', 'copy', '--to', targetUrl], env);
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stdout).toMatch(/^copied \d+ tables, \d+ rows, verified/);
    expect(copy.stderr).toMatch(/payments: verified 3 rows/);
    expect(copy.stderr).toMatch(/outbox: verified [1-9]\d* rows/);
    expect(copy.stderr).toMatch(/rate_records: verified [1-9]\d* rows/);
    expect(copy.stderr).toMatch(/chain_txs: verified [1-9]\d* rows/);

    // A second copy into the now filled target is refused.
    const again = await runCli(['db', 'copy', '--to', targetUrl], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/refusing to copy: the target database is not empty/);

    server = await startServerProcess({ ...env, DATABASE_URL: targetUrl });
    await eventually(async () => (JSON.parse((await call('/health')).body).chain_test.tipHeight === height ? true : undefined), 20_000, 'copy caught up');
    const after = await Promise.all(reads.map((r) => call(r)));
    for (let i = 0; i < reads.length; i++) expect({ read: reads[i], ...after[i] }).toEqual({ read: reads[i], ...before[i] });
    // The copy keeps working: new rows get fresh ids after the copied ones.
    expect((await post('/set_addr', { api_id: apiIds[1] })).return).toBe('0');

    // While a server runs on the SQLite database, its lock refuses a copy.
    server.child.kill('SIGTERM');
    await server.exited;
    server = await startServerProcess(env);
    const locked = await runCli(['db', 'copy', '--to', targetUrl], env);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toMatch(/another satgate server \(pid [^)]+\) is using this data directory/);
  }, 180_000);
});
