// Migration 0029 on both engines: every profile already associated with a wallet becomes its Owner, so a
// single-owner wallet needs no action; a role outside the six is refused by the database itself.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { MIGRATIONS } from '../db/migrations/index.ts';
import { roleIn } from './members.ts';

const wallet = (n: number) => ({
  api_id: `live_team_${n}`,
  pub: `xpub_team_${n}`,
  mode: 'live' as const,
  network: 'mainnet',
  script_type: 'p2wpkh',
  wallet_type: 3n,
  local_currency: 'usd',
  box_public_key: 'b',
  box_secret_sealed: 'v1:b',
  sign_public_key: 's',
  sign_secret_sealed: 'v1:s',
  created_at: 1n,
  updated_at: 1n,
});

describe.each(testEngines())('migration 0029 wallet_members on %s', (engine) => {
  let t: TestDb | undefined;
  afterEach(async () => {
    await t?.dispose();
  });

  it('makes every existing association an Owner and refuses an unknown role', async () => {
    // Everything before 0029, as a database of that time was (later migrations may build on wallet_members).
    t = await createTestDb(engine, MIGRATIONS.slice(0, MIGRATIONS.findIndex((m) => m.name === '0029-wallet-members')));
    const k = t.db.kysely;
    const w1 = await k.insertInto('wallets').values(wallet(1)).returning('id').executeTakeFirstOrThrow();
    const w2 = await k.insertInto('wallets').values(wallet(2)).returning('id').executeTakeFirstOrThrow();
    const profile = (email: string) =>
      k.insertInto('profiles').values({ email, firstname: null, lastname: null, mobile: null, country: null, created_at: 1n, updated_at: 1n }).returning('id').executeTakeFirstOrThrow();
    const a = await profile('a@example.com');
    const b = await profile('b@example.com');
    await k.insertInto('profile_wallets').values([
      { profile_id: a.id, wallet_id: w1.id, via: 'notification_email', created_at: 5n },
      { profile_id: b.id, wallet_id: w1.id, via: 'operator', created_at: 6n },
      { profile_id: b.id, wallet_id: w2.id, via: 'operator', created_at: 7n },
    ]).execute();

    expect((await migrateToLatest(t.db))[0]).toBe('0029-wallet-members');
    const rows = await k.selectFrom('wallet_members').select(['wallet_id', 'profile_id', 'role', 'added_by', 'created_at']).orderBy('created_at').execute();
    expect(rows).toEqual([
      { wallet_id: w1.id, profile_id: a.id, role: 'Owner', added_by: null, created_at: 5n },
      { wallet_id: w1.id, profile_id: b.id, role: 'Owner', added_by: null, created_at: 6n },
      { wallet_id: w2.id, profile_id: b.id, role: 'Owner', added_by: null, created_at: 7n },
    ]);
    expect(await roleIn(k, a.id, 'live_team_1')).toBe('Owner');
    expect(await roleIn(k, a.id, 'live_team_2')).toBeNull();
    await expect(k.updateTable('wallet_members').set({ role: 'owner' }).where('profile_id', '=', a.id).execute()).rejects.toThrow(/check|constraint/i);
  });
});
