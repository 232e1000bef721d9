import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { lowestFreeOrderAddress, reserveFreeOrderAddress } from './address-claims.ts';

describe.each(testEngines())('the free order address lookup on %s', (engine) => {
  let t: TestDb;
  let walletId: bigint;
  beforeEach(async () => {
    t = await createTestDb(engine);
    const wallet = await t.db.kysely
      .insertInto('wallets')
      .values({
        api_id: 'test_claims', pub: 'tpub-claims', mode: 'test', network: 'regtest', script_type: 'p2wpkh', wallet_type: 0n,
        local_currency: 'EUR', notification_email: null, return_url: null, account_name: null, account_type: null, info: null,
        box_public_key: 'b', box_secret_sealed: 'b', sign_public_key: 's', sign_secret_sealed: 's', seed_sealed: null,
        registration_email: null, created_at: 1n, updated_at: 1n,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    walletId = wallet.id;
  });
  afterEach(async () => {
    await t.dispose();
  });

  const NOW = 1_000;
  async function address(index: number, fields: { purpose?: string; reservedUntil?: number | null; funded?: boolean }) {
    return t.db.kysely
      .insertInto('addresses')
      .values({
        wallet_id: walletId, derivation_index: BigInt(index), address: `bcrt1qclaims${index}`, script_hex: `0014${index}`, created_at: 1n,
        reserved_until: fields.reservedUntil === undefined || fields.reservedUntil === null ? null : BigInt(fields.reservedUntil),
        purpose: fields.purpose ?? 'order', first_funded_at: fields.funded ? 5n : null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  }
  const reserve = (onlyId?: bigint) => t.db.kysely.transaction().execute((trx) => reserveFreeOrderAddress(trx, t.db, walletId, NOW, NOW + 500, onlyId));

  it('finds the lowest index among never-reserved and lapsed order addresses, skipping funded, payment and still reserved ones', async () => {
    await address(0, { purpose: 'payment' });
    await address(1, { reservedUntil: NOW - 1, funded: true });
    await address(2, { reservedUntil: NOW + 1 });
    await address(3, { reservedUntil: null });
    const lapsed = await address(4, { reservedUntil: NOW });
    expect(Number((await lowestFreeOrderAddress(t.db.kysely, walletId, NOW))?.derivation_index)).toBe(3);
    const first = await reserve();
    expect(Number(first?.derivation_index)).toBe(3);
    expect(first?.reserved_until).toBe(BigInt(NOW + 500));
    expect((await lowestFreeOrderAddress(t.db.kysely, walletId, NOW))?.id).toBe(lapsed.id);
    expect((await reserve())?.id).toBe(lapsed.id);
    expect(await lowestFreeOrderAddress(t.db.kysely, walletId, NOW)).toBeUndefined();
    expect(await reserve()).toBeUndefined();
  });

  it('a lapsed address below a never-reserved one is the one reserved', async () => {
    await address(7, { reservedUntil: null });
    const lapsed = await address(2, { reservedUntil: NOW - 100 });
    expect((await lowestFreeOrderAddress(t.db.kysely, walletId, NOW))?.id).toBe(lapsed.id);
    expect((await reserve())?.id).toBe(lapsed.id);
  });

  it('reserves only the named address, and only while it is free', async () => {
    await address(1, { reservedUntil: null });
    const named = await address(5, { reservedUntil: NOW - 1 });
    expect((await reserve(named.id))?.id).toBe(named.id);
    expect(await reserve(named.id)).toBeUndefined();
  });

  // SQLite's plan only: PostgreSQL plans from statistics, which this small table does not have.
  if (engine === 'sqlite') it('each kind is a range of the partial index, not a walk over every address of the wallet', async () => {
    const plan = async (reservation: string, order: string) =>
      (
        await sql
          .raw<{ detail: string }>(
            `explain query plan select id from addresses where wallet_id = ${walletId} and purpose = 'order' and first_funded_at is null and ${reservation} order by ${order} limit 1`,
          )
          .execute(t.db.kysely)
      ).rows.map((r) => r.detail).join('; ');
    expect(await plan('reserved_until is null', '+derivation_index')).toMatch(/addresses_free_orders \(wallet_id=\? AND reserved_until=\?\)/);
    expect(await plan(`reserved_until <= ${NOW}`, '+derivation_index')).toMatch(/addresses_free_orders \(wallet_id=\? AND reserved_until<\?\)/);
    // The single condition the lookup used before walked the wallet's addresses in index order.
    expect(await plan(`(reserved_until is null or reserved_until <= ${NOW})`, 'derivation_index')).not.toMatch(/reserved_until/);
  });
});
