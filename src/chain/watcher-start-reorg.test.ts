import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { MasterKey } from '../security/master-key.ts';
import { ChainService } from './chain-service.ts';
import { WalletRepository, type WalletRow } from '../wallets/wallet-repository.ts';
import { registerWallet } from '../wallets/wallet-registration.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { AddressIssuer } from '../wallets/address-issuer.ts';
import { AddressActivity } from '../wallets/address-activity.ts';
import { WalletMonitor } from '../wallets/wallet-monitor.ts';

const log = pino({ level: 'silent' });
const TEST_MASTER_KEY = MasterKey.fromBytes(new Uint8Array(32).fill(7));

// A fresh install's node watcher starts at the node's tip without scanning history. The crash suite found that a
// reorganisation replacing that very block stopped the watcher for good ("reorg deeper than the blocks this
// watcher processed"), so no later payment was ever seen.
describe.each(testEngines())('a node watcher whose start block is reorganised away, on %s', (engine) => {
  let node: RegtestNode;
  let testDb: TestDb;
  let chains: ChainService;
  let wallet: WalletRow;
  let monitor: WalletMonitor;

  beforeAll(async () => {
    node = await startRegtestNode();
    testDb = await createTestDb(engine);
    const repo = new WalletRepository(testDb.db);
    const { api_id } = await registerWallet(
      { repo, masterKey: TEST_MASTER_KEY, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true },
      { pub: generateNewWallet(true).accountKey },
    );
    wallet = (await repo.findByApiId(api_id))!;
    monitor = new WalletMonitor(repo, new AddressActivity(testDb.db), TEST_MASTER_KEY);
    chains = new ChainService(testDb.db, Date.now, log, 50, 2n);
    await chains.configure({ test: { rpcUrl: node.rpcUrl, network: 'regtest' } });
    await chains.pollNow();
  }, 120_000);

  afterAll(async () => {
    await chains?.close();
    await testDb?.dispose();
    await node?.stop();
  });

  it('takes the new branch from below its start and records a payment mined on it', async () => {
    await node.reorg(1, 2);
    const issuer = new AddressIssuer(testDb.db.engine);
    const address = await testDb.db.kysely.transaction().execute((trx) => issuer.issueForPayment(trx, wallet, Date.now()));
    chains.watch('test', Buffer.from(address.script_hex, 'hex'), { addressId: address.id, walletId: wallet.id });
    await node.pay(Buffer.from(address.script_hex, 'hex'), 25_000n);
    await node.mine(1);
    await chains.pollNow();
    expect((await monitor.balance(address.address)).balance).toEqual({ confirmed: '0.00025', unconfirmed: '0' });
  }, 120_000);
});
