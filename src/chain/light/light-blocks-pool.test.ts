// Confirmations from whole blocks with several Esplora APIs followed as one (issue 39): blocks are asked of the
// servers in turn and each is checked against the verified header before it is taken, so a server that sends a
// tampered block costs one download more (and is counted against it), not the block; a server without raw
// blocks leaves them to the others. Three Esplora test servers over one real bcoin regtest node, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startRegtestNode, type RegtestNode } from '../../../test/support/regtest-node.ts';
import { startEsploraTestServer, type EsploraTestServer } from '../../../test/support/esplora-test-server.ts';
import { scriptSha } from '../../../test/support/light-chain-index.ts';
import { TEST_BUDGET } from '../../../test/support/chain-sources.ts';
import { createTestDb, testEngines, type TestDb } from '../../../test/support/test-db.ts';
import { ChainService } from '../chain-service.ts';
import { WalletRepository, type WalletRow } from '../../wallets/wallet-repository.ts';
import { registerWallet } from '../../wallets/wallet-registration.ts';
import { generateNewWallet } from '../../bitcoin/new-wallet.ts';
import { AddressIssuer } from '../../wallets/address-issuer.ts';
import { MasterKey } from '../../security/master-key.ts';
import type { Lie } from './light-watcher.ts';
import type { MemberHealth } from './pool-member.ts';

const log = pino({ level: 'silent' });
const KEY = MasterKey.fromBytes(new Uint8Array(32).fill(7));

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('three Esplora APIs, confirmations from blocks, on %s', (engine) => {
  let testDb: TestDb;
  let servers: EsploraTestServer[];
  let chains: ChainService;
  let wallet: WalletRow;
  const issuer = new AddressIssuer(engine);

  beforeAll(async () => {
    servers = [await startEsploraTestServer(node), await startEsploraTestServer(node), await startEsploraTestServer(node)];
    testDb = await createTestDb(engine);
    const repo = new WalletRepository(testDb.db);
    const { api_id } = await registerWallet(
      { repo, masterKey: KEY, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true },
      { pub: generateNewWallet(true).accountKey },
    );
    wallet = (await repo.findByApiId(api_id))!;
    chains = new ChainService(testDb.db, Date.now, log, 50, 2n);
    await chains.configure({
      test: { esploraUrl: servers[0]!.url, extraServers: [servers[1]!.url, servers[2]!.url], tipCacheMs: 0, budget: TEST_BUDGET, network: 'regtest' },
    });
    await chains.pollNow();
  }, 120_000);
  afterAll(async () => {
    await chains?.close();
    for (const s of servers ?? []) await s.close();
    await testDb?.dispose();
  }, 30_000);

  /** A watched address not reserved for an open order (cold: no request about it is due). */
  async function issueCold() {
    const now = Date.now();
    const row = await testDb.db.kysely.transaction().execute((trx) => issuer.issueForPayment(trx, wallet, now));
    const script = Buffer.from(row.script_hex, 'hex');
    chains.watch('test', script, { addressId: row.id, walletId: wallet.id });
    return { id: row.id, script, sha: scriptSha(script) };
  }

  /** How the output paying this address is recorded (state and value), if it is. */
  async function recorded(addressId: bigint): Promise<{ state: string; value: bigint } | undefined> {
    const row = await testDb.db.kysely
      .selectFrom('chain_outputs')
      .innerJoin('chain_txs', 'chain_txs.id', 'chain_outputs.tx_id')
      .select(['chain_txs.state', 'chain_outputs.value_sats'])
      .where('chain_outputs.address_id', '=', addressId)
      .executeTakeFirst();
    return row ? { state: row.state, value: BigInt(row.value_sats) } : undefined;
  }

  const health = () =>
    chains.get('test')!.watcher.health() as unknown as Record<string, unknown> & { recentLies: Lie[]; tipHeight: number | null; servers: MemberHealth[] };
  const rawBlocksAsked = (s: EsploraTestServer, from: number) => s.paths.slice(from).filter((p) => /^\/block\/[0-9a-f]{64}\/raw$/.test(p));

  it('a payment to a cold address is confirmed from its block, without one request about the address at any server', async () => {
    const cold = await issueCold();
    const from = servers.map((s) => s.paths.length);
    await node.pay(cold.script, 31_000n);
    const [hash] = await node.mine(1);
    await chains.pollNow();
    expect(await recorded(cold.id)).toEqual({ state: 'block', value: 31_000n });
    const asked = servers.flatMap((s, i) => s.paths.slice(from[i]));
    expect(asked).toContain(`/block/${hash}/raw`);
    expect(asked.filter((p) => p.includes(cold.sha))).toEqual([]);
    expect(health()).toMatchObject({ confirmationsFrom: 'blocks', tipHeight: await node.height(), lies: 0 });
  }, 60_000);

  it('a server sending a tampered block: the block is taken from another, and that server is counted', async () => {
    const cold = await issueCold();
    const from = servers.map((s) => s.paths.length);
    const liesBefore = health().lies;
    servers[0]!.lies.tamperBlocks = true;
    try {
      await node.pay(cold.script, 32_000n);
      // Three blocks in one poll: each server is first in turn for one of them, the tampering one included.
      await node.mine(3);
      await chains.pollNow();
      expect(rawBlocksAsked(servers[0]!, from[0]!).length).toBeGreaterThan(0);
      expect(await recorded(cold.id)).toEqual({ state: 'block', value: 32_000n });
      const h = health();
      expect(h.tipHeight).toBe(await node.height());
      // The pool took an honest block: nothing refuted reached the watcher.
      expect(h.lies).toBe(liesBefore);
      expect(h.servers.map((s) => s.badBlocks)).toEqual([1, 0, 0]);
      expect(h.servers[0]!.lastBadBlock).toMatchObject({ hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
      // Asked after the others while its bad block is recent: the next blocks cost it no download.
      const after = servers[0]!.paths.length;
      await node.mine(2);
      await chains.pollNow();
      expect(rawBlocksAsked(servers[0]!, after)).toEqual([]);
      expect(health().servers.map((s) => s.badBlocks)).toEqual([1, 0, 0]);
      expect(health().tipHeight).toBe(await node.height());
    } finally {
      delete servers[0]!.lies.tamperBlocks;
    }
  }, 90_000);

  it('a server without whole blocks leaves them to the others: confirmations still come from blocks', async () => {
    const cold = await issueCold();
    const from = servers.map((s) => s.paths.length);
    const badBefore = health().servers.map((s) => s.badBlocks);
    // Neither whole blocks nor their pages (an Esplora without /raw serves pages instead: block-pages).
    Object.assign(servers[1]!.lies, { noRawBlocks: true, noBlockPages: true });
    try {
      await node.pay(cold.script, 33_000n);
      await node.mine(3);
      await chains.pollNow();
      // It was asked (and answered 404) for at least one of them; the others served every block.
      expect(rawBlocksAsked(servers[1]!, from[1]!).length).toBeGreaterThan(0);
      expect(await recorded(cold.id)).toEqual({ state: 'block', value: 33_000n });
      expect(health()).toMatchObject({ confirmationsFrom: 'blocks', tipHeight: await node.height() });
      const asked = servers.flatMap((s, i) => s.paths.slice(from[i]));
      expect(asked.filter((p) => p.includes(cold.sha))).toEqual([]);
      // A 404 is not a lie: nothing is counted against it.
      expect(health().servers.map((s) => s.badBlocks)).toEqual(badBefore);
    } finally {
      delete servers[1]!.lies.noRawBlocks;
      delete servers[1]!.lies.noBlockPages;
    }
  }, 90_000);
});
