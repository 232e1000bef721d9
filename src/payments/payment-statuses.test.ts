// Every payment status reached on a bcoin regtest node by paying the right amount, plus invalidation,
// late funds valued at the spot rate, a double spend and reorgs, each re-derived by the status machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCES, startSource, type RunningSource } from '../../test/support/chain-sources.ts';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';
import { decodeAddress } from '../bitcoin/address.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

const cases = testEngines().flatMap((engine) => SOURCES.map((source) => [engine, source] as const));

describe.each(cases)('payment statuses on a regtest chain on %s, reading the chain through the %s', (engine, sourceName) => {
  let source: RunningSource;
  let t: TestApp;
  let offset = 0;
  let apiId: string;
  let token: string;

  beforeAll(async () => {
    source = await startSource(sourceName, node);
    t = await createTestApp(engine, {
      // The tests drive the watcher with pollNow; a background poll between paying and mining would add a step
      // (seen under load), so the timer is pushed out of the way.
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: '46000.50' }), SATGATE_POLL_MS: '600000' },
      chains: { test: { ...source.endpoint, network: 'regtest' } },
      clock: () => Date.now() + offset,
      start: true,
    });
    apiId = await addSandboxWallet(t.app, { return_url: 'https://shop.example/hooks' });
    token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
    await t.ctx.chains.pollNow();
  });
  afterAll(async () => {
    await t?.close();
    await source?.stop();
  });

  async function request(over: Record<string, unknown> = {}) {
    const res = await postPayment(t.app, token, customRequest(apiId, over));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { payment_reference: string; crypto_address: string; crypto_amount: number };
    return { ...body, script: decodeAddress(body.crypto_address).script };
  }
  async function status(reference: string): Promise<Record<string, unknown>> {
    await t.ctx.chains.pollNow();
    return (await t.app.inject({ method: 'GET', url: `/api/v1/payment/${reference}` })).json();
  }
  async function transitions(reference: string) {
    const db = t.testDb.db.kysely;
    const p = await db.selectFrom('payments').select('id').where('reference', '=', reference).executeTakeFirstOrThrow();
    const rows = await db.selectFrom('payment_transitions').selectAll().where('payment_id', '=', p.id).orderBy('id').execute();
    const events = await db.selectFrom('outbox').selectAll().where('payment_id', '=', p.id).orderBy('id').execute();
    return { path: rows.map((r) => `${r.to_status}:${r.cause}`), events: events.map((e) => `${e.kind}:${JSON.parse(e.payload_json).status}`) };
  }

  // 25 USD at 50000 USD/BTC is exactly 50000 sats.
  it('paying less reaches unconfirmed-less, then confirmed-less in a block', async () => {
    const p = await request();
    await node.pay(p.script, 49_999n);
    expect(await status(p.payment_reference)).toMatchObject({ status: 'unconfirmed-less', unconfirmed_crypto_amount: 0.00049999, unconfirmed_order_amount: 25 });
    await node.mine(1);
    expect(await status(p.payment_reference)).toMatchObject({ status: 'confirmed-less', confirmed_crypto_amount: 0.00049999 });
    expect((await transitions(p.payment_reference)).path).toEqual(['unpaid:created', 'unconfirmed-less:mempool', 'confirmed-less:block']);
  });

  it('paying the amount reaches unconfirmed, then confirmed; one more satoshi is more', async () => {
    const p = await request();
    await node.pay(p.script, 50_000n);
    expect((await status(p.payment_reference)).status).toBe('unconfirmed');
    await node.mine(1);
    expect((await status(p.payment_reference)).status).toBe('confirmed');

    const more = await request();
    await node.pay(more.script, 50_001n);
    expect((await status(more.payment_reference)).status).toBe('unconfirmed-more');
    await node.mine(1);
    expect(await status(more.payment_reference)).toMatchObject({ status: 'confirmed-more', confirmed_crypto_amount: 0.00050001 });
    const { path, events } = await transitions(more.payment_reference);
    expect(path).toEqual(['unpaid:created', 'unconfirmed-more:mempool', 'confirmed-more:block']);
    // The wallet's return_url receives each status change (no notify_url, no e-mail configured).
    expect(events).toEqual(['webhook:unconfirmed-more', 'webhook:confirmed-more']);
  });

  it('equal means within one satoshi of value: paying the floor of a fractional amount is still equal', async () => {
    // 10 EUR at 46000.50 is 21738.89 sats: asked 21739, and 21738 is within one satoshi's worth.
    const p = await request({ order_currency: 'EUR', order_amount: 10 });
    expect(p.crypto_amount).toBe(0.00021739);
    await node.pay(p.script, 21_738n);
    expect((await status(p.payment_reference)).status).toBe('unconfirmed');
  });

  it('funds confirmed plus funds unconfirmed give a confirmed status over the total', async () => {
    const p = await request();
    await node.pay(p.script, 30_000n);
    await node.mine(1);
    expect((await status(p.payment_reference)).status).toBe('confirmed-less');
    await node.pay(p.script, 20_000n);
    expect(await status(p.payment_reference)).toMatchObject({ status: 'confirmed', confirmed_crypto_amount: 0.0003, unconfirmed_crypto_amount: 0.0002 });
    await node.mine(1);
    expect(await status(p.payment_reference)).toMatchObject({ status: 'confirmed', confirmed_crypto_amount: 0.0005, unconfirmed_crypto_amount: 0 });
  });

  it('an unpaid request past the monitoring window turns invalid through the sweeper, and late funds do not revive it', async () => {
    const p = await request();
    offset = 24 * 3_600_000 + 1000;
    try {
      expect(await t.ctx.payments.machine.sweep()).toBeGreaterThanOrEqual(1);
      const db = t.testDb.db.kysely;
      const row = await db.selectFrom('payments').select(['status', 'id']).where('reference', '=', p.payment_reference).executeTakeFirstOrThrow();
      expect(row.status).toBe('invalid');
      await node.pay(p.script, 50_000n);
      const after = await status(p.payment_reference);
      expect(after).toMatchObject({ status: 'invalid', crypto_address: '', unconfirmed_crypto_amount: 0 });
      expect(await transitions(p.payment_reference)).toEqual({
        path: ['unpaid:created', 'invalid:monitor-window'],
        events: ['webhook:invalid'],
      });
    } finally {
      offset = 0;
    }
  });

  it('funds first seen after expiry_date are valued at the spot rate recorded at first sight', async () => {
    const p = await request();
    offset = 16 * 60_000;
    try {
      await node.pay(p.script, 50_000n);
      expect((await status(p.payment_reference)).status).toBe('unconfirmed');
      const db = t.testDb.db.kysely;
      const row = await db.selectFrom('payments').select('id').where('reference', '=', p.payment_reference).executeTakeFirstOrThrow();
      const rates = await db.selectFrom('payment_output_rates').selectAll().where('payment_id', '=', row.id).execute();
      expect(rates.map((r) => [r.rate, r.source])).toEqual([['50000', 'spot']]);
    } finally {
      offset = 0;
    }
  });

  it('a payment double-spent by a conflicting transaction mined elsewhere returns to unpaid', async () => {
    const p = await request();
    const paid = await node.pay(p.script, 50_000n);
    expect((await status(p.payment_reference)).status).toBe('unconfirmed');
    await node.replaceWithConflict(paid.txid);
    expect(await status(p.payment_reference)).toMatchObject({ status: 'unpaid', unconfirmed_crypto_amount: 0 });
    const { path, events } = await transitions(p.payment_reference);
    expect(path).toEqual(['unpaid:created', 'unconfirmed:mempool', 'unpaid:withdrawn']);
    expect(events).toEqual(['webhook:unconfirmed', 'webhook:unpaid']);
  });

  it('a payment whose block is reorganised away returns to unconfirmed, and to unpaid when the new branch drops it', async () => {
    const p = await request();
    await node.pay(p.script, 50_000n);
    await node.mine(1);
    expect((await status(p.payment_reference)).status).toBe('confirmed');
    await node.reorg(1, 2);
    expect((await status(p.payment_reference)).status).toBe('unconfirmed');
    await node.mine(1);
    expect((await status(p.payment_reference)).status).toBe('confirmed');
    await node.reorg(1, 2, { method: 'invalidate' });
    expect((await status(p.payment_reference)).status).toBe('unpaid');
    expect((await transitions(p.payment_reference)).path).toEqual([
      'unpaid:created',
      'confirmed:block', // paid and mined before the watcher looked: first seen in a block
      'unconfirmed:reorg',
      'confirmed:block',
      // The rollback returns it to waiting; the node no longer has it, so it is withdrawn.
      'unconfirmed:reorg',
      'unpaid:withdrawn',
    ]);
  });
});
