import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestDb, type TestDb } from '../../test/support/test-db.ts';
import { insertReceiveAddress } from '../../test/support/watched-address.ts';
import { ChainService } from './chain-service.ts';

const log = pino({ level: 'silent' });
// Far longer than the test: after its first poll the watcher polls again only when the node's events wake it.
const ONE_HOUR = 3_600_000;

describe('push from a bcoin node wakes the watcher', () => {
  let node: RegtestNode;
  let testDb: TestDb;
  let chains: ChainService;
  let commits = 0;

  beforeAll(async () => {
    node = await startRegtestNode();
    testDb = await createTestDb('sqlite');
    chains = new ChainService(testDb.db, Date.now, log, ONE_HOUR, 2n);
    await chains.configure({ test: { rpcUrl: node.rpcUrl, network: 'regtest' } });
    chains.onCommitted(() => commits++);
    chains.start();
    while (chains.get('test')!.watcher.health().polls === 0) await new Promise((r) => setTimeout(r, 20));
  });

  afterAll(async () => {
    await chains?.stop();
    await testDb?.dispose();
    await node?.stop();
  });

  it('sees a mempool payment and then its block without a timer tick, and tells the committed-listeners', async () => {
    const { script, addressId, walletId } = await insertReceiveAddress(testDb.db, 'test_push');
    chains.watch('test', script, { addressId, walletId });
    // The subscription is made in the background after start: a block it announces proves it is live.
    const [first] = await node.mine(1);
    await expect.poll(async () => (await testDb.db.kysely.selectFrom('chain_tips').select('tip_hash').executeTakeFirst())?.tip_hash, { timeout: 30_000 }).toBe(first);
    const paid = await node.pay(script, 50_000n);
    const seen = () => testDb.db.kysely.selectFrom('chain_txs').select(['txid', 'block_hash']).where('txid', '=', paid.txid).executeTakeFirst();
    await expect.poll(async () => (await seen())?.txid, { timeout: 30_000 }).toBe(paid.txid);
    const [block] = await node.mine(1);
    await expect.poll(async () => (await seen())?.block_hash, { timeout: 30_000 }).toBe(block);
    expect(commits).toBeGreaterThanOrEqual(2);
  });
});
