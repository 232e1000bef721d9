// `satgate start` with only SATGATE_LIVE_ELECTRUM_URL (no node, no development chain) serves live wallets: a
// mainnet xpub registers, orders and payment requests get mainnet addresses, and /health shows the Electrum
// source connected. The only Electrum server here serves a bcoin regtest chain, whose headers can never reach
// mainnet's checkpoint (block 840,000): /health says so (unverified, not ok, the reason as its error), and
// nothing that server claims counts, neither a real transaction mined on its chain to a live address (with
// a valid Merkle proof into its own blocks) nor an invented one. Also: `satgate status`, `satgate doctor`,
// and the start refused when both a node and an Electrum server are set for mainnet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRegtestNode, type RegtestNode } from '../../../test/support/regtest-node.ts';
import { startElectrumTestServer, type ElectrumTestServer } from '../../../test/support/electrum-test-server.ts';
import { createTestDb, testEngines, type TestDb } from '../../../test/support/test-db.ts';
import { writeRatesFile } from '../../../test/support/rates-file.ts';
import { customRequest } from '../../../test/support/payment-api.ts';
import { eventually, freePort, runCli, startServerProcess, type ServerProcess } from '../../../test/support/server-process.ts';
import { generateNewWallet } from '../../bitcoin/new-wallet.ts';
import { decodeAddress } from '../../bitcoin/address.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('satgate start on %s with SATGATE_LIVE_ELECTRUM_URL and no node', (engine) => {
  let electrum: ElectrumTestServer;
  let testDb: TestDb;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    electrum = await startElectrumTestServer(node);
    testDb = await createTestDb(engine);
    await testDb.db.close();
    env = {
      ...testDb.env,
      SATGATE_DATA_DIR: testDb.env.SATGATE_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'satgate-live-electrum-')),
      SATGATE_LIVE_ELECTRUM_URL: electrum.url,
      SATGATE_LIGHT_MAX_RPS: '500',
      SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }),
      SATGATE_POLL_MS: '100',
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
    };
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await testDb?.dispose();
    await electrum?.close();
  });

  const get = async (path: string) => (await fetch(`${server!.url}${path}`)).json() as Promise<Record<string, any>>;
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('serves a live wallet: mainnet addresses, the source connected but unverified in /health, and no claim of the wrong chain counts', async () => {
    server = await startServerProcess(env);
    expect(server.output()).not.toContain('DEVELOPMENT MODE');

    const health = await eventually(async () => {
      const h = await get('/health');
      return h.chain_live?.connected === true && h.chain_live?.serverTipHeight !== null && h.chain_live?.error ? h : undefined;
    }, 30_000, 'the live Electrum source connected and polled');
    expect(health.chain_test).toBeUndefined(); // no development chain, no test network
    expect(health.chain_live).toMatchObject({
      ok: false,
      network: 'mainnet',
      source: 'electrum',
      sourceUrl: electrum.url,
      connected: true,
      verified: false,
      tipHeight: null,
      headerHeight: null,
      serverTipHeight: await node.height(),
    });
    expect(health.chain_live.error).toContain("below mainnet's checkpoint at 840000");

    // A live wallet from a mainnet xpub, an order address and a payment request: both mainnet addresses.
    const added = await post('/add_pub', { pub: generateNewWallet(false).accountKey });
    expect(added.body.return, JSON.stringify(added.body)).toBe('0');
    const apiId = added.body.api_id as string;
    expect(apiId).toMatch(/^live_/);
    const order = await post('/set_addr', { api_id: apiId });
    expect(order.body.return, JSON.stringify(order.body)).toBe('0');
    const orderAddress = order.body.addr as string;
    expect(orderAddress).toMatch(/^bc1q/);

    const client = await runCli(['client', 'create', '--api-id', apiId, '--json'], env);
    expect(client.code, client.stderr).toBe(0);
    const { client_id, client_secret } = JSON.parse(client.stdout) as { client_id: string; client_secret: string };
    const token = (await post('/oauth/token', { grant_type: 'client_credentials', client_id, client_secret })).body.access_token as string;
    const payment = await post('/api/v1/payment/request', customRequest(apiId), { authorization: `Bearer ${token}` });
    expect(payment.status, JSON.stringify(payment.body)).toBe(200);
    const paymentAddress = payment.body.crypto_address as string;
    expect(paymentAddress).toMatch(/^bc1q/);

    // The server's chain carries a real payment to the live payment address, mined with a valid Merkle proof
    // into a regtest block, and invents one to the order address: neither changes anything.
    await node.pay(decodeAddress(paymentAddress).script, 50_000n);
    await node.mine(1);
    electrum.lies.phantomPayment = { script: decodeAddress(orderAddress).script, value: 50_000n };
    const polls = (await get('/health')).chain_live.polls as number;
    await eventually(async () => ((await get('/health')).chain_live.polls >= polls + 5 ? true : undefined), 30_000, 'five more polls');
    expect(await get(`/api/v1/payment/${payment.body.payment_reference}`)).toMatchObject({
      status: 'unpaid',
      confirmed_crypto_amount: 0,
      unconfirmed_crypto_amount: 0,
    });
    expect((await get(`/balance/${paymentAddress}`)).balance).toEqual({ confirmed: '0', unconfirmed: '0' });
    expect((await get(`/balance/${orderAddress}`)).balance).toEqual({ confirmed: '0', unconfirmed: '0' });
    expect((await get('/health')).chain_live).toMatchObject({ verified: false, tipHeight: null, serverTipHeight: await node.height() });

    // satgate status says the same.
    const status = await runCli(['status', '--json'], env);
    expect(status.code, status.stderr).toBe(1); // the live chain is not ok
    expect(JSON.parse(status.stdout).chains).toEqual([
      expect.objectContaining({ chain: 'live', network: 'mainnet', source: 'electrum', connected: true, verified: false, ok: false, tipHeight: null }),
    ]);

    // satgate doctor finds the server below mainnet's checkpoint.
    const doctor = await runCli(['doctor'], env);
    expect(doctor.stdout).toMatch(/chain live.*below mainnet's checkpoint 840000/);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;
  }, 400_000);

  it('refuses to start with both a node and an Electrum server for mainnet, naming both', async () => {
    const res = await runCli(['start'], { ...env, SATGATE_LIVE_RPC_URL: 'http://user:pass@127.0.0.1:8332/' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('SATGATE_LIVE_RPC_URL and SATGATE_LIVE_ELECTRUM_URL are both set: choose exactly one chain source for mainnet');
  });
});
