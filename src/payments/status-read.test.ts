import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { StatusBodyCache } from './status-read.ts';
import { PAYMENT_COLUMNS, STATUS_SQL_SQLITE_RAW, statusRowFromRaw } from '../db/payment-status-read.ts';
import { engineHandles } from '../db/database.ts';

describe.each(testEngines())('the hand-written status read on %s', (engine) => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb(engine);
  });
  afterAll(async () => {
    await testDb?.dispose();
  });

  it('names every column of the payments table, so the raw row maps each one', async () => {
    const { kysely } = testDb.db;
    const columns =
      engine === 'sqlite'
        ? (await sql<{ name: string }>`select name from pragma_table_info('payments')`.execute(kysely)).rows.map((r) => r.name)
        : (
            await sql<{ name: string }>`select column_name as name from information_schema.columns
              where table_name = 'payments' and table_schema = current_schema()`.execute(kysely)
          ).rows.map((r) => r.name);
    expect([...PAYMENT_COLUMNS].sort()).toEqual([...columns].sort());
  });
});

describe('the SQLite status read in raw mode', () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb('sqlite');
  });
  afterAll(async () => {
    await testDb?.dispose();
  });

  it('a raw row reads back as the same payment the query builder returns', async () => {
    const { kysely } = testDb.db;
    const { reader } = engineHandles(testDb.db);
    const wallet = await kysely
      .insertInto('wallets')
      .values({
        api_id: 'test_statusread', pub: 'tpub-status-read', mode: 'test', network: 'regtest', script_type: 'p2wpkh', wallet_type: 0n,
        local_currency: 'EUR', notification_email: null, return_url: null, account_name: 'Raw Shop', account_type: null, info: null,
        box_public_key: 'b', box_secret_sealed: 'b', sign_public_key: 's', sign_secret_sealed: 's', seed_sealed: null,
        registration_email: null, created_at: 1n, updated_at: 1n,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const address = await kysely
      .insertInto('addresses')
      .values({ wallet_id: wallet.id, derivation_index: 7n, address: 'bcrt1qrawread', script_hex: '0014', created_at: 2n, reserved_until: null, first_funded_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await kysely
      .insertInto('payments')
      .values({
        reference: 'pay_rawread', wallet_id: wallet.id, address_id: address.id, client_id: null, type: 'hosted', crypto_currency: 'testBTC',
        crypto_sats: 2_100_000_000_000_000n, order_currency: 'EUR', order_amount: '19.99', exchange_rate: '50000.10', rate_lock_id: null,
        expiry_at: 3n, monitor_until: 4n, status: 'paid', status_at: 5n, confirmed_sats: 6n, unconfirmed_sats: 7n,
        confirmed_order_amount: '0.01', unconfirmed_order_amount: '0.02', request_json: '{"payer_id":"p"}', created_at: 8n,
        required_confirmations: 2n,
      })
      .execute();
    const built = await kysely
      .selectFrom('payments as p')
      .innerJoin('wallets as w', 'w.id', 'p.wallet_id')
      .innerJoin('addresses as a', 'a.id', 'p.address_id')
      .selectAll('p')
      .select(['w.api_id as wallet_api_id', 'w.account_name as wallet_account_name', 'a.address as payment_address'])
      .where('p.reference', '=', 'pay_rawread')
      .executeTakeFirstOrThrow();
    const raw = reader!.getRaw(STATUS_SQL_SQLITE_RAW, ['pay_rawread']);
    expect(raw).toBeDefined();
    expect(statusRowFromRaw(raw!)).toEqual(built);
    expect(reader!.getRaw(STATUS_SQL_SQLITE_RAW, ['pay_unknown'])).toBeUndefined();
  });
});

describe('the kept status bodies', () => {
  it('the same row values answer the kept body without building it again', () => {
    const cache = new StatusBodyCache();
    let built = 0;
    const build = () => `body ${++built}`;
    expect(cache.body('pay_a', [1n, 'unpaid', null], build)).toBe('body 1');
    expect(cache.body('pay_a', [1n, 'unpaid', null], build)).toBe('body 1');
    expect(built).toBe(1);
  });

  it('any changed value, even one of the same text in another type, builds the body again', () => {
    const cache = new StatusBodyCache();
    let built = 0;
    const build = () => `body ${++built}`;
    cache.body('pay_a', [1n, 'unpaid', null], build);
    expect(cache.body('pay_a', [1n, 'paid', null], build)).toBe('body 2');
    expect(cache.body('pay_a', [1n, 'paid', 'x'], build)).toBe('body 3');
    expect(cache.body('pay_a', ['1', 'paid', 'x'], build)).toBe('body 4');
    expect(cache.body('pay_a', ['1', 'paid', 'x', 'more'], build)).toBe('body 5');
    expect(cache.body('pay_b', ['1', 'paid', 'x', 'more'], build)).toBe('body 6');
  });

  it('keeps at most its bound, dropping the payment whose body was built longest ago', () => {
    const cache = new StatusBodyCache(2);
    let built = 0;
    const build = () => `body ${++built}`;
    cache.body('pay_a', [1], build);
    cache.body('pay_b', [1], build);
    cache.body('pay_a', [2], build);
    cache.body('pay_c', [1], build);
    expect(cache.size).toBe(2);
    expect(cache.body('pay_b', [1], build)).toBe('body 5');
    expect(cache.body('pay_c', [1], build)).toBe('body 4');
  });
});
