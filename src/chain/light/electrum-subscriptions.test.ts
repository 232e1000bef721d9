// Electrum subscriptions within a server's limits: Fulcrum and ElectrumX refuse more than 50,000 script
// subscriptions a session by default. satgate keeps at most SATGATE_LIGHT_MAX_SUBSCRIPTIONS per server (below
// that), learns a lower limit from a refusal, keeps hot addresses subscribed first and polls the rest within the
// request budget, so no payment is missed. Test Electrum servers over the real bcoin regtest node.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../../test/support/regtest-node.ts';
import { startElectrumTestServer, type ElectrumTestServer } from '../../../test/support/electrum-test-server.ts';
import { TEST_BUDGET } from '../../../test/support/chain-sources.ts';
import { createTestApp, type TestApp } from '../../../test/support/test-app.ts';
import { testEngines } from '../../../test/support/test-db.ts';
import { writeRatesFile } from '../../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../../test/support/payment-api.ts';
import { decodeAddress } from '../../bitcoin/address.ts';
import { ElectrumBackend } from './electrum-backend.ts';
import { parseElectrumUrl } from './electrum-client.ts';
import { electrumScriptHash } from './script-hash.ts';
import type { MemberHealth } from './pool-member.ts';

vi.setConfig({ testTimeout: 180_000 });

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

const p2wpkh = () => new Uint8Array([0x00, 0x14, ...randomBytes(20)]);

describe('one Electrum server and a subscription cap', () => {
  let server: ElectrumTestServer;
  let backend: ElectrumBackend;
  beforeAll(async () => {
    server = await startElectrumTestServer(node);
    backend = new ElectrumBackend({ endpoint: parseElectrumUrl(server.url), budget: TEST_BUDGET, maxSubscriptions: 2 });
  });
  afterAll(async () => {
    await backend?.close();
    await server?.close();
  });

  it('over the cap a hot address takes the place of one that is not hot, and the others are polled with get_history alone', async () => {
    const [warm1, warm2, hot, late] = [p2wpkh(), p2wpkh(), p2wpkh(), p2wpkh()];
    await backend.history(warm1, undefined, {});
    await backend.history(warm2, undefined, {});
    expect(server.subscribedCount()).toBe(2);
    await backend.history(hot, undefined, { hot: true });
    // The oldest address that is not hot was unsubscribed for the hot one: the server holds two, the hot one among them.
    expect(server.subscribedCount()).toBe(2);
    expect(server.calls).toContain('blockchain.scripthash.unsubscribe');
    expect(server.scriptAsks.at(-1)).toBe(electrumScriptHash(hot));
    const asks = server.scriptAsks.length;
    const answer = await backend.history(late, undefined, {});
    expect(answer).toEqual({ status: null, entries: [] });
    expect(server.scriptAsks.length).toBe(asks);
    expect(backend.subscriptions()).toEqual({ subscribed: 2, max: 2, polledOverCap: 1 });
    // The server reads its stated features once a connection (protocol range, pruning, genesis).
    expect(backend.client.features).toMatchObject({ genesis_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});

describe.each(testEngines())('an Electrum server refusing subscriptions over a small limit, beside another, on %s', (engine) => {
  let limited: ElectrumTestServer;
  let other: ElectrumTestServer;
  let t: TestApp;
  let apiId: string;
  let token: string;

  beforeAll(async () => {
    limited = await startElectrumTestServer(node);
    other = await startElectrumTestServer(node);
    limited.limits.subscriptions = 3;
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }) },
      chains: { test: { electrumUrl: limited.url, extraServers: [other.url], quorum: 2, budget: TEST_BUDGET, maxSubscriptions: 4, network: 'regtest' } },
      start: true,
    });
    apiId = await addSandboxWallet(t.app, { return_url: 'https://shop.example/hooks' });
    token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
    await t.ctx.chains.pollNow();
  });
  afterAll(async () => {
    await t?.close();
    await limited?.close();
    await other?.close();
  });

  it('each server holds no more subscriptions than it accepts or the cap allows, and payments to addresses over it are seen', async () => {
    const orders = [];
    for (let i = 0; i < 7; i++) {
      const res = await postPayment(t.app, token, customRequest(apiId));
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { payment_reference: string; crypto_address: string };
      orders.push({ ...body, script: decodeAddress(body.crypto_address).script });
    }
    for (let i = 0; i < 3; i++) await t.ctx.chains.pollNow();
    expect(limited.subscribedCount()).toBeLessThanOrEqual(3);
    expect(other.subscribedCount()).toBeLessThanOrEqual(4);
    const servers = (await t.app.inject({ method: 'GET', url: '/health' })).json().chain_test.servers as MemberHealth[];
    expect(servers[0]!.subscriptions).toMatchObject({ max: 3, subscribed: 3 });
    expect(servers[1]!.subscriptions).toMatchObject({ max: 4, subscribed: 4 });
    expect(servers[0]!.subscriptions!.polledOverCap + servers[1]!.subscriptions!.polledOverCap).toBeGreaterThan(0);

    await node.pay(orders[0]!.script, 50_000n);
    await node.pay(orders[6]!.script, 60_000n);
    await node.mine(1);
    for (const o of [orders[0]!, orders[6]!]) {
      let s: Record<string, unknown> = {};
      // Paid more than asked: `confirmed-more`.
      for (let i = 0; i < 6 && !String(s.status).startsWith('confirmed'); i++) {
        await t.ctx.chains.pollNow();
        s = (await t.app.inject({ method: 'GET', url: `/api/v1/payment/${o.payment_reference}` })).json();
      }
      expect(s.status).toMatch(/^confirmed/);
    }
    // The limit learnt holds across a reconnect: the renewed subscriptions stay within it.
    limited.dropConnections();
    for (let i = 0; i < 3; i++) await t.ctx.chains.pollNow();
    expect(limited.subscribedCount()).toBeLessThanOrEqual(3);
  });
});
