// A burst of payment creations for one wallet (the pooled, lock-free path of issue 16; on PostgreSQL the
// one-statement creation): every payment gets its own address, rate lock and creation transition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode({ blocks: 10 });
});
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('a burst of payment requests on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }) },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('gives each of 120 concurrent requests its own address, in a gap-free run of indexes, with its rate lock and creation transition', async () => {
    const apiId = await addSandboxWallet(t.app);
    const token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
    const first = await postPayment(t.app, token, customRequest(apiId)); // derives inline and starts the pool
    expect(first.statusCode, first.body).toBe(200);
    await t.ctx.wallets.pool.settle();
    const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => postPayment(t.app, token, customRequest(apiId, { payer_id: `burst-${i}@example.com` }))));
    for (const a of answers) expect(a.statusCode, a.body).toBe(200);
    const addresses = answers.map((a) => (a.json() as { crypto_address: string }).crypto_address);
    expect(new Set(addresses).size).toBe(120);

    const { kysely } = t.ctx.db;
    const rows = await kysely
      .selectFrom('payments as p')
      .innerJoin('addresses as a', 'a.id', 'p.address_id')
      .innerJoin('rate_locks as l', 'l.id', 'p.rate_lock_id')
      .select(['p.id', 'a.address', 'a.derivation_index', 'a.purpose', 'l.purpose as lock_purpose', 'l.rate', 'p.exchange_rate'])
      .execute();
    expect(rows).toHaveLength(121);
    for (const r of rows) expect([r.purpose, r.lock_purpose, r.rate]).toEqual(['payment', 'payment_request', r.exchange_rate]);
    const indexes = rows.map((r) => Number(r.derivation_index)).sort((a, b) => a - b);
    expect(indexes).toEqual(indexes.map((_, i) => i));
    const created = await kysely.selectFrom('payment_transitions').select('payment_id').where('cause', '=', 'created').where('to_status', '=', 'unpaid').execute();
    expect(new Set(created.map((c) => c.payment_id))).toEqual(new Set(rows.map((r) => r.id)));
    // Watched from the moment they were answered.
    const watched = t.ctx.chains.get('test')!.watched.scripts;
    for (const r of rows) expect(watched.size > 0 && addresses.concat((first.json() as { crypto_address: string }).crypto_address)).toContain(r.address);
    expect(watched.size).toBe(121);
  });
});
