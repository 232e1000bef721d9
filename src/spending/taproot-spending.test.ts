// A service-held taproot wallet (add_pub `"pub": "new_wallet"` with `wallet_type` 4): its order addresses are BIP86
// key-path outputs of the generated seed, a payment is received and confirmed, and a payout spends it with key-path
// (tweaked Schnorr) signatures, change to the wallet's own taproot change branch. bcoin 1.0.2 predates taproot and
// refuses taproot spends from its mempool ("non-mandatory-script-verify-flag"), so the test checks each BIP341
// signature itself and mines the payout with the block builder (node.mineBlockWith).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { SigHash, Transaction } from '@scure/btc-signer';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { MasterKey } from '../security/master-key.ts';
import { ChainService } from '../chain/chain-service.ts';
import { WalletRepository, type WalletRow } from '../wallets/wallet-repository.ts';
import { registerWallet } from '../wallets/wallet-registration.ts';
import { AddressIssuer } from '../wallets/address-issuer.ts';
import { addressForPublicKey } from '../bitcoin/address.ts';
import { keyOf } from '../bitcoin/wallet-key.ts';
import { taprootAccountFromMnemonic } from '../bitcoin/new-wallet.ts';
import { createSpending, type Spending } from './spending.ts';

const log = pino({ level: 'silent' });
const MASTER_KEY = MasterKey.fromBytes(new Uint8Array(32).fill(11));

describe.each(testEngines())('a service-held taproot wallet on %s', (engine) => {
  let node: RegtestNode;
  let testDb: TestDb;
  let chains: ChainService;
  let repo: WalletRepository;
  let wallet: WalletRow;
  let spending: Spending;

  beforeAll(async () => {
    node = await startRegtestNode();
    testDb = await createTestDb(engine);
    repo = new WalletRepository(testDb.db);
    const { api_id } = await registerWallet(
      { repo, masterKey: MASTER_KEY, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true },
      { pub: 'new_wallet', currency: 'testBTC', wallet_type: 4 },
    );
    wallet = (await repo.findByApiId(api_id))!;
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

  it('is stored as a BIP86 descriptor of its sealed seed, wallet_type 4, kind p2tr', () => {
    expect(wallet).toMatchObject({ script_type: 'p2tr', wallet_type: 4n, mode: 'test' });
    expect(wallet.seed_sealed).not.toBeNull();
    const mnemonic = MASTER_KEY.unseal(wallet.seed_sealed!).toString('utf8');
    const { descriptor } = taprootAccountFromMnemonic(mnemonic, true);
    expect(wallet.pub).toBe(descriptor);
    expect(wallet.pub).toMatch(/^tr\(\[[0-9a-f]{8}\/86h\/1h\/0h\]tpub[1-9A-HJ-NP-Za-km-z]+\/<0;1>\/\*\)#[a-z0-9]{8}$/);
    expect(wallet.descriptor).toBe(keyOf({ descriptor: wallet.pub }, 'regtest').describe());
  });

  it('a new wallet of another new kind (5 multisig, 6 descriptor) is refused and nothing is stored', async () => {
    const before = await testDb.db.kysely.selectFrom('wallets').select('id').execute();
    for (const walletType of [5, 6]) {
      await expect(
        registerWallet(
          { repo, masterKey: MASTER_KEY, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true },
          { pub: 'new_wallet', currency: 'testBTC', wallet_type: walletType },
        ),
      ).rejects.toThrow(/or 4 \(taproot\) for a new wallet/);
    }
    expect(await testDb.db.kysely.selectFrom('wallets').select('id').execute()).toEqual(before);
  });

  it('receives at a taproot order address and pays out with key-path signatures, change to its taproot change branch', async () => {
    const issuer = new AddressIssuer(testDb.db.engine);
    const order = await testDb.db.kysely.transaction().execute((trx) => issuer.issueForPayment(trx, wallet, Date.now()));
    expect(order.address).toMatch(/^bcrt1p/);
    expect(order.address).toBe(keyOf({ descriptor: wallet.descriptor! }, 'regtest').receive(0).address);
    chains.watch('test', Buffer.from(order.script_hex, 'hex'), { addressId: order.id, walletId: wallet.id });
    // A payment to a witness v1 output is taken into bcoin's mempool; only spending one is not.
    await node.pay(Buffer.from(order.script_hex, 'hex'), 100_000n);
    await node.mine(1);
    await chains.pollNow();

    const to = addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');
    const spend = await spending.spend({ walletId: wallet.id, outputs: [{ address: to, amountSats: 60_000n }], purpose: 'operator', feeRate: 2n });
    const tx = Transaction.fromRaw(Buffer.from(spend.raw_hex, 'hex'));
    expect(tx.inputsLength).toBe(1);
    const prevScript = Buffer.from(order.script_hex, 'hex');
    const sighash = tx.preimageWitnessV1(0, [prevScript], SigHash.DEFAULT, [100_000n]);
    // Key path: the witness is one 64-byte Schnorr signature, valid for the output key of the spent P2TR output.
    const witness = tx.getInput(0).finalScriptWitness!;
    expect(witness).toHaveLength(1);
    expect(witness[0]).toHaveLength(64);
    expect(schnorr.verify(witness[0]!, sighash, prevScript.subarray(2))).toBe(true);
    const change = await testDb.db.kysely.selectFrom('spend_outputs').selectAll().where('spend_id', '=', spend.id).where('is_change', '=', 1n).executeTakeFirstOrThrow();
    expect(change.address).toBe(keyOf({ descriptor: wallet.descriptor! }, 'regtest').change(0).address);
    expect(change.amount_sats).toBe(40_000n - spend.fee_sats);

    await expect(node.sendAndWait(spend.raw_hex)).rejects.toThrow(/non-mandatory-script-verify-flag/);
    await node.mineBlockWith([spend.raw_hex]);
    await chains.pollNow();
    await spending.reconcile();
    expect((await spending.list(wallet.id)).find((s) => s.id === spend.id)).toMatchObject({ status: 'confirmed', txid: spend.txid });
  });
});
