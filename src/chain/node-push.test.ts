import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestDb, type TestDb } from '../../test/support/test-db.ts';
import { ChainService } from './chain-service.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { parseExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { deriveReceiveAddress } from '../bitcoin/receive-address.ts';

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
    const wallet = await testDb.db.kysely
      .insertInto('wallets')
      .values({
        api_id: 'test_push', pub: generateNewWallet(true).accountKey, mode: 'test', network: 'regtest', script_type: 'p2wpkh', wallet_type: 3n,
        local_currency: 'usd', notification_email: null, return_url: null, account_name: null, account_type: null, info: null,
        box_public_key: 'x', box_secret_sealed: 'x', sign_public_key: 'x', sign_secret_sealed: 'x', seed_sealed: null, created_at: 0n, updated_at: 0n,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const derived = deriveReceiveAddress(parseExtendedPublicKey(wallet.pub), 0, 'p2wpkh', 'regtest');
    const address = await testDb.db.kysely
      .insertInto('addresses')
      .values({ wallet_id: wallet.id, derivation_index: 0n, address: derived.address, script_hex: Buffer.from(derived.script).toString('hex'), created_at: 0n, reserved_until: null, purpose: 'payment' })
      .returningAll()
      .executeTakeFirstOrThrow();
    chains.watch('test', derived.script, { addressId: address.id, walletId: wallet.id });
    // The subscription is made in the background after start: a block it announces proves it is live.
    const [first] = await node.mine(1);
    await expect.poll(async () => (await testDb.db.kysely.selectFrom('chain_tips').select('tip_hash').executeTakeFirst())?.tip_hash, { timeout: 30_000 }).toBe(first);
    const paid = await node.pay(derived.script, 50_000n);
    const seen = () => testDb.db.kysely.selectFrom('chain_txs').select(['txid', 'block_hash']).where('txid', '=', paid.txid).executeTakeFirst();
    await expect.poll(async () => (await seen())?.txid, { timeout: 30_000 }).toBe(paid.txid);
    const [block] = await node.mine(1);
    await expect.poll(async () => (await seen())?.block_hash, { timeout: 30_000 }).toBe(block);
    expect(commits).toBeGreaterThanOrEqual(2);
  });
});
