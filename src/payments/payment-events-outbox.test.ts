import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };

describe.each(testEngines())('payment events and problem types on %s', (engine) => {
  let t: TestApp;
  let now = Date.now();
  let apiId: string;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile(), SATGATE_PUBLIC_URL: 'https://pay.example.com', SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1' },
      chains: DEAD_NODE,
      clock: () => now,
      start: true,
    });
    apiId = await addSandboxWallet(t.app);
    token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creation queues no notification; the move to invalid queues a webhook and an e-mail named payment.invalid', async () => {
    const res = await postPayment(t.app, token, customRequest(apiId, { notify_url: 'https://shop.example/hook', notify_email: 'shop@example.com' }));
    expect(res.statusCode, res.body).toBe(200);
    const created = res.json();
    const payment = await t.testDb.db.kysely.selectFrom('payments').select('id').where('reference', '=', created.payment_reference).executeTakeFirstOrThrow();
    const outbox = () => t.testDb.db.kysely.selectFrom('outbox').selectAll().where('payment_id', '=', payment.id).orderBy('id').execute();
    expect(await outbox()).toEqual([]);

    now += 24 * 3_600_000;
    await t.ctx.payments.machine.sweep();
    const rows = await outbox();
    expect(rows.map((r) => [r.kind, r.target])).toEqual([
      ['webhook', 'https://shop.example/hook'],
      ['email', 'shop@example.com'],
    ]);
    for (const r of rows) {
      expect(JSON.parse(r.payload_json)).toMatchObject({ event: 'payment', event_type: 'payment.invalid', status: 'invalid', api_id: apiId });
    }
  });

  it('a problem names its type as a URI under the public URL', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/payment/pay_unknownreference0000000000' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ type: 'https://pay.example.com/problems/not-found', title: 'Not Found', status: 404 });
    const noToken = await t.app.inject({ method: 'POST', url: '/api/v1/payment/request', payload: customRequest(apiId) });
    expect(noToken.json()).toMatchObject({ type: 'https://pay.example.com/problems/unauthorized', status: 401 });
  });
});
