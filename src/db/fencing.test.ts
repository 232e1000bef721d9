// The fencing check of the singleton role against a real PostgreSQL: a holder whose lease is gone writes
// nothing, a takeover waits for a checked transaction in flight, and a holder paused mid-transaction is cut off.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createTestDb, type TestDb } from '../../test/support/test-db.ts';
import { LeaseStore } from './lease-store.ts';
import { LeaseLostError, runFenced, type Fence } from './fencing.ts';
import type { Db } from './database.ts';

const PG = process.env.TEST_DATABASE_URL;
if (!PG && process.env.CI !== 'true') console.warn('skipping fencing tests: TEST_DATABASE_URL is not set (they need PostgreSQL)');

describe.skipIf(!PG && process.env.CI !== 'true')('fenced writes of the lease holder on PostgreSQL', () => {
  let t: TestDb;
  let other: Db;
  let refused: number;

  beforeEach(async () => {
    t = await createTestDb('postgres');
    other = t.reopen();
    refused = 0;
    await sql`create table fence_probe (v integer not null)`.execute(t.db.kysely);
  });
  afterEach(async () => {
    await other.close();
    await t.dispose();
  });

  const fenceOf = (holder: string, token: bigint, idleLimitMs = 5_000): Fence => ({
    lease: 'singleton',
    holder,
    token,
    idleLimitMs,
    onRefused: () => refused++,
  });
  const probe = async () => (await sql<{ v: number }>`select v from fence_probe order by v`.execute(t.db.kysely)).rows.map((r) => r.v);
  const insertInTrx = (db: Db, v: number) => db.kysely.transaction().execute((trx) => sql`insert into fence_probe (v) values (${v})`.execute(trx));

  it('writes while the lease is held, refuses every write once another process took it, and leaves unfenced work alone', async () => {
    const a = new LeaseStore(t.db);
    const b = new LeaseStore(other);
    const held = (await a.tryAcquire('singleton', 'A', 300))!;
    expect(held.token).toBe(1n);
    expect(await b.tryAcquire('singleton', 'B', 300)).toBeNull();
    await runFenced(fenceOf('A', held.token), () => insertInTrx(t.db, 1));
    await runFenced(fenceOf('A', held.token), () => sql`insert into fence_probe (v) values (2)`.execute(t.db.kysely));

    await new Promise((r) => setTimeout(r, 350));
    const taken = (await b.tryAcquire('singleton', 'B', 10_000))!;
    expect(taken.token).toBe(2n);
    await expect(runFenced(fenceOf('A', held.token), () => insertInTrx(t.db, 3))).rejects.toBeInstanceOf(LeaseLostError);
    await expect(runFenced(fenceOf('A', held.token), () => sql`insert into fence_probe (v) values (4)`.execute(t.db.kysely))).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    // Reads are not fenced, and neither is API work (no fence in its context).
    await runFenced(fenceOf('A', held.token), () => sql`select 1`.execute(t.db.kysely));
    await insertInTrx(t.db, 5);
    await runFenced(fenceOf('B', taken.token), () => insertInTrx(other, 6));
    expect(await a.renew('singleton', 'A', held.token, 300)).toBeNull();
    expect(await probe()).toEqual([1, 2, 5, 6]);
    expect(refused).toBe(2);
  });

  it('a takeover waits for a checked transaction in flight, so nothing slips between the check and the commit', async () => {
    const a = new LeaseStore(t.db);
    const held = (await a.tryAcquire('singleton', 'A', 200))!;
    const order: string[] = [];
    let takeover: Promise<unknown> | undefined;
    // The other process's takeover must not run inside A's fenced context.
    const outside = AsyncLocalStorage.snapshot();
    await runFenced(fenceOf('A', held.token), () =>
      t.db.kysely.transaction().execute(async (trx) => {
        await sql`insert into fence_probe (v) values (1)`.execute(trx);
        await new Promise((r) => setTimeout(r, 300)); // the lease expires meanwhile
        takeover = outside(() => new LeaseStore(other).tryAcquire('singleton', 'B', 10_000).then((l) => order.push(`B took token ${l?.token}`)));
        await new Promise((r) => setTimeout(r, 200));
        order.push('A committed');
      }),
    );
    await takeover;
    expect(order).toEqual(['A committed', 'B took token 2']);
    expect(await probe()).toEqual([1]);
  });

  it('a holder paused inside a transaction past the idle limit is cut off and its writes are lost', async () => {
    const held = (await new LeaseStore(t.db).tryAcquire('singleton', 'A', 200))!;
    const paused = runFenced(fenceOf('A', held.token, 300), () =>
      t.db.kysely.transaction().execute(async (trx) => {
        await sql`insert into fence_probe (v) values (1)`.execute(trx);
        await new Promise((r) => setTimeout(r, 1_000)); // a stopped process sends nothing
        await sql`insert into fence_probe (v) values (2)`.execute(trx);
      }),
    );
    await expect(paused).rejects.toThrow();
    expect((await new LeaseStore(other).tryAcquire('singleton', 'B', 10_000))?.token).toBe(2n);
    expect(await probe()).toEqual([]);
  });
});
