import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import pino from 'pino';
import { sql } from 'kysely';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { loadVector } from '../../test/support/load-vector.ts';
import { parseExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { deriveReceiveAddress } from '../bitcoin/receive-address.ts';
import { WatchedSet } from '../chain/watched-set.ts';
import type { Db } from '../db/database.ts';
import { AddressIssuer } from './address-issuer.ts';
import { DEFAULT_ISSUING_RULES, GapLimitError } from './issuing-rules.ts';
import { AddressPool, POOL_TARGET, REFILL_CHUNK } from './address-pool.ts';
import { DerivationWorker } from './derivation-worker.ts';
import { WalletRepository, type WalletRow } from './wallet-repository.ts';

const VPUB = loadVector<{ key: string }>('electrum-vpub.json').key;
const silent = pino({ level: 'silent' });

// Wired as in production: refills derive on a worker thread.
const threads: DerivationWorker[] = [];
function wire(db: Db, gaps: number[] = [], thread: DerivationWorker = new DerivationWorker()) {
  threads.push(thread);
  const issuer = new AddressIssuer(db.engine, (_w, index) => gaps.push(index));
  const pool = new AddressPool(db, () => Date.now(), silent, (w, i) => issuer.derive(w, i), thread);
  issuer.usePool(pool);
  return { issuer, pool };
}

async function insertWallet(db: Db): Promise<WalletRow> {
  return new WalletRepository(db).insert({
    api_id: `test_${Math.random().toString(16).slice(2)}`,
    pub: VPUB,
    mode: 'test',
    network: 'regtest',
    script_type: 'p2wpkh',
    wallet_type: 3n,
    local_currency: 'usd',
    notification_email: null,
    return_url: null,
    account_name: null,
    account_type: null,
    info: null,
    box_public_key: 'x',
    box_secret_sealed: 'x',
    sign_public_key: 'x',
    sign_secret_sealed: 'x',
    seed_sealed: null,
    created_at: 0n,
    updated_at: 0n,
  });
}

const indexes = (rows: { derivation_index: bigint }[]) => rows.map((r) => Number(r.derivation_index)).sort((a, b) => a - b);

describe.each(testEngines())('the pool of pre-derived addresses on %s', (engine) => {
  let t: TestDb;
  let wallet: WalletRow;
  beforeEach(async () => {
    t = await createTestDb(engine);
    wallet = await insertWallet(t.db);
  });
  afterEach(async () => {
    await Promise.all(threads.splice(0).map((th) => th.close()));
    await t.dispose();
  });

  /** A settled pool is within a chunk of its target: refills store whole chunks unless the pool is low. */
  const expectTopped = (pooled: number) => {
    expect(pooled).toBeGreaterThan(POOL_TARGET - REFILL_CHUNK);
    expect(pooled).toBeLessThanOrEqual(POOL_TARGET);
  };

  const pay = (issuer: AddressIssuer) => t.db.kysely.transaction().execute((trx) => issuer.issueForPayment(trx, wallet, Date.now()));

  it('issues the same addresses, in index order, as deriving each one on demand', async () => {
    const { issuer, pool } = wire(t.db);
    const issued = [];
    for (let i = 0; i < 5; i++) {
      issued.push(await pay(issuer));
      await pool.settle();
    }
    const key = parseExtendedPublicKey(VPUB);
    issued.forEach((a, i) => {
      expect(Number(a.derivation_index)).toBe(i);
      const expected = deriveReceiveAddress(key, i, 'p2wpkh', 'regtest');
      expect(a.address).toBe(expected.address);
      expect(a.script_hex).toBe(Buffer.from(expected.script).toString('hex'));
    });
    const pooled = await t.db.kysely.selectFrom('address_pool').selectAll().where('wallet_id', '=', wallet.id).execute();
    expectTopped(pooled.length);
    for (const p of pooled) expect(p.address).toBe(deriveReceiveAddress(key, Number(p.derivation_index), 'p2wpkh', 'regtest').address);
  });

  it('keeps pooled addresses out of counts, lookups and the watched set until they are issued', async () => {
    const { issuer, pool } = wire(t.db);
    const first = await pay(issuer);
    await pool.settle();
    const pooled = await t.db.kysely.selectFrom('address_pool').selectAll().orderBy('derivation_index').execute();
    expectTopped(pooled.length);
    const repo = new WalletRepository(t.db);
    expect(await repo.countAddresses(wallet.id)).toBe(1);
    expect(await repo.findAddress(pooled[0]!.address)).toBeUndefined();
    const watched = new WatchedSet('test');
    await watched.load(t.db);
    expect(watched.size).toBe(1);
    expect(watched.scripts.has(Buffer.from(first.script_hex, 'hex'))).toBe(true);
    expect(watched.scripts.has(Buffer.from(pooled[0]!.script_hex, 'hex'))).toBe(false);

    const second = await pay(issuer);
    expect(second.address).toBe(pooled[0]!.address);
    expect(await repo.countAddresses(wallet.id)).toBe(2);
    expect(await t.db.kysely.selectFrom('address_pool').select('id').where('address', '=', second.address).executeTakeFirst()).toBeUndefined();
  });

  it('a claim rolled back returns its address to the pool, and it is the next one issued', async () => {
    const { issuer, pool } = wire(t.db);
    await pay(issuer);
    await pool.settle();
    let lost: string | undefined;
    await expect(
      t.db.kysely.transaction().execute(async (trx) => {
        lost = (await issuer.issueForPayment(trx, wallet, Date.now())).address;
        throw new Error('the request failed after claiming');
      }),
    ).rejects.toThrow('after claiming');
    expect(await t.db.kysely.selectFrom('address_pool').select('id').where('address', '=', lost!).executeTakeFirst()).toBeDefined();
    expect((await pay(issuer)).address).toBe(lost);
  });

  it('after a restart the pool left behind is issued in order, and no index is ever issued twice', async () => {
    const before = wire(t.db);
    for (let i = 0; i < 3; i++) await pay(before.issuer);
    await before.pool.close();
    const restarted = t.reopen();
    try {
      const after = wire(restarted);
      const issue = () => restarted.kysely.transaction().execute((trx) => after.issuer.issueForPayment(trx, wallet, Date.now()));
      const next = await issue();
      expect(Number(next.derivation_index)).toBe(3);
      for (let i = 0; i < 5; i++) await issue();
      await after.pool.settle();
      const issued = await restarted.kysely.selectFrom('addresses').select('derivation_index').where('wallet_id', '=', wallet.id).execute();
      const pooled = await restarted.kysely.selectFrom('address_pool').select('derivation_index').where('wallet_id', '=', wallet.id).execute();
      const all = indexes([...issued, ...pooled]);
      expect(all).toEqual(all.map((_, i) => i));
      expect(indexes(issued)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    } finally {
      await restarted.close();
    }
  });

  it('concurrent issuers of one wallet, with the pool refilling and running dry, never share an index or leave a gap', async () => {
    const { issuer, pool } = wire(t.db);
    const issued = await Promise.all(Array.from({ length: 150 }, () => pay(issuer)));
    await pool.settle();
    expect(new Set(issued.map((a) => a.address)).size).toBe(150);
    expect(new Set(issued.map((a) => a.derivation_index)).size).toBe(150);
    const pooled = await t.db.kysely.selectFrom('address_pool').select('derivation_index').where('wallet_id', '=', wallet.id).execute();
    const all = indexes([...issued, ...pooled]);
    expect(all).toEqual(all.map((_, i) => i));
    expect(pool.claims + pool.misses).toBe(150);
  });

  it('refills store whole chunks and derive nothing they do not store', async () => {
    const thread = new DerivationWorker();
    threads.push(thread);
    const { issuer, pool } = wire(t.db, [], thread);
    // The first issue finds the pool empty: it derives its own address and INLINE_CHUNK more on this thread.
    await pay(issuer);
    await pool.settle();
    const inline = Number((await t.db.kysely.selectFrom('address_pool').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n) - thread.requested;
    for (let i = 0; i < 12; i++) {
      for (let j = 0; j < 20; j++) await pay(issuer);
      await pool.settle();
    }
    const pooled = await t.db.kysely.selectFrom('address_pool').select('derivation_index').where('wallet_id', '=', wallet.id).execute();
    expectTopped(pooled.length);
    expect(pool.misses).toBe(1);
    // Every address the thread derived was stored: issued from the pool since, or pooled still.
    expect(thread.requested).toBe(pool.claims + pooled.length - inline);
  });

  it('a wallet whose pool runs dry under a burst keeps a deeper pool afterwards, still gap-free', async () => {
    const thread = new DerivationWorker();
    threads.push(thread);
    const issuer = new AddressIssuer(t.db.engine, () => {});
    const pool = new AddressPool(t.db, () => Date.now(), silent, (w, i) => issuer.derive(w, i), thread, { target: 8, lowWater: 6, chunk: 2, maxTarget: 32 });
    issuer.usePool(pool);
    await pay(issuer);
    await pool.settle();
    expect(pool.sizesOf(wallet.id).target).toBe(8);
    const issued = await Promise.all(Array.from({ length: 40 }, () => pay(issuer)));
    await pool.settle();
    const grown = pool.sizesOf(wallet.id);
    expect(grown.target).toBeGreaterThan(8);
    expect(grown.target).toBeLessThanOrEqual(32);
    const pooled = await t.db.kysely.selectFrom('address_pool').select('derivation_index').where('wallet_id', '=', wallet.id).execute();
    expect(pooled.length).toBeGreaterThan(grown.target - grown.chunk);
    expect(pooled.length).toBeLessThanOrEqual(grown.target);
    const all = indexes([...issued, ...pooled, { derivation_index: 0n }]);
    expect(all).toEqual(all.map((_, i) => i));
  });

  // PostgreSQL plans statements from table statistics; SQLite has no such plan to check.
  if (engine === 'postgres')
    it('once the pool is filled its claim is planned as an ordered index scan, not a scan and sort of every pooled row', async () => {
      const { issuer, pool } = wire(t.db);
      await pay(issuer);
      await pool.settle();
      // The generic plan is the one a named prepared statement settles on after its first executions.
      const plan = await t.db.kysely.transaction().execute(async (trx) => {
        await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
        await sql`prepare pool_claim_plan(bigint, text) as select id from address_pool where wallet_id = $1 and script_type = $2
                  order by derivation_index limit 1 for update skip locked`.execute(trx);
        const { rows } = await sql<{ 'QUERY PLAN': string }>`explain execute pool_claim_plan(${sql.raw(String(wallet.id))}, 'p2wpkh')`.execute(trx);
        await sql`deallocate pool_claim_plan`.execute(trx);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      expect(plan).toMatch(/Index Scan using address_pool_wallet_index/);
      expect(plan).not.toMatch(/Bitmap|Sort/);
    });

  it('refills on the main thread, with the same addresses, when the derivation thread is unavailable', async () => {
    const dead = new DerivationWorker();
    await dead.close();
    const { issuer, pool } = wire(t.db, [], dead);
    await pay(issuer);
    await pool.settle();
    const key = parseExtendedPublicKey(VPUB);
    const pooled = await t.db.kysely.selectFrom('address_pool').selectAll().where('wallet_id', '=', wallet.id).execute();
    expectTopped(pooled.length);
    for (const p of pooled) expect(p.address).toBe(deriveReceiveAddress(key, Number(p.derivation_index), 'p2wpkh', 'regtest').address);
  });

  it('set_addr reuses a lapsed unfunded order address, once past its grace period, before drawing on the pool', async () => {
    const { issuer, pool } = wire(t.db);
    const now = Date.now();
    const reserve = (at: number, until: number) => t.db.kysely.transaction().execute((trx) => issuer.reserveForOrder(trx, wallet, { now: at, until }));
    const a = await reserve(now, now + 1_000);
    await pool.settle();
    const b = await reserve(now, now + 1_000);
    expect(b.derivation_index).toBe(a.derivation_index + 1n);
    // Lapsed, but within the grace period: kept back.
    const kept = await reserve(now + 2_000, now + 10_000);
    expect(kept.derivation_index).toBe(b.derivation_index + 1n);
    const later = now + 1_000 + DEFAULT_ISSUING_RULES.reuseGraceMs;
    const again = await reserve(later, later + 10_000);
    expect(again.id).toBe(a.id);
    expect(again.reserved_until).toBe(BigInt(later + 10_000));
  });

  it('40 concurrent order reservations, with nothing queueing them, never take the wallet past its gap limit', async () => {
    const { issuer, pool } = wire(t.db);
    const now = Date.now();
    // Half of them find the pool still empty and derive; the rest race for pooled rows.
    const reserve = () => t.db.kysely.transaction().execute((trx) => issuer.reserveForOrder(trx, wallet, { now, until: now + 3_600_000 }));
    const results = await Promise.allSettled(Array.from({ length: 40 }, reserve));
    await pool.settle();
    const issued = results.filter((r) => r.status === 'fulfilled').map((r) => Number(r.value.derivation_index));
    expect(issued.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(GapLimitError);
    const rows = await t.db.kysely.selectFrom('addresses').select('derivation_index').where('wallet_id', '=', wallet.id).execute();
    expect(indexes(rows)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Pooled rows claimed by a refused reservation went back to the pool: the indexes are still gap-free.
    const pooled = await t.db.kysely.selectFrom('address_pool').select('derivation_index').where('wallet_id', '=', wallet.id).execute();
    const all = indexes([...rows, ...pooled]);
    expect(all).toEqual(all.map((_, i) => i));
  });

  it('the gap-limit warning counts issued addresses only, never pooled ones', async () => {
    const gaps: number[] = [];
    const { issuer, pool } = wire(t.db, gaps);
    for (let i = 0; i < 21; i++) {
      await pay(issuer);
      await pool.settle();
    }
    expect(gaps).toEqual([20]);
  });

  it('pooled rows of a script type the wallet no longer has are never issued', async () => {
    const { issuer, pool } = wire(t.db);
    await pay(issuer);
    await pool.settle();
    const changed = await new WalletRepository(t.db).update(wallet.id, { script_type: 'p2pkh', wallet_type: 1n });
    const next = await t.db.kysely.transaction().execute((trx) => issuer.issueForPayment(trx, changed, Date.now()));
    expect(next.address).toBe(deriveReceiveAddress(parseExtendedPublicKey(VPUB), Number(next.derivation_index), 'p2pkh', 'regtest').address);
    await pool.settle();
    const kinds = await t.db.kysely.selectFrom('address_pool').select('script_type').distinct().where('wallet_id', '=', wallet.id).execute();
    expect(kinds.map((k) => k.script_type)).toEqual(['p2pkh']);
  });
});
