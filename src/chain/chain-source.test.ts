// Spending goes through the configured source, whichever it is: a transaction broadcast through the node,
// the Electrum server or the Esplora API reaches the chain and is followed like any other; fee estimates
// come back as whole sat/vB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Transaction } from '@scure/btc-signer';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { SOURCES, startSource, type RunningSource } from '../../test/support/chain-sources.ts';
import { createTestDb, type TestDb } from '../../test/support/test-db.ts';
import { ChainService } from './chain-service.ts';
import { WalletRepository } from '../wallets/wallet-repository.ts';
import { registerWallet } from '../wallets/wallet-registration.ts';
import { accountNodeFromMnemonic, generateNewWallet } from '../bitcoin/new-wallet.ts';
import { AddressIssuer } from '../wallets/address-issuer.ts';
import { AddressActivity } from '../wallets/address-activity.ts';
import { WalletMonitor } from '../wallets/wallet-monitor.ts';
import { MasterKey } from '../security/master-key.ts';

const KEY = MasterKey.fromBytes(new Uint8Array(32).fill(7));

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe.each(SOURCES)('spending through the %s', (sourceName) => {
  let source: RunningSource;
  let testDb: TestDb;
  let chains: ChainService;

  beforeAll(async () => {
    source = await startSource(sourceName, node);
    testDb = await createTestDb('sqlite');
    chains = new ChainService(testDb.db, Date.now, pino({ level: 'silent' }), 50, 2n);
    await chains.configure({ test: { ...source.endpoint, network: 'regtest' } });
    // The node watcher starts at the tip it first sees; addresses are watched from there on.
    await chains.pollNow();
  });
  afterAll(async () => {
    await chains?.close();
    await source?.stop();
    await testDb?.dispose();
  });

  it('broadcasts a spend of a watched output, which is then followed as a debit and confirmed', async () => {
    const repo = new WalletRepository(testDb.db);
    const generated = generateNewWallet(true);
    const { api_id } = await registerWallet(
      { repo, masterKey: KEY, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true },
      { pub: generated.accountKey },
    );
    const wallet = (await repo.findByApiId(api_id))!;
    const address = await testDb.db.kysely.transaction().execute((trx) => new AddressIssuer(testDb.db.engine).issueForPayment(trx, wallet, Date.now()));
    const script = Buffer.from(address.script_hex, 'hex');
    chains.watch('test', script, { addressId: address.id, walletId: wallet.id });
    const monitor = new WalletMonitor(repo, new AddressActivity(testDb.db), KEY);
    const paid = await node.pay(script, 25_000n);
    await node.mine(1);
    await chains.pollNow();

    const child = accountNodeFromMnemonic(generated.mnemonic, true).deriveChild(0).deriveChild(Number(address.derivation_index));
    const sweep = new Transaction();
    sweep.addInput({ txid: paid.txid, index: paid.vouts[0]!, witnessUtxo: { script, amount: 25_000n } });
    sweep.addOutput({ script: node.payerScript, amount: 24_000n });
    sweep.sign(child.privateKey!);
    sweep.finalize();
    const txid = await chains.forMode('test').source.broadcast(sweep.extract());
    expect(txid).toBe(sweep.id);
    for (let i = 0; i < 50 && !(await node.rpc.getRawMempool()).includes(txid); i++) await new Promise((r) => setTimeout(r, 50));
    await chains.pollNow();
    expect((await monitor.balance(address.address)).balance).toEqual({ confirmed: '0.00025', unconfirmed: '-0.00025' });
    await node.mine(1);
    await chains.pollNow();
    expect((await monitor.balance(address.address)).balance).toEqual({ confirmed: '0', unconfirmed: '0' });
    expect(await chains.forMode('test').source.rawTransaction(txid)).toEqual(sweep.extract());
  });

  it('estimates fees as whole sat/vB (the fallback when the source has none)', async () => {
    const fee = await chains.forMode('test').source.estimateFee(2);
    expect(typeof fee).toBe('bigint');
    expect(fee).toBeGreaterThanOrEqual(1n);
  });
});
