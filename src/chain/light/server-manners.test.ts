// Manners toward public light servers: an Electrum server that answers JSON-RPC -101 ("excessive resource
// usage") is backed off (exponential, jittered, per server) while the other servers carry the load, and no
// payment is missed meanwhile. Real time, with a backoff base of 1 s (the default) and a cap of 8 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../../test/support/regtest-node.ts';
import { startElectrumTestServer, type ElectrumTestServer } from '../../../test/support/electrum-test-server.ts';
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

describe.each(testEngines())('a throttling Electrum server beside an honest one on %s', (engine) => {
  let busy: ElectrumTestServer;
  let honest: ElectrumTestServer;
  let t: TestApp;
  let apiId: string;
  let token: string;

  beforeAll(async () => {
    busy = await startElectrumTestServer(node);
    honest = await startElectrumTestServer(node);
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }) },
      chains: {
        test: {
          electrumUrl: busy.url,
          extraServers: [honest.url],
          budget: { ratePerSecond: 2000, burst: 2000, backoffMs: 1000, maxBackoffMs: 8000 },
          network: 'regtest',
        },
      },
      start: true,
    });
    apiId = await addSandboxWallet(t.app, { return_url: 'https://shop.example/hooks' });
    token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
    await t.ctx.chains.pollNow();
  });
  afterAll(async () => {
    await t?.close();
    await busy?.close();
    await honest?.close();
  });

  it('after its first -101 it receives at most a handful of requests in 10 s, and the payment is seen through the other', async () => {
    const orders = [];
    for (let i = 0; i < 5; i++) {
      const res = await postPayment(t.app, token, customRequest(apiId));
      const body = res.json() as { payment_reference: string; crypto_address: string };
      orders.push({ ...body, script: decodeAddress(body.crypto_address).script });
    }
    busy.throttle.settings = { requests: 3, windowMs: 3_600_000, refuse: 'busy' };
    const deadline = Date.now() + 20_000;
    while (busy.throttle.firstRefusalAt === null && Date.now() < deadline) await t.ctx.chains.pollNow();
    const first = busy.throttle.firstRefusalAt!;
    expect(first).not.toBeNull();
    const servers = (await t.app.inject({ method: 'GET', url: '/health' })).json().chain_test.servers as MemberHealth[];
    expect(servers[0]).toMatchObject({ url: busy.url, refusals: expect.any(Number) });
    expect(servers[0]!.refusals).toBeGreaterThan(0);

    await node.pay(orders[0]!.script, 50_000n);
    await node.mine(1);
    const minedAt = Date.now();
    let status = '';
    let confirmedAt: number | null = null;
    while (Date.now() < first + 10_500) {
      await t.ctx.chains.pollNow();
      status = (await t.app.inject({ method: 'GET', url: `/api/v1/payment/${orders[0]!.payment_reference}` })).json().status;
      if (status === 'confirmed') confirmedAt ??= Date.now();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe('confirmed');
    // Seen through the honest server at once: nothing waits for the one backing off.
    expect(confirmedAt! - minedAt).toBeLessThan(3_000);
    const inTenSeconds = busy.throttle.times.filter((at) => at >= first && at <= first + 10_000).length;
    // The first refusal itself, then one retry per backoff (0.5–1 s, 1–2 s, 2–4 s, 4–8 s).
    expect(inTenSeconds).toBeLessThanOrEqual(7);
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(new RegExp(`satgate_chain_source_server_refusals_total\\{chain="test",source="electrum",server="${busy.url.replace(/[.:/]/g, '\\$&')}"\\} [1-9]`));
  }, 60_000);
});
