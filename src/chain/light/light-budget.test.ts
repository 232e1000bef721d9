// Staying within a light server's limits against real protocol peers: a client within the server's
// limit is never refused, one beyond it backs off and still misses no payment, and a dropped Electrum
// connection is reopened with every subscription renewed.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startRegtestNode, type RegtestNode } from '../../../test/support/regtest-node.ts';
import { startElectrumTestServer, type ElectrumTestServer } from '../../../test/support/electrum-test-server.ts';
import { startEsploraTestServer, type EsploraTestServer } from '../../../test/support/esplora-test-server.ts';
import { createTestDb, type TestDb } from '../../../test/support/test-db.ts';
import { ChainService, type ChainEndpoint } from '../chain-service.ts';
import { WalletRepository, type WalletRow } from '../../wallets/wallet-repository.ts';
import { registerWallet } from '../../wallets/wallet-registration.ts';
import { generateNewWallet } from '../../bitcoin/new-wallet.ts';
import { AddressIssuer } from '../../wallets/address-issuer.ts';
import { AddressActivity } from '../../wallets/address-activity.ts';
import { WalletMonitor } from '../../wallets/wallet-monitor.ts';
import { MasterKey } from '../../security/master-key.ts';

const log = pino({ level: 'silent' });
const KEY = MasterKey.fromBytes(new Uint8Array(32).fill(7));

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe('light servers that throttle', () => {
  let testDb: TestDb;
  let chains: ChainService | undefined;
  let server: { close(): Promise<void> } | undefined;

  afterEach(async () => {
    await chains?.close();
    await server?.close();
    await testDb?.dispose();
    chains = undefined;
  }, 30_000);

  /** A chain service on `endpoint` with one wallet; returns a function issuing a watched address and the monitor. */
  async function follow(endpoint: ChainEndpoint) {
    testDb = await createTestDb('sqlite');
    const repo = new WalletRepository(testDb.db);
    const { api_id } = await registerWallet(
      { repo, masterKey: KEY, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true },
      { pub: generateNewWallet(true).accountKey },
    );
    const wallet: WalletRow = (await repo.findByApiId(api_id))!;
    const issuer = new AddressIssuer(testDb.db.engine);
    chains = new ChainService(testDb.db, Date.now, log, 50, 2n);
    await chains.configure({ test: { ...endpoint, network: 'regtest' } });
    const monitor = new WalletMonitor(repo, new AddressActivity(testDb.db), KEY);
    const c = chains;
    // An address reserved for an open order: money is expected there now, so a light watcher asks about it
    // (with Esplora's whole blocks, nothing else is asked between blocks: light-blocks.test.ts).
    const issue = async () => {
      const row = await testDb.db.kysely.transaction().execute(async (trx) => {
        const r = await issuer.issueForPayment(trx, wallet, Date.now());
        await trx.updateTable('addresses').set({ reserved_until: BigInt(Date.now() + 3_600_000) }).where('id', '=', r.id).execute();
        return r;
      });
      c.watch('test', Buffer.from(row.script_hex, 'hex'), { addressId: row.id, walletId: wallet.id });
      return row;
    };
    return { issue, monitor, chains: c };
  }

  async function until(check: () => Promise<boolean>, ms = 50_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('an Esplora client within the server’s limit is never refused, and sees a payment and its confirmation', async () => {
    const esplora: EsploraTestServer = await startEsploraTestServer(node);
    server = esplora;
    esplora.throttle.settings = { requests: 30, windowMs: 1000 };
    // At most 10 + 15 requests in any second: below the server's 30.
    const { issue, monitor, chains: c } = await follow({ esploraUrl: esplora.url, tipCacheMs: 0, budget: { ratePerSecond: 15, burst: 10 } });
    c.start();
    const address = await issue();
    await node.pay(Buffer.from(address.script_hex, 'hex'), 20_000n);
    await until(async () => (await monitor.balance(address.address)).balance.unconfirmed === '0.0002');
    await node.mine(1);
    await until(async () => (await monitor.balance(address.address)).balance.confirmed === '0.0002');
    expect(esplora.throttle.requests).toBeGreaterThan(40);
    expect(esplora.throttle.refused).toBe(0);
    expect(c.get('test')!.watcher.health()).toMatchObject({ refusals: 0, source: 'esplora', verified: true });
  }, 60_000);

  it('an Esplora client beyond the server’s limit backs off on 429 and still misses no payment', async () => {
    const esplora: EsploraTestServer = await startEsploraTestServer(node);
    server = esplora;
    esplora.throttle.settings = { requests: 8, windowMs: 500 };
    const { issue, monitor, chains: c } = await follow({
      esploraUrl: esplora.url,
      tipCacheMs: 0,
      budget: { ratePerSecond: 1000, burst: 1000, backoffMs: 200, maxBackoffMs: 1000 },
    });
    c.start();
    const address = await issue();
    await node.pay(Buffer.from(address.script_hex, 'hex'), 30_000n);
    await until(async () => (await monitor.balance(address.address)).balance.unconfirmed === '0.0003');
    await node.mine(1);
    await until(async () => (await monitor.balance(address.address)).balance.confirmed === '0.0003');
    expect(esplora.throttle.refused).toBeGreaterThan(0);
    expect(c.get('test')!.watcher.health().refusals).toBe(esplora.throttle.refused);
  }, 60_000);

  it('an Electrum connection the server drops is reopened, every subscription renewed, and no payment is missed', async () => {
    const electrum: ElectrumTestServer = await startElectrumTestServer(node);
    server = electrum;
    const { issue, monitor, chains: c } = await follow({ electrumUrl: electrum.url, budget: { ratePerSecond: 1000, burst: 1000, backoffMs: 20, maxBackoffMs: 100 } });
    const address = await issue();
    await c.pollNow();
    const versionsBefore = electrum.calls.filter((m) => m === 'server.version').length;
    electrum.dropConnections();
    await node.pay(Buffer.from(address.script_hex, 'hex'), 40_000n);
    await until(async () => {
      await c.pollNow();
      return (await monitor.balance(address.address)).balance.unconfirmed === '0.0004';
    });
    expect(electrum.calls.filter((m) => m === 'server.version').length).toBe(versionsBefore + 1);
    // After the new version handshake come the renewed subscriptions: headers and the address's script hash.
    const afterReconnect = electrum.calls.slice(electrum.calls.lastIndexOf('server.version'));
    expect(afterReconnect).toEqual(expect.arrayContaining(['blockchain.headers.subscribe', 'blockchain.scripthash.subscribe']));
    // /health shows one server's subscriptions against its cap, as it does per server for several.
    expect(c.get('test')!.watcher.health().subscriptions).toMatchObject({ subscribed: expect.any(Number), max: 20_000, polledOverCap: 0 });
  }, 60_000);

  it('an Electrum server that drops clients over its limit is reconnected to after a backoff, and no payment is missed', async () => {
    const electrum: ElectrumTestServer = await startElectrumTestServer(node);
    server = electrum;
    // A window long enough that even a loaded machine's start-up (handshake, headers, subscriptions) exceeds it.
    electrum.throttle.settings = { requests: 6, windowMs: 2_000 };
    const { issue, monitor, chains: c } = await follow({ electrumUrl: electrum.url, budget: { ratePerSecond: 1000, burst: 1000, backoffMs: 100, maxBackoffMs: 400 } });
    c.start();
    const address = await issue();
    await node.pay(Buffer.from(address.script_hex, 'hex'), 50_000n);
    await until(async () => (await monitor.balance(address.address)).balance.unconfirmed === '0.0005');
    await node.mine(1);
    await until(async () => (await monitor.balance(address.address)).balance.confirmed === '0.0005');
    expect(electrum.throttle.refused).toBeGreaterThan(0);
    expect(c.get('test')!.watcher.health().refusals).toBeGreaterThan(0);
  }, 120_000);
});
