// mempool.space's websocket beside an Esplora source, against the Esplora test server's websocket over a
// real bcoin regtest chain: a push wakes a verified look at the addresses it names (polls ten minutes apart
// here, so nothing else could have seen the payment), addresses beyond the server's cap are still polled,
// a push's content is never believed, and a dropped socket is reopened with its addresses tracked again.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../../test/support/regtest-node.ts';
import { startEsploraTestServer, type EsploraTestServer, type EsploraTestServerOptions } from '../../../test/support/esplora-test-server.ts';
import { TEST_BUDGET } from '../../../test/support/chain-sources.ts';
import { createTestApp, type TestApp } from '../../../test/support/test-app.ts';
import { testEngines } from '../../../test/support/test-db.ts';
import { writeRatesFile } from '../../../test/support/rates-file.ts';
import { scriptSha } from '../../../test/support/light-chain-index.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../../test/support/payment-api.ts';
import { decodeAddress } from '../../bitcoin/address.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

const TEN_MINUTES = '600000';

describe.each(testEngines())('mempool.space websocket pushes on %s', (engine) => {
  let esplora: EsploraTestServer | undefined;
  let t: TestApp | undefined;

  afterEach(async () => {
    await t?.close();
    await esplora?.close();
    t = undefined;
    esplora = undefined;
  }, 30_000);

  async function start(pollMs: string, server: EsploraTestServerOptions = {}) {
    esplora = await startEsploraTestServer(node, server);
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), SATGATE_POLL_MS: pollMs },
      chains: {
        test: {
          esploraUrl: esplora.url,
          esploraWsUrl: esplora.ws.url,
          budget: TEST_BUDGET,
          pushTrackMs: 50,
          wsBackoffMs: 50,
          wsMaxBackoffMs: 200,
          network: 'regtest',
        },
      },
      start: true,
    });
    const apiId = await addSandboxWallet(t.app, { return_url: 'https://shop.example/hooks' });
    const token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
    const app = t.app;
    return {
      request: async () => {
        const res = await postPayment(app, token, customRequest(apiId));
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json() as { payment_reference: string; crypto_address: string };
        return { ...body, script: decodeAddress(body.crypto_address).script };
      },
      balance: async (address: string) => (await app.inject({ method: 'GET', url: `/balance/${address}` })).json().balance as { confirmed: string; unconfirmed: string },
      health: async () => (await app.inject({ method: 'GET', url: '/health' })).json().chain_test as Record<string, unknown> & { push: Record<string, unknown> },
      metrics: async () => (await app.inject({ method: 'GET', url: '/metrics' })).body,
    };
  }

  async function until(check: () => Promise<boolean> | boolean, ms = 40_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const tracked = (address: string) => esplora!.ws.tracked().some((list) => list.includes(address));

  it('a payment to a hot address is seen through a push, and its confirmation too, while polls are ten minutes apart', async () => {
    const { request, balance, health, metrics } = await start(TEN_MINUTES);
    const p = await request();
    await until(() => tracked(p.crypto_address));
    const pollsBefore = (await health()).polls as number;
    const sentBefore = esplora!.ws.pushes;
    await node.pay(p.script, 25_000n);
    // Mined before the test double's next look at the mempool, the transaction would never be pushed as unconfirmed
    // (a loaded machine; the watcher may learn of it by its own first poll): mine once the double has pushed it.
    await until(() => esplora!.ws.pushes > sentBefore);
    await until(async () => (await balance(p.crypto_address)).unconfirmed === '0.00025');
    await node.mine(1);
    await until(async () => (await balance(p.crypto_address)).confirmed === '0.00025');
    // The block's push can come after the balance shows the confirmation: a pushed poll that started late (a
    // loaded machine) already finds the transaction in a block. The push must still arrive.
    await until(async () => ((await health()).push.pushes as number) >= 2);
    const h = await health();
    expect(h.push).toMatchObject({ state: 'open', tracked: 1, overCap: 0, reconnects: 0 });
    expect(h.push.pushes as number).toBeGreaterThanOrEqual(2);
    // Only pushed polls ran (each a look at the named address), and no lie was reported.
    expect(h.polls as number).toBeGreaterThan(pollsBefore);
    expect(h.lies).toBe(0);
    const m = await metrics();
    expect(m).toMatch(/^satgate_chain_source_push_connected\{[^}]*\} 1$/m);
    expect(m).toMatch(/^satgate_chain_source_push_tracked\{[^}]*\} 1$/m);
  }, 60_000);

  it('addresses beyond the server’s cap are tracked up to the cap it states, and the rest are still seen by polling', async () => {
    const { request, balance, health } = await start('200', { maxTrackedAddresses: 1 });
    const a = await request();
    const b = await request();
    const c = await request();
    // The server refused three; satgate asks again with the one it allows (the single-address form).
    await until(() => esplora!.ws.tracked().some((list) => list.length === 1));
    await until(async () => (await health()).push.overCap === 2);
    for (const p of [a, b, c]) await node.pay(p.script, 31_000n);
    for (const p of [a, b, c]) await until(async () => (await balance(p.crypto_address)).unconfirmed === '0.00031');
    expect((await health()).push).toMatchObject({ state: 'open', cap: 1, tracked: 1, overCap: 2 });
    expect(esplora!.ws.tracked()).toEqual([[c.crypto_address]]);
  }, 60_000);

  it('a push naming a transaction that does not exist changes nothing: satgate asks the API, which lists none', async () => {
    const { request, balance, health } = await start(TEN_MINUTES);
    const p = await request();
    await until(() => tracked(p.crypto_address));
    const historyPath = `/scripthash/${scriptSha(p.script)}/txs`;
    const asked = () => esplora!.paths.filter((x) => x === historyPath).length;
    const before = asked();
    const fake = 'ab'.repeat(32);
    esplora!.ws.sendRaw({
      'multi-address-transactions': {
        [p.crypto_address]: {
          mempool: [{ txid: fake, vin: [], vout: [{ scriptpubkey_address: p.crypto_address, value: 100_000_000 }], status: { confirmed: false } }],
          confirmed: [{ txid: 'cd'.repeat(32), vout: [{ scriptpubkey_address: p.crypto_address, value: 100_000_000 }], status: { confirmed: true, block_height: 1 } }],
          removed: [],
        },
      },
    });
    await until(() => asked() > before);
    await t!.ctx.chains.pollNow(); // waits for the pushed poll under way
    expect(await balance(p.crypto_address)).toMatchObject({ confirmed: '0', unconfirmed: '0' });
    expect(esplora!.paths.some((x) => x.includes(fake) || x.includes('cd'.repeat(32)))).toBe(false);
    const rows = await t!.testDb.db.kysely.selectFrom('chain_txs').select('txid').where('txid', 'in', [fake, 'cd'.repeat(32)]).execute();
    expect(rows).toEqual([]);
    expect((await health()).lies).toBe(0);
  }, 60_000);

  it('a socket the server drops is reopened after a backoff, its addresses tracked again, and pushes resume', async () => {
    const { request, balance, health, metrics } = await start(TEN_MINUTES);
    const p = await request();
    await until(() => tracked(p.crypto_address));
    expect(esplora!.ws.connections).toBe(1);
    esplora!.ws.dropAll();
    await until(() => esplora!.ws.connections === 2 && tracked(p.crypto_address));
    await node.pay(p.script, 27_000n);
    await until(async () => (await balance(p.crypto_address)).unconfirmed === '0.00027');
    expect((await health()).push).toMatchObject({ state: 'open', reconnects: 1, tracked: 1 });
    expect(await metrics()).toMatch(/^satgate_chain_source_push_reconnects_total\{[^}]*\} 1$/m);
  }, 60_000);
});
