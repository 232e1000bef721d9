// Light mode on Esplora costs per block, not per address (issue 39): confirmations come from whole blocks
// checked against the verified header's Merkle root and matched against the whole watched set, so a cold
// address costs no request; an address expecting money (an open order) is still asked for mempool detection;
// a longer branch takes a confirmation back; a block that does not hash to its header is refused. A server
// without `/block/:hash/raw` gives the block as pages of 25 transactions, rebuilt and checked the same way.
// Against a real bcoin regtest node behind the Esplora test server, on both engines.
import { randomBytes } from 'node:crypto';
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

const log = pino({ level: 'silent' });
const KEY = MasterKey.fromBytes(new Uint8Array(32).fill(7));

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('light mode on Esplora, confirmations from blocks, on %s', (engine) => {
  let testDb: TestDb;
  let esplora: EsploraTestServer;
  let chains: ChainService;
  let wallet: WalletRow;
  const issuer = new AddressIssuer(engine);

  beforeAll(async () => {
    esplora = await startEsploraTestServer(node);
    testDb = await createTestDb(engine);
    const repo = new WalletRepository(testDb.db);
    const { api_id } = await registerWallet(
      { repo, masterKey: KEY, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true },
      { pub: generateNewWallet(true).accountKey },
    );
    wallet = (await repo.findByApiId(api_id))!;
    chains = new ChainService(testDb.db, Date.now, log, 50, 2n);
    await chains.configure({ test: { esploraUrl: esplora.url, tipCacheMs: 0, budget: TEST_BUDGET, network: 'regtest' } });
    await chains.pollNow();
  }, 120_000);
  afterAll(async () => {
    await chains?.close();
    await esplora?.close();
    await testDb?.dispose();
  }, 30_000);

  /** A watched address; `open`: reserved for an open order (money expected now). */
  async function issue(open = false) {
    const now = Date.now();
    const row = await testDb.db.kysely.transaction().execute(async (trx) => {
      const r = await issuer.issueForPayment(trx, wallet, now);
      if (open) await trx.updateTable('addresses').set({ reserved_until: BigInt(now + 3_600_000) }).where('id', '=', r.id).execute();
      return r;
    });
    const script = Buffer.from(row.script_hex, 'hex');
    chains.watch('test', script, { addressId: row.id, walletId: wallet.id });
    return { id: row.id, script, sha: scriptSha(script) };
  }

  /** How the transaction paying this address is recorded: 'block', 'mempool', 'withdrawn', or none. */
  async function recorded(addressId: bigint): Promise<string | undefined> {
    const row = await testDb.db.kysely
      .selectFrom('chain_outputs')
      .innerJoin('chain_txs', 'chain_txs.id', 'chain_outputs.tx_id')
      .select('chain_txs.state')
      .where('chain_outputs.address_id', '=', addressId)
      .executeTakeFirst();
    return row?.state;
  }

  const health = () => chains.get('test')!.watcher.health() as unknown as Record<string, unknown> & { recentLies: Lie[]; tipHeight: number | null };

  it('a payment to a cold address is confirmed from its block, without one request about the address', async () => {
    const cold = await issue();
    const from = esplora.paths.length;
    await node.pay(cold.script, 21_000n);
    await chains.pollNow();
    expect(await recorded(cold.id)).toBeUndefined();
    const [hash] = await node.mine(1);
    await chains.pollNow();
    expect(await recorded(cold.id)).toBe('block');
    const asked = esplora.paths.slice(from);
    expect(asked).toContain(`/block/${hash}/raw`);
    expect(asked.filter((p) => p.includes(cold.sha))).toEqual([]);
    expect(health()).toMatchObject({ confirmationsFrom: 'blocks', tipHeight: await node.height(), verified: true, lies: 0 });
  }, 60_000);

  it('a payment to an open order is seen in the mempool, then confirmed from its block', async () => {
    const order = await issue(true);
    await chains.pollNow();
    const from = esplora.paths.length;
    const { txid } = await node.pay(order.script, 22_000n);
    await chains.pollNow();
    expect(await recorded(order.id)).toBe('mempool');
    // Its bytes were rebuilt from the history answer that listed it (and checked by their hash): no fetch.
    expect(esplora.paths.slice(from).filter((p) => p.startsWith(`/tx/${txid}`))).toEqual([]);
    await node.mine(1);
    await chains.pollNow();
    expect(await recorded(order.id)).toBe('block');
  }, 60_000);

  it('a history whose unconfirmed transaction shows an output worth more than it is is refused, not recorded', async () => {
    const order = await issue(true);
    await chains.pollNow();
    const lies = health().lies as number;
    esplora.lies.tamperHistoryTxs = true;
    try {
      await node.pay(order.script, 26_000n);
      await chains.pollNow();
      // The bytes rebuilt from the altered JSON hash to another txid: a lie, and nothing recorded.
      expect(await recorded(order.id)).toBeUndefined();
      expect(health().lies).toBeGreaterThan(lies);
      expect(health().recentLies.at(-1)).toMatchObject({ kind: 'txid-mismatch' });
    } finally {
      delete esplora.lies.tamperHistoryTxs;
    }
    await chains.pollNow();
    expect(await recorded(order.id)).toBe('mempool');
    await node.mine(1);
    await chains.pollNow();
    expect(await recorded(order.id)).toBe('block');
  }, 60_000);

  it('a longer branch without the payment takes its confirmation back', async () => {
    const cold = await issue();
    await node.pay(cold.script, 23_000n);
    await node.mine(1);
    await chains.pollNow();
    expect(await recorded(cold.id)).toBe('block');
    const height = await node.height();
    // The block holding the payment replaced by two empty ones; the payment goes back to the mempool.
    await node.reorg(1, 2);
    await chains.pollNow();
    expect(await recorded(cold.id)).not.toBe('block');
    expect(health().tipHeight).toBe(height + 1);
    // Mined again on the new branch, it is confirmed again from that block.
    await node.mine(1);
    await chains.pollNow();
    expect(await recorded(cold.id)).toBe('block');
  }, 90_000);

  it('a block whose transactions do not hash to the verified header’s Merkle root is refused', async () => {
    const cold = await issue();
    await node.pay(cold.script, 24_000n);
    const before = health().tipHeight;
    esplora.lies.tamperBlocks = true;
    try {
      await node.mine(1);
      await chains.pollNow();
      expect(await recorded(cold.id)).toBeUndefined();
      expect(health().tipHeight).toBe(before);
      expect(health().recentLies.at(-1)).toMatchObject({ kind: 'bad-block' });
    } finally {
      delete esplora.lies.tamperBlocks;
    }
    // The honest block, asked again, is taken.
    await chains.pollNow();
    expect(await recorded(cold.id)).toBe('block');
    expect(health().tipHeight).toBe(await node.height());
  }, 60_000);

  it('a server without /raw gives blocks as pages: a cold address’s payment in a block of more than 25 transactions is confirmed without one request about the address', async () => {
    esplora.lies.noRawBlocks = true;
    try {
      const cold = await issue();
      const from = esplora.paths.length;
      const lies = health().lies;
      // 30 other payments and ours: with the coinbase, 32 transactions, two pages.
      for (let i = 0; i < 30; i++) await node.pay(Buffer.concat([Buffer.from('0014', 'hex'), randomBytes(20)]), 10_000n);
      await node.pay(cold.script, 26_000n);
      const [hash] = await node.mine(1);
      await chains.pollNow();
      expect(await recorded(cold.id)).toBe('block');
      const asked = esplora.paths.slice(from);
      expect(asked.filter((p) => p.startsWith(`/block/${hash}/txs/`))).toEqual([`/block/${hash}/txs/0`, `/block/${hash}/txs/25`]);
      expect(asked.filter((p) => p.includes(cold.sha))).toEqual([]);
      expect(health()).toMatchObject({ confirmationsFrom: 'block-pages', tipHeight: await node.height(), lies });
      // Once /raw 404'd for a block the pages know, later blocks go straight to the pages.
      const [next] = await node.mine(1);
      await chains.pollNow();
      expect(esplora.paths.slice(from)).not.toContain(`/block/${next}/raw`);
      expect(health().tipHeight).toBe(await node.height());
    } finally {
      delete esplora.lies.noRawBlocks;
    }
  }, 120_000);

  it('a page that shows an output worth more than it is is refused (bad-block), and the honest pages are then taken', async () => {
    esplora.lies.noRawBlocks = true;
    try {
      const cold = await issue();
      await node.pay(cold.script, 27_000n);
      const before = health().tipHeight;
      esplora.lies.tamperBlockPages = true;
      await node.mine(1);
      await chains.pollNow();
      expect(await recorded(cold.id)).toBeUndefined();
      expect(health().tipHeight).toBe(before);
      expect(health().recentLies.at(-1)).toMatchObject({ kind: 'bad-block' });
      delete esplora.lies.tamperBlockPages;
      await chains.pollNow();
      expect(await recorded(cold.id)).toBe('block');
      expect(health().tipHeight).toBe(await node.height());
    } finally {
      delete esplora.lies.tamperBlockPages;
      delete esplora.lies.noRawBlocks;
    }
  }, 60_000);

  it('a server with neither whole blocks nor their pages is followed per address, and a payment to a watched address is still confirmed', async () => {
    esplora.lies.noRawBlocks = true;
    esplora.lies.noBlockPages = true;
    try {
      const cold = await issue();
      await node.pay(cold.script, 25_000n);
      await node.mine(1);
      await chains.pollNow();
      expect(health().confirmationsFrom).toBe('address-histories');
      // The per-address schedule: a cold address is reached by the sweep (one a poll).
      for (let i = 0; i < 40 && (await recorded(cold.id)) !== 'block'; i++) await chains.pollNow();
      expect(await recorded(cold.id)).toBe('block');
    } finally {
      delete esplora.lies.noRawBlocks;
      delete esplora.lies.noBlockPages;
    }
  }, 120_000);
});
