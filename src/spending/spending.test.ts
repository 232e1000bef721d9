import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcChainSource } from '../chain/chain-source.ts';
import pino from 'pino';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Transaction } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { MasterKey } from '../security/master-key.ts';
import { ChainService } from '../chain/chain-service.ts';
import { WalletRepository, type WalletRow } from '../wallets/wallet-repository.ts';
import { registerWallet } from '../wallets/wallet-registration.ts';
import { AddressIssuer } from '../wallets/address-issuer.ts';
import { addressForPublicKey } from '../bitcoin/address.ts';
import { accountNodeFromMnemonic } from '../bitcoin/new-wallet.ts';
import { createSpending, type Spending } from './spending.ts';
import { InsufficientFundsError, SpendRefusedError } from './spending-errors.ts';
import { expectFeeAtRate } from '../../test/support/fee-rate.ts';

const log = pino({ level: 'silent' });
const MASTER_KEY = MasterKey.fromBytes(new Uint8Array(32).fill(9));

function randomRegtestAddress(): string {
  return addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');
}

describe.each(testEngines())('spending from a service-held wallet on %s', (engine) => {
  let node: RegtestNode;
  let testDb: TestDb;
  let chains: ChainService;
  let repo: WalletRepository;
  let wallet: WalletRow;
  let issuer: AddressIssuer;
  let spending: Spending;

  async function fund(amounts: bigint[]): Promise<void> {
    const outs = [];
    for (const amount of amounts) {
      const row = await testDb.db.kysely.transaction().execute((trx) => issuer.issueForPayment(trx, wallet, Date.now()));
      chains.watch('test', Buffer.from(row.script_hex, 'hex'), { addressId: row.id, walletId: wallet.id });
      outs.push({ script: Buffer.from(row.script_hex, 'hex'), amount });
    }
    await node.payMany(outs);
    await node.mine(1);
    await chains.pollNow();
  }

  async function inMempool(txid: string): Promise<boolean> {
    for (let i = 0; i < 200; i++) {
      if ((await node.rpc.getRawMempool()).includes(txid)) return true;
      await new Promise((r) => setTimeout(r, 10));
    }
    return false;
  }

  beforeAll(async () => {
    node = await startRegtestNode();
    testDb = await createTestDb(engine);
    repo = new WalletRepository(testDb.db);
    const { api_id } = await registerWallet(
      { repo, masterKey: MASTER_KEY, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true },
      { pub: 'new_wallet', currency: 'testBTC' },
    );
    wallet = (await repo.findByApiId(api_id))!;
    issuer = new AddressIssuer(testDb.db.engine);
    chains = new ChainService(testDb.db, Date.now, log, 50, 3n);
    await chains.configure({ test: { rpcUrl: node.rpcUrl, network: 'regtest' } });
    await chains.pollNow();
    spending = createSpending({ db: testDb.db, chains, masterKey: MASTER_KEY, clock: Date.now, log, pollMs: 50, fallbackFeeRate: 3n });
  }, 120_000);

  afterAll(async () => {
    await spending?.background.stop();
    await chains?.stop();
    await testDb?.dispose();
    await node?.stop();
  });

  it('pays an address, with change to the internal chain, a fee of rate × signed vsize (never less), RBF signalled', async () => {
    await fund([200_000n, 150_000n]);
    const to = randomRegtestAddress();
    const spend = await spending.spend({ walletId: wallet.id, outputs: [{ address: to, amountSats: 120_000n }], purpose: 'operator', feeRate: 5n });
    expect(spend.status).toBe('broadcast');
    expect(await inMempool(spend.txid)).toBe(true);

    const tx = Transaction.fromRaw(Buffer.from(spend.raw_hex, 'hex'));
    expect(tx.vsize).toBe(Number(spend.vsize));
    expectFeeAtRate(spend.fee_sats, 5n, spend.vsize);
    expect(tx.inputsLength).toBe(1);
    expect(tx.getInput(0).sequence).toBe(0xfffffffd);
    const outputs = await testDb.db.kysely.selectFrom('spend_outputs').selectAll().where('spend_id', '=', spend.id).orderBy('n').execute();
    expect(outputs.map((o) => [o.address, o.amount_sats, o.is_change])).toEqual([
      [to, 120_000n, 0n],
      [expect.stringMatching(/^bcrt1q/), 200_000n - 120_000n - spend.fee_sats, 1n],
    ]);
    // The change address is the account key's child 1/0.
    const mnemonic = MASTER_KEY.unseal(wallet.seed_sealed!).toString('utf8');
    const change = accountNodeFromMnemonic(mnemonic, true).deriveChild(1).deriveChild(0);
    expect(outputs[1]!.address).toBe(addressForPublicKey(change.publicKey!, 'p2wpkh', 'regtest'));

    await chains.pollNow();
    await node.mine(1);
    await chains.pollNow();
    await spending.reconcile();
    const after = (await spending.list(wallet.id)).find((s) => s.id === spend.id)!;
    expect(after.status).toBe('confirmed');
    // The watcher saw the change as a credit of the wallet and the spent coin as a debit.
    const changeCredit = await testDb.db.kysely
      .selectFrom('chain_outputs as o')
      .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
      .select(['o.value_sats', 't.state'])
      .where('t.txid', '=', spend.txid)
      .execute();
    expect(changeCredit).toEqual([{ value_sats: outputs[1]!.amount_sats, state: 'block' }]);
    const debits = await testDb.db.kysely.selectFrom('chain_spends as s').innerJoin('chain_txs as t', 't.id', 's.tx_id').select('s.vin').where('t.txid', '=', spend.txid).execute();
    expect(debits).toHaveLength(1);
  });

  it('uses the node fee estimate, or the fallback rate when the node has none', async () => {
    const rate = await spending.feeRate('test');
    expect(rate).toBeGreaterThanOrEqual(1n);
  });

  it('20 concurrent spends never pick the same coin and are all accepted by the node', async () => {
    await fund(Array.from({ length: 22 }, () => 30_000n));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        spending.spend({ walletId: wallet.id, outputs: [{ address: randomRegtestAddress(), amountSats: 10_000n + BigInt(i) }], purpose: 'operator', reference: `c${i}`, feeRate: 2n }),
      ),
    );
    const inputs = results.flatMap((s) => Transaction.fromRaw(Buffer.from(s.raw_hex, 'hex'))).flatMap((tx) =>
      Array.from({ length: tx.inputsLength }, (_, i) => {
        const input = tx.getInput(i);
        return `${Buffer.from(input.txid!).toString('hex')}:${input.index}`;
      }),
    );
    expect(new Set(inputs).size).toBe(inputs.length);
    for (const s of results) expect(await inMempool(s.txid)).toBe(true);
    // The same reference answers the same spend.
    const again = await spending.spend({ walletId: wallet.id, outputs: [{ address: randomRegtestAddress(), amountSats: 10_000n }], purpose: 'operator', reference: 'c3', feeRate: 2n });
    expect(again.id).toBe(results[3]!.id);
    await node.mine(1);
    await chains.pollNow();
  });

  it('a fee bump replaces the transaction with one paying the same outputs at the higher rate, and the spend follows it', async () => {
    await fund([80_000n]);
    const to = randomRegtestAddress();
    const spend = await spending.spend({ walletId: wallet.id, outputs: [{ address: to, amountSats: 20_000n }], purpose: 'operator', feeRate: 1n });
    expect(await inMempool(spend.txid)).toBe(true);
    await chains.pollNow();
    const bumped = await spending.bump(spend.txid, 12n);
    expect(bumped.txid).not.toBe(spend.txid);
    expectFeeAtRate(bumped.fee_sats, 12n, bumped.vsize);
    const original = Transaction.fromRaw(Buffer.from(spend.raw_hex, 'hex'));
    const replacement = Transaction.fromRaw(Buffer.from(bumped.raw_hex, 'hex'));
    expect(replacement.getInput(0).txid).toEqual(original.getInput(0).txid);
    expect(replacement.getOutput(0)).toEqual(original.getOutput(0));
    expect(replacement.getOutput(1).amount).toBe(original.getOutput(1).amount! - (bumped.fee_sats - spend.fee_sats));
    // bcoin 1.0.2's mempool has no BIP125 replacement, so a miner that honours it mines the replacement.
    await node.mineBlockWith([bumped.raw_hex]);
    await chains.pollNow();
    await spending.reconcile();
    expect((await spending.list(wallet.id)).find((s) => s.id === spend.id)).toMatchObject({ status: 'confirmed', txid: bumped.txid });
    expect((await node.rpc.getRawMempool()).includes(spend.txid)).toBe(false);
    await expect(spending.bump(bumped.txid, 20n)).rejects.toThrow(SpendRefusedError);
  });

  it('refuses dust, foreign-network addresses and amounts above the balance, changing nothing', async () => {
    const before = (await spending.list()).length;
    await expect(spending.spend({ walletId: wallet.id, outputs: [{ address: randomRegtestAddress(), amountSats: 100n }], purpose: 'operator' })).rejects.toThrow(/dust/);
    await expect(
      spending.spend({ walletId: wallet.id, outputs: [{ address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', amountSats: 10_000n }], purpose: 'operator' }),
    ).rejects.toThrow(SpendRefusedError);
    await expect(spending.spend({ walletId: wallet.id, outputs: [{ address: randomRegtestAddress(), amountSats: 10n ** 15n }], purpose: 'operator', feeRate: 2n })).rejects.toThrow(
      InsufficientFundsError,
    );
    expect((await spending.list()).length).toBe(before);
  });

  it('a stored spend the node refused is sent again until the node has it', async () => {
    await fund([50_000n]);
    const rpc = (chains.get('test')!.source as RpcChainSource).rpc;
    const original = rpc.sendRawTransaction.bind(rpc);
    rpc.sendRawTransaction = async () => {
      throw new Error('node unreachable');
    };
    let spend;
    try {
      spend = await spending.spend({ walletId: wallet.id, outputs: [{ address: randomRegtestAddress(), amountSats: 10_000n }], purpose: 'operator', feeRate: 2n });
      expect(spend.status).toBe('signed');
      expect(spend.last_error).toMatch(/unreachable/);
    } finally {
      rpc.sendRawTransaction = original;
    }
    await spending.reconcile();
    expect(await inMempool(spend.txid)).toBe(true);
    expect((await spending.list()).find((s) => s.id === spend.id)!.status).toBe('broadcast');
  });

  it('a dump of the database holds no seed or private key in clear', async () => {
    const mnemonic = MASTER_KEY.unseal(wallet.seed_sealed!).toString('utf8');
    const account = accountNodeFromMnemonic(mnemonic, true);
    const secrets = [
      mnemonic,
      mnemonic.split(' ').slice(0, 3).join(' '),
      account.privateExtendedKey,
      Buffer.from(account.deriveChild(0).deriveChild(0).privateKey!).toString('hex'),
      Buffer.from(account.deriveChild(1).deriveChild(0).privateKey!).toString('hex'),
    ];
    let dump = '';
    for (const table of await testDb.db.kysely.introspection.getTables()) {
      const rows = await testDb.db.kysely.selectFrom(table.name as 'wallets').selectAll().execute();
      dump += JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    }
    if (engine === 'sqlite') {
      const dir = testDb.env.SATGATE_DATA_DIR!;
      dump += readdirSync(dir).map((f) => readFileSync(join(dir, f)).toString('latin1')).join('');
    }
    expect(dump).toContain(wallet.pub);
    for (const secret of secrets) expect(dump.includes(secret)).toBe(false);
  });
});
