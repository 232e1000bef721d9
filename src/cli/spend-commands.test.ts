import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcChainSource } from '../chain/chain-source.ts';
import pino from 'pino';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestDb, type TestDb } from '../../test/support/test-db.ts';
import { runCli } from '../../test/support/server-process.ts';
import { inMempool } from '../../test/support/refund-fixtures.ts';
import { MasterKey } from '../security/master-key.ts';
import { ChainService } from '../chain/chain-service.ts';
import { WalletRepository } from '../wallets/wallet-repository.ts';
import { registerWallet } from '../wallets/wallet-registration.ts';
import { AddressIssuer } from '../wallets/address-issuer.ts';
import { addressForPublicKey } from '../bitcoin/address.ts';
import { createSpending } from '../spending/spending.ts';
import { accountKeyFromMnemonic } from '../bitcoin/new-wallet.ts';
import { openDb } from '../db/database.ts';

const log = pino({ level: 'silent' });

describe('satgate spend list and spend bump', () => {
  let node: RegtestNode;
  let testDb: TestDb;
  let env: Record<string, string>;
  let stalledTxid: string;
  let apiId: string;
  let watchOnlyApiId: string;

  beforeAll(async () => {
    node = await startRegtestNode();
    testDb = await createTestDb('sqlite');
    const dir = testDb.env.SATGATE_DATA_DIR!;
    env = { SATGATE_DATA_DIR: dir, SATGATE_TEST_RPC_URL: node.rpcUrl, SATGATE_TEST_NETWORK: 'regtest' };
    const { masterKey } = MasterKey.loadOrCreate(`${dir}/master.key`);
    const repo = new WalletRepository(testDb.db);
    apiId = (await registerWallet({ repo, masterKey, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true }, { pub: 'new_wallet', currency: 'testBTC' })).api_id;
    const wallet = (await repo.findByApiId(apiId))!;
    // BIP84's test mnemonic, account m/84'/1'/0' (depth 3), registered watch-only.
    const bip84 = accountKeyFromMnemonic('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', true);
    watchOnlyApiId = (await registerWallet({ repo, masterKey, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true }, { pub: bip84 })).api_id;
    const chains = new ChainService(testDb.db, Date.now, log, 50, 2n);
    await chains.configure({ test: { rpcUrl: node.rpcUrl, network: 'regtest' } });
    await chains.pollNow();
    const address = await testDb.db.kysely.transaction().execute((trx) => new AddressIssuer(testDb.db.engine).issueForPayment(trx, wallet, Date.now()));
    chains.watch('test', Buffer.from(address.script_hex, 'hex'), { addressId: address.id, walletId: wallet.id });
    await node.pay(Buffer.from(address.script_hex, 'hex'), 100_000n);
    await node.mine(1);
    await chains.pollNow();
    // A spend the node never accepted (its first broadcast failed): stalled at 1 sat/vB.
    const spending = createSpending({ db: testDb.db, chains, masterKey, clock: Date.now, log, pollMs: 50, fallbackFeeRate: 2n });
    const rpc = (chains.get('test')!.source as RpcChainSource).rpc;
    const send = rpc.sendRawTransaction.bind(rpc);
    rpc.sendRawTransaction = async () => {
      throw new Error('node unreachable');
    };
    const to = addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');
    stalledTxid = (await spending.spend({ walletId: wallet.id, outputs: [{ address: to, amountSats: 40_000n }], purpose: 'operator', feeRate: 1n })).txid;
    rpc.sendRawTransaction = send;
    await testDb.db.close();
  }, 120_000);

  afterAll(async () => {
    await testDb?.dispose();
    await node?.stop();
  });

  it('lists spends with status, fee and outputs, filtered by wallet', async () => {
    const res = await runCli(['spend', 'list', '--api-id', apiId, '--json'], env);
    expect(res.code).toBe(0);
    const list = JSON.parse(res.stdout) as Array<Record<string, any>>;
    expect(list).toEqual([expect.objectContaining({ txid: stalledTxid, status: 'signed', purpose: 'operator', fee_rate: 1, last_error: expect.stringContaining('unreachable') })]);
    expect(list[0]!.outputs[0]).toMatchObject({ amount_btc: '0.0004', change: false });
    const text = await runCli(['spend', 'list'], env);
    expect(text.stdout).toContain(stalledTxid);
  });

  it('bumps a stalled spend to a higher fee rate and broadcasts the replacement', async () => {
    const res = await runCli(['spend', 'bump', stalledTxid, '--fee-rate', '7'], env);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const replacement = /by ([0-9a-f]{64})/.exec(res.stdout)![1]!;
    expect(replacement).not.toBe(stalledTxid);
    expect(await inMempool(node, replacement)).toBe(true);
    const list = JSON.parse((await runCli(['spend', 'list', '--json'], env)).stdout) as Array<Record<string, any>>;
    expect(list[0]).toMatchObject({ txid: replacement, fee_rate: 7, status: 'broadcast' });
  });

  it('records a watch-only key origin of the right depth, and refuses a wrong one or a service-held wallet', async () => {
    const short = await runCli(['wallet', 'origin', watchOnlyApiId, '[73c5da0a/84h/1h]'], env);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('depth 3');
    const held = await runCli(['wallet', 'origin', apiId, '[73c5da0a/84h/1h/0h]'], env);
    expect(held.code).toBe(2);
    const ok = await runCli(['wallet', 'origin', watchOnlyApiId, "[73c5da0a/84'/1'/0']"], env);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('[73c5da0a/84h/1h/0h]');
    const db = openDb({ engine: 'sqlite', file: `${env.SATGATE_DATA_DIR}/satgate.sqlite` });
    const row = await db.kysely.selectFrom('wallets').select('key_origin').where('api_id', '=', watchOnlyApiId).executeTakeFirstOrThrow();
    await db.close();
    expect(row.key_origin).toBe('[73c5da0a/84h/1h/0h]');
  });

  it('refuses an unknown transaction and a missing fee rate with a clear message', async () => {
    const unknown = await runCli(['spend', 'bump', 'ab'.repeat(32), '--fee-rate', '5'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no spend with txid');
    const noRate = await runCli(['spend', 'bump', 'ab'.repeat(32)], env);
    expect(noRate.code).toBe(2);
    expect(noRate.stderr).toContain('--fee-rate');
  });
});
