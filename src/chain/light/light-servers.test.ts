// Several Electrum servers in front of one real bcoin regtest chain, followed as one: no single server can
// hide a payment, the load spreads over them, and a server behind the tip is lagging and asked no histories.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../../test/support/regtest-node.ts';
import { startElectrumTestServer, type ElectrumTestServer } from '../../../test/support/electrum-test-server.ts';
import { TEST_BUDGET } from '../../../test/support/chain-sources.ts';
import { createTestApp, type TestApp } from '../../../test/support/test-app.ts';
import { testEngines } from '../../../test/support/test-db.ts';
import { writeRatesFile } from '../../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../../test/support/payment-api.ts';
import { decodeAddress } from '../../bitcoin/address.ts';
import type { MemberHealth } from './pool-member.ts';
import { electrumScriptHash } from './script-hash.ts';

// Each case polls three servers many times within the request budget; on a loaded machine (the whole suite on two
// cores) a case has taken over 60 s.
vi.setConfig({ testTimeout: 180_000 });

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('three Electrum servers on %s', (engine) => {
  let servers: ElectrumTestServer[];
  let t: TestApp;
  let apiId: string;
  let token: string;

  beforeAll(async () => {
    servers = [await startElectrumTestServer(node), await startElectrumTestServer(node), await startElectrumTestServer(node)];
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }) },
      chains: { test: { electrumUrl: servers[0]!.url, extraServers: [servers[1]!.url, servers[2]!.url], quorum: 2, budget: TEST_BUDGET, network: 'regtest' } },
      start: true,
    });
    apiId = await addSandboxWallet(t.app, { return_url: 'https://shop.example/hooks' });
    token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
    await t.ctx.chains.pollNow();
  });
  afterAll(async () => {
    await t?.close();
    for (const s of servers ?? []) await s.close();
  });

  async function request() {
    const res = await postPayment(t.app, token, customRequest(apiId));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { payment_reference: string; crypto_address: string };
    return { ...body, script: decodeAddress(body.crypto_address).script };
  }
  async function status(reference: string): Promise<Record<string, unknown>> {
    await t.ctx.chains.pollNow();
    return (await t.app.inject({ method: 'GET', url: `/api/v1/payment/${reference}` })).json();
  }
  async function chainServers(): Promise<MemberHealth[]> {
    return (await t.app.inject({ method: 'GET', url: '/health' })).json().chain_test.servers;
  }
  async function addressId(address: string): Promise<bigint> {
    return (await t.ctx.db.kysely.selectFrom('addresses').select('id').where('address', '=', address).executeTakeFirstOrThrow()).id;
  }
  const historyCalls = (s: ElectrumTestServer) => s.calls.filter((c) => c === 'blockchain.scripthash.subscribe').length;

  it('with three honest servers each carries about a third of the history questions', async () => {
    for (let i = 0; i < 12; i++) await request();
    await t.ctx.chains.pollNow();
    const chainHealth = async () => (await t.app.inject({ method: 'GET', url: '/health' })).json().chain_test as { polls: number; tiers: { hot: number } };
    const before = servers.map(historyCalls);
    const pollsBefore = (await chainHealth()).polls;
    for (let i = 0; i < 12; i++) await t.ctx.chains.pollNow();
    const asked = servers.map((s, i) => historyCalls(s) - before[i]!);
    const total = asked.reduce((a, b) => a + b, 0);
    // One server per script per poll (the timer's polls count too): the three together are asked what one alone would be.
    const after = await chainHealth();
    expect(total).toBeLessThanOrEqual(after.tiers.hot * (after.polls - pollsBefore));
    expect(total).toBeGreaterThanOrEqual(after.tiers.hot * 12);
    for (const n of asked) expect(n / total).toBeGreaterThan(0.2);
    for (const n of asked) expect(n / total).toBeLessThan(0.47);
    expect((await chainServers()).map((s) => s.lagging)).toEqual([false, false, false]);
  });

  it('a server that hides a payment cannot keep the order from being paid, and is flagged for the omission', async () => {
    const p = await request();
    servers[1]!.lies.hideHistoryOf = p.script;
    try {
      await node.pay(p.script, 50_000n);
      await node.mine(1);
      // Within one round of the rotation at most: an honest server is asked about the address.
      let s = await status(p.payment_reference);
      for (let i = 0; i < 3 && s.status !== 'confirmed'; i++) s = await status(p.payment_reference);
      expect(s).toMatchObject({ status: 'confirmed' });
      // The hiding server's turn comes: it leaves out a transaction our chain proved, and is marked.
      for (let i = 0; i < 4; i++) await t.ctx.chains.pollNow();
      const health = await chainServers();
      expect(health[1]).toMatchObject({ omissions: 1, lastOmission: { kind: 'missing-transaction', txid: expect.stringMatching(/^[0-9a-f]{64}$/) } });
      expect(health[0]!.omissions + health[2]!.omissions).toBe(0);
      const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain(`satgate_chain_source_server_omissions_total{chain="test",source="electrum",server="${servers[1]!.url}"} 1`);
    } finally {
      delete servers[1]!.lies.hideHistoryOf;
    }
  });

  it('a server that states the honest status but sends a list without the payment is flagged for it, on its own line, before the payment is mined', async () => {
    const p = await request();
    // Every server has answered for the address once (its first look), with an empty history.
    await t.ctx.chains.pollNow();
    const before = (await chainServers()).map((h) => h.omissions);
    servers[2]!.lies.hideListKeepStatus = p.script;
    try {
      await node.pay(p.script, 50_000n);
      let s = await status(p.payment_reference);
      for (let i = 0; i < 3 && s.status !== 'unconfirmed'; i++) s = await status(p.payment_reference);
      expect(s).toMatchObject({ status: 'unconfirmed' });
      // Its turn comes within a rotation: its status is not the hash of its (empty) list, and the others list the payment.
      for (let i = 0; i < 4 && (await chainServers())[2]!.omissions === before[2]; i++) await t.ctx.chains.pollNow();
      const health = await chainServers();
      expect(health[2]!.omissions).toBe(before[2]! + 1);
      expect(health[2]!.lastOmission).toMatchObject({ kind: 'status-mismatch', txid: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect([health[0]!.omissions, health[1]!.omissions]).toEqual([before[0], before[1]]);
      const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain(`satgate_chain_source_server_omissions_total{chain="test",source="electrum",server="${servers[2]!.url}"} ${before[2]! + 1}`);
      await node.mine(1);
    } finally {
      delete servers[2]!.lies.hideListKeepStatus;
    }
  });

  it('a server stuck behind the tip is lagging and asked no histories until it catches up', async () => {
    await t.ctx.chains.pollNow();
    const stuck = servers[2]!;
    stuck.lies.stuckAt = await node.height();
    try {
      await node.mine(2);
      await t.ctx.chains.pollNow();
      expect((await chainServers())[2]).toMatchObject({ lagging: true, lagReason: 'behind', tipHeight: stuck.lies.stuckAt });
      const before = historyCalls(stuck);
      for (let i = 0; i < 4; i++) await t.ctx.chains.pollNow();
      expect(historyCalls(stuck)).toBe(before);
      const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain(`satgate_chain_source_server_lagging{chain="test",source="electrum",server="${stuck.url}"} 1`);
    } finally {
      delete stuck.lies.stuckAt;
    }
    await t.ctx.chains.pollNow();
    await t.ctx.chains.pollNow();
    expect((await chainServers())[2]).toMatchObject({ lagging: false, lagReason: null });
  });

  it('a real reorg to a longer branch without the payment takes it back within a poll', async () => {
    const p = await request();
    await node.pay(p.script, 50_000n);
    await node.mine(1);
    let s = await status(p.payment_reference);
    for (let i = 0; i < 3 && s.status !== 'confirmed'; i++) s = await status(p.payment_reference);
    expect(s).toMatchObject({ status: 'confirmed' });
    await node.reorg(1, 2);
    expect(await status(p.payment_reference)).toMatchObject({ status: 'unconfirmed', confirmed_crypto_amount: 0 });
    expect((await t.app.inject({ method: 'GET', url: '/health' })).json().chain_test.lies).toBe(0);
  });

  it('an order about to expire is asked of every healthy server in one poll: two servers hiding its payment do not expire it', async () => {
    const p = await request();
    await t.ctx.chains.pollNow();
    // Its monitoring window ends within a minute.
    await t.ctx.db.kysely.updateTable('payments').set({ monitor_until: BigInt(Date.now() + 60_000) }).where('address_id', '=', await addressId(p.crypto_address)).execute();
    servers[0]!.lies.hideHistoryOf = p.script;
    servers[1]!.lies.hideHistoryOf = p.script;
    try {
      await node.pay(p.script, 50_000n);
      const sh = electrumScriptHash(p.script);
      const before = servers.map((s) => s.scriptAsks.filter((x) => x === sh).length);
      expect(await status(p.payment_reference)).toMatchObject({ status: 'unconfirmed' });
      servers.forEach((s, i) => expect(s.scriptAsks.filter((x) => x === sh).length).toBeGreaterThan(before[i]!));
    } finally {
      delete servers[0]!.lies.hideHistoryOf;
      delete servers[1]!.lies.hideHistoryOf;
    }
  });
});
