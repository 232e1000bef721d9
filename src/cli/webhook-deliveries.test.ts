import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { runCli } from '../../test/support/server-process.ts';
import { MasterKey } from '../security/master-key.ts';
import { WalletRepository } from '../wallets/wallet-repository.ts';
import { registerWallet } from '../wallets/wallet-registration.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { enqueueNotifications } from '../notify/outbox.ts';

const masterKey = MasterKey.fromBytes(new Uint8Array(32).fill(5));

describe.each(testEngines())('satgate webhook deliveries on %s', (engine) => {
  let testDb: TestDb;
  let eventId: string;
  const now = Date.UTC(2026, 10, 21, 12, 0, 0);

  beforeEach(async () => {
    testDb = await createTestDb(engine);
    const { db } = testDb;
    const repo = new WalletRepository(db);
    const { api_id } = await registerWallet(
      { repo, masterKey, clock: () => now, testNetwork: 'regtest', isSupportedCurrency: () => true },
      { pub: generateNewWallet(true).accountKey },
    );
    const wallet = (await repo.findByApiId(api_id))!;
    const address = await db.kysely
      .insertInto('addresses')
      .values({ wallet_id: wallet.id, derivation_index: 0n, address: 'bcrt1qexample', script_hex: '0014', created_at: BigInt(now), reserved_until: null, purpose: 'payment' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const payment = await db.kysely
      .insertInto('payments')
      .values({
        reference: 'pay_cli_example',
        wallet_id: wallet.id,
        address_id: address.id,
        client_id: null,
        type: 'custom',
        crypto_currency: 'testBTC',
        crypto_sats: 50_000n,
        order_currency: 'USD',
        order_amount: '25.00',
        exchange_rate: '50000',
        rate_lock_id: null,
        expiry_at: BigInt(now + 900_000),
        monitor_until: BigInt(now + 86_400_000),
        status: 'confirmed',
        status_at: BigInt(now),
        request_json: '{}',
        created_at: BigInt(now),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    [eventId] = (await db.kysely
      .transaction()
      .execute((trx) =>
        enqueueNotifications(
          trx,
          [{ kind: 'webhook', target: 'https://shop.example/hook', walletId: wallet.id, paymentId: payment.id, payload: { event: 'payment', status: 'confirmed' } }],
          now,
        ),
      )) as [string];
    const outbox = await db.kysely.selectFrom('outbox').select('id').where('event_id', '=', eventId).executeTakeFirstOrThrow();
    await db.kysely
      .insertInto('outbox_attempts')
      .values({ outbox_id: outbox.id, attempt: 1n, at: BigInt(now), http_status: 500n, error: 'HTTP 500', duration_ms: 12n })
      .execute();
    await db.kysely
      .updateTable('outbox')
      .set({ state: 'failed', attempts: 1n, last_error: 'HTTP 500' })
      .where('id', '=', outbox.id)
      .execute();
  });

  afterEach(async () => {
    await testDb.dispose();
  });

  it('lists a payment’s events with every attempt, and queues one for redelivery', async () => {
    const env = testDb.env;
    const listed = await runCli(['webhook', 'deliveries', 'pay_cli_example', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        event_id: eventId,
        kind: 'webhook',
        target: 'https://shop.example/hook',
        state: 'failed',
        status: 'confirmed',
        attempts: [expect.objectContaining({ attempt: 1, http_status: 500, error: 'HTTP 500', duration_ms: 12 })],
      }),
    ]);

    const redelivered = await runCli(['webhook', 'deliveries', 'pay_cli_example', '--redeliver', eventId], env);
    expect(redelivered.code, redelivered.stderr).toBe(0);
    expect(redelivered.stderr).toContain('queued 1 event(s) for redelivery');
    expect(redelivered.stdout).toContain(`${eventId}  webhook  confirmed  pending`);
    const row = await testDb.db.kysely.selectFrom('outbox').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow();
    expect(row.state).toBe('pending');
    expect(Number(row.attempts)).toBe(1);
  });

  it('an unknown payment or event is a clear error', async () => {
    const unknown = await runCli(['webhook', 'deliveries', 'pay_nope'], testDb.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no payment, payment form or order address pay_nope');
    const noEvent = await runCli(['webhook', 'deliveries', 'pay_cli_example', '--redeliver', 'evt_nope'], testDb.env);
    expect(noEvent.code).toBe(2);
    expect(noEvent.stderr).toContain('no event evt_nope');
  });
});
