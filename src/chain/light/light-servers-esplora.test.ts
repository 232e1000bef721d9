// Several Esplora APIs in front of one real bcoin regtest chain, followed as one: one hiding a payment does not
// keep the order from being paid (from whole blocks, or per address), and is flagged for the omission when histories
// are asked after the payment is mined (light-servers.test.ts has the Electrum cases; light-blocks-pool.test.ts
// the blocks).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../../test/support/regtest-node.ts';
import { startEsploraTestServer, type EsploraTestServer } from '../../../test/support/esplora-test-server.ts';
import { TEST_BUDGET } from '../../../test/support/chain-sources.ts';
import { createTestApp, type TestApp } from '../../../test/support/test-app.ts';
import { testEngines } from '../../../test/support/test-db.ts';
import { writeRatesFile } from '../../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../../test/support/payment-api.ts';
import { decodeAddress } from '../../bitcoin/address.ts';
import type { MemberHealth } from './pool-member.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('three Esplora APIs on %s', (engine) => {
  let servers: EsploraTestServer[];
  let t: TestApp;
  let apiId: string;
  let token: string;

  beforeAll(async () => {
    servers = [await startEsploraTestServer(node), await startEsploraTestServer(node), await startEsploraTestServer(node)];
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }) },
      chains: { test: { esploraUrl: servers[0]!.url, extraServers: [servers[1]!.url, servers[2]!.url], budget: TEST_BUDGET, tipCacheMs: 0, network: 'regtest' } },
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

  /** A new order's script and a poll-then-status reader. */
  async function newOrder() {
    const res = await postPayment(t.app, token, customRequest(apiId));
    const p = res.json() as { payment_reference: string; crypto_address: string };
    const status = async () => {
      await t.ctx.chains.pollNow();
      return (await t.app.inject({ method: 'GET', url: `/api/v1/payment/${p.payment_reference}` })).json().status as string;
    };
    return { script: decodeAddress(p.crypto_address).script, status };
  }

  /** Pays the order in full and mines it: its status must reach `confirmed` within a few polls. */
  async function payAndConfirm(script: Uint8Array, status: () => Promise<string>) {
    await node.pay(script, 50_000n);
    await node.mine(1);
    let s = await status();
    for (let i = 0; i < 3 && s !== 'confirmed'; i++) s = await status();
    expect(s).toBe('confirmed');
  }

  it('with whole blocks, an API that hides a payment cannot keep the order from being confirmed', async () => {
    const { script, status } = await newOrder();
    servers[0]!.lies.hideHistoryOf = script;
    try {
      await payAndConfirm(script, status);
      expect((await t.app.inject({ method: 'GET', url: '/health' })).json().chain_test.confirmationsFrom).toBe('blocks');
    } finally {
      delete servers[0]!.lies.hideHistoryOf;
    }
  });

  // Last in this file: once no server serves blocks, the watcher follows addresses for the rest of its run.
  it('per address (no server serves whole blocks), an API that hides a payment cannot keep the order from being paid, and is flagged for the omission', async () => {
    // The omission shows only when a history is asked after the payment is mined; with blocks a confirmed
    // order's address is not asked again, so the servers are made to answer 404 for whole blocks and their pages.
    for (const s of servers) Object.assign(s.lies, { noRawBlocks: true, noBlockPages: true });
    const { script, status } = await newOrder();
    servers[0]!.lies.hideHistoryOf = script;
    try {
      await payAndConfirm(script, status);
      for (let i = 0; i < 4; i++) await t.ctx.chains.pollNow();
      const health = (await t.app.inject({ method: 'GET', url: '/health' })).json().chain_test.servers as MemberHealth[];
      expect(health.map((h) => h.omissions)).toEqual([1, 0, 0]);
      expect(health.map((h) => h.lagging)).toEqual([false, false, false]);
    } finally {
      delete servers[0]!.lies.hideHistoryOf;
      for (const s of servers) {
        delete s.lies.noRawBlocks;
        delete s.lies.noBlockPages;
      }
    }
  });
});
