// The verified header chain survives a restart: a new process loads it from the database (checking it again
// locally) and asks the server only for headers from its stored tip up; a reorganisation that happened while
// it was stopped is found on start, and the stored headers above the fork are replaced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startRegtestNode, type RegtestNode } from '../../../test/support/regtest-node.ts';
import { startSource, type RunningSource } from '../../../test/support/chain-sources.ts';
import { createTestDb, testEngines, type TestDb } from '../../../test/support/test-db.ts';
import { ChainService } from '../chain-service.ts';
import { WalletRepository } from '../../wallets/wallet-repository.ts';
import { registerWallet } from '../../wallets/wallet-registration.ts';
import { generateNewWallet } from '../../bitcoin/new-wallet.ts';
import { AddressIssuer } from '../../wallets/address-issuer.ts';
import { MasterKey } from '../../security/master-key.ts';
import { HeaderStore } from './header-store.ts';

const KEY = MasterKey.fromBytes(new Uint8Array(32).fill(7));

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

const cases = testEngines().flatMap((engine) => (['Electrum', 'Esplora'] as const).map((source) => [engine, source] as const));

describe.each(cases)('persisted light headers on %s (%s)', (engine, sourceName) => {
  let source: RunningSource;
  let testDb: TestDb;
  let chains: ChainService | undefined;

  beforeAll(async () => {
    source = await startSource(sourceName, node);
    testDb = await createTestDb(engine);
  });
  afterAll(async () => {
    await chains?.close();
    await source?.stop();
    await testDb?.dispose();
  });

  /** A process's chain service on the shared database (a restart is a new one). */
  async function startChains(): Promise<ChainService> {
    const c = new ChainService(testDb.db, Date.now, pino({ level: 'silent' }), 50, 2n);
    await c.configure({ test: { ...source.endpoint, network: 'regtest' } });
    return c;
  }

  /** Where the server was asked for headers since request number `since` (the lowest height asked). */
  function headerHeightsAskedSince(since: number): number[] {
    if (source.electrum) return source.electrum.headerRequests.slice(since).map((r) => r.start);
    // Esplora: `/blocks/:height` lists ten headers down from the height.
    return source.esplora!.paths.slice(since).flatMap((p) => {
      const m = /^\/blocks\/(\d+)$/.exec(p);
      return m ? [Number(m[1]) - 9] : [];
    });
  }
  const requestCount = () => (source.electrum ? source.electrum.headerRequests.length : source.esplora!.paths.length);

  async function storedHashes(): Promise<string[]> {
    const rows = await testDb.db.kysely.selectFrom('light_headers').select(['height', 'hash']).where('chain', '=', 'test').orderBy('height').execute();
    rows.forEach((r, i) => expect(Number(r.height)).toBe(i));
    return rows.map((r) => r.hash);
  }
  async function nodeHashes(): Promise<string[]> {
    const height = await node.height();
    const out: string[] = [];
    for (let h = 0; h <= height; h++) out.push(await node.rpc.getBlockHash(h));
    return out;
  }

  it('a restart loads the stored headers and fetches only those from the stored tip up', async () => {
    chains = await startChains();
    await chains.pollNow();
    expect(await storedHashes()).toEqual(await nodeHashes());
    await chains.close();
    const storedTip = (await new HeaderStore(testDb.db, 'test').tip())!;

    await node.mine(3);
    const since = requestCount();
    chains = await startChains();
    await chains.pollNow();

    const asked = headerHeightsAskedSince(since);
    expect(asked.length).toBeGreaterThan(0);
    // Electrum asks from our tip (to notice a same-height branch); Esplora's pages of ten reach just below it.
    expect(Math.min(...asked)).toBeGreaterThanOrEqual(storedTip.height - (source.esplora ? 9 : 0));
    expect(await storedHashes()).toEqual(await nodeHashes());
    expect(chains.forMode('test').watcher.health()).toMatchObject({ headerHeight: await node.height(), verified: true });
    await chains.close();
    chains = undefined;
  });

  it('a reorganisation that happened while stopped is found on start: the payment it undid is unconfirmed again, the stored suffix replaced', async () => {
    const repo = new WalletRepository(testDb.db);
    const { api_id } = await registerWallet(
      { repo, masterKey: KEY, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true },
      { pub: generateNewWallet(true).accountKey },
    );
    const wallet = (await repo.findByApiId(api_id))!;
    const address = await testDb.db.kysely.transaction().execute((trx) => new AddressIssuer(testDb.db.engine).issueForPayment(trx, wallet, Date.now()));
    const script = Buffer.from(address.script_hex, 'hex');

    chains = await startChains();
    chains.watch('test', script, { addressId: address.id, walletId: wallet.id });
    const paid = await node.pay(script, 40_000n);
    await node.mine(1);
    await chains.pollNow();
    const state = async () =>
      (await testDb.db.kysely.selectFrom('chain_txs').select(['state', 'block_hash']).where('txid', '=', paid.txid).executeTakeFirstOrThrow());
    expect((await state()).state).toBe('block');
    await chains.close();
    const before = await storedHashes();

    // While stopped: the block with the payment is replaced by a longer branch without it.
    await node.reorg(1, 2);
    chains = await startChains();
    await chains.pollNow();

    const after = await storedHashes();
    expect(after).toEqual(await nodeHashes());
    expect(after.slice(0, before.length - 1)).toEqual(before.slice(0, -1));
    expect(after[before.length - 1]).not.toBe(before.at(-1));
    // Back in the node's mempool (the orphaned block's transactions return): unconfirmed, never mined in the old block.
    expect(await state()).toEqual({ state: 'mempool', block_hash: null });
    const tip = await testDb.db.kysely.selectFrom('chain_tips').selectAll().where('chain', '=', 'test').executeTakeFirstOrThrow();
    expect(tip.tip_hash).toBe(after.at(-1));
  });

  it('a watcher started again (the singleton lease came back) reads the stored headers afresh instead of its memory', async () => {
    await chains?.close();
    chains = await startChains();
    chains.start();
    await chains.pollNow();
    await chains.stop();
    // Meanwhile another process (the lease holder) rewrote the stored chain: here, the top rows are gone.
    const height = await node.height();
    await testDb.db.kysely.deleteFrom('light_headers').where('chain', '=', 'test').where('height', '>', BigInt(height - 5)).execute();
    const since = requestCount();
    chains.start();
    await chains.pollNow();
    await chains.stop();
    // Memory would have asked from the tip; the stored rows end five lower, so that is where it asks from.
    expect(Math.min(...headerHeightsAskedSince(since))).toBeLessThanOrEqual(height - 4);
    expect(await storedHashes()).toEqual(await nodeHashes());
  });

  it('a stored header that no longer verifies is dropped from there and fetched again', async () => {
    await chains?.close();
    const rows = await storedHashes();
    const at = rows.length - 3;
    // A damaged row: its bytes no longer link (the previous-hash field zeroed).
    const broken = '00000020' + '00'.repeat(32) + 'ff'.repeat(44);
    await testDb.db.kysely.updateTable('light_headers').set({ header_hex: broken }).where('chain', '=', 'test').where('height', '=', BigInt(at)).execute();
    const since = requestCount();
    chains = await startChains();
    await chains.pollNow();
    expect(await storedHashes()).toEqual(await nodeHashes());
    expect(Math.min(...headerHeightsAskedSince(since))).toBeLessThanOrEqual(at);
  });
});
