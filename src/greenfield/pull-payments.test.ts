// Which invoice a Greenfield refund (POST …/pull-payments) refunds, and who is mailed its link: the name must read
// exactly as the WooCommerce plugin writes it ("Refund of order <order number>; <reason>", AbstractGateway::
// process_refund) or name the invoice ("Refund of invoice <invoice id>; <reason>"), and name exactly one paid
// invoice of the store; anything else is 422 in Greenfield's validation shape and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { satsFromBtc } from '../money/money.ts';
import { POLICIES } from './permissions.ts';

/** An order number of 33 characters: the plugin's 50-byte cut leaves its ";" but not the space after it. */
const LONG_ORDER = 'WC-2025-0000000000000000000000042';
/** The name AbstractGateway::process_refund sends: substr('Refund of order ' . number . '; ' . reason, 0, 50). */
const pluginName = (orderNumber: string, reason: string) => Buffer.from(`Refund of order ${orderNumber}; ${reason}`).subarray(0, 50).toString('latin1');

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('refunds through Greenfield pull payments on %s', (engine) => {
  let t: TestApp;
  let store: string;
  let key: string;
  /** Invoice ids by label. */
  const inv: Record<string, string> = {};

  /** Creates an invoice of 20 EUR for the order; pays it unless `paid` is false. */
  async function invoice(label: string, orderId: string, buyerEmail: string | null, paid = true): Promise<void> {
    const metadata: Record<string, unknown> = { orderId };
    if (buyerEmail !== null) metadata.buyerEmail = buyerEmail;
    const res = await gf(t.app, key, 'POST', `/api/v1/stores/${store}/invoices`, { amount: '20.00', currency: 'EUR', metadata });
    expect(res.statusCode, res.body).toBe(200);
    inv[label] = (res.json() as { id: string }).id;
    if (!paid) return;
    const [pm] = (await gf(t.app, key, 'GET', `/api/v1/stores/${store}/invoices/${inv[label]}/payment-methods`)).json() as { destination: string; amount: string }[];
    await node.pay(decodeAddress(pm!.destination).script, satsFromBtc(pm!.amount));
  }

  const refund = (name: string | null, description: string | null = null) =>
    gf(t.app, key, 'POST', `/api/v1/stores/${store}/pull-payments`, { name, description, amount: '1.00', currency: 'EUR', paymentMethods: ['BTC_CHAIN'], payoutMethods: ['BTC_CHAIN'] });
  const count = async (table: 'refunds' | 'outbox' | 'greenfield_pull_payments') =>
    Number((await t.ctx.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow()).n);
  /** The addresses the refund link of this pull payment was mailed to. */
  async function mailedTo(pullId: string): Promise<string[]> {
    const pull = await t.ctx.db.kysely.selectFrom('greenfield_pull_payments').select('refund_id').where('public_id', '=', pullId).executeTakeFirstOrThrow();
    const rows = await t.ctx.db.kysely.selectFrom('outbox').select(['target', 'payload_json']).where('kind', '=', 'email').execute();
    return rows.filter((r) => (JSON.parse(r.payload_json) as { refund_id?: unknown }).refund_id === pull.refund_id.toString()).map((r) => r.target);
  }

  beforeAll(async () => {
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ EUR: '40000' }) },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.ctx.chains.pollNow();
    store = await addSandboxWallet(t.app, { account_name: 'Refund Shop', local_currency: 'EUR' });
    key = await greenfieldKey(t.ctx, store);
    await invoice('order5', '5', 'buyer5@example.test');
    await invoice('order12', '12', 'buyer12@example.test');
    await invoice('order7a', '7', 'buyer7a@example.test');
    await invoice('order7b', '7', 'buyer7b@example.test');
    await invoice('order8paid', '8', 'buyer8@example.test');
    await invoice('order8later', '8', 'buyer8@example.test', false);
    await invoice('order5x', '5; x', 'buyer5x@example.test', false);
    await invoice('order9', '9', null);
    await invoice('order10', '10', 'buyer10@example.test', false);
    await invoice('long', LONG_ORDER, 'long@example.test');
    await node.mine(1);
    await t.ctx.chains.pollNow();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a reason naming another order ("Refund of order 5; 12 items arrived damaged") refunds order 5 and mails only its buyer', async () => {
    const res = await refund('Refund of order 5; 12 items arrived damaged');
    expect(res.statusCode, res.body).toBe(200);
    const pull = res.json() as { id: string; invoiceId: string; refundedTransactionId: string };
    expect(pull.invoiceId).toBe(inv.order5);
    const row = await t.ctx.db.kysely.selectFrom('refunds').select('payer_email').where('credit_txid', '=', pull.refundedTransactionId).executeTakeFirstOrThrow();
    expect(row.payer_email).toBe('buyer5@example.test');
    expect(await mailedTo(pull.id)).toEqual(['buyer5@example.test']);
    expect(await t.ctx.db.kysely.selectFrom('outbox').select('id').where('target', '=', 'buyer12@example.test').execute()).toEqual([]);
  });

  it('the name the plugin sends, cut to 50 bytes, names its order', async () => {
    expect(pluginName(LONG_ORDER, 'damaged').endsWith(`${LONG_ORDER};`)).toBe(true);
    for (const [order, label] of [[LONG_ORDER, 'long'], ['8', 'order8paid']] as const) {
      const res = await refund(pluginName(order, 'the customer says 12 of the 20 items arrived damaged, see order 5'));
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json() as { invoiceId: string }).invoiceId).toBe(inv[label]);
    }
  });

  it('a description naming another order does not choose the invoice', async () => {
    const res = await refund('Refund of order 5; damaged', 'replaces order 12, invoice ' + inv.order12);
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as { invoiceId: string }).invoiceId).toBe(inv.order5);
  });

  it('a refund name (beginning with "Refund") not in the plugin’s format is refused with 422 and creates nothing', async () => {
    const before = [await count('refunds'), await count('outbox'), await count('greenfield_pull_payments')];
    for (const name of [
      'Refund of order 5', // cut off before "; ": the order number may be cut too
      'refund of order 5; damaged',
      'Refund of order 5 12; damaged',
      'Refund of order ; damaged',
      'REFUND 5',
    ]) {
      const res = await refund(name, 'order 5');
      expect(res.statusCode, `${name}: ${res.body}`).toBe(422);
      const errors = res.json() as { path: string; message: string }[];
      expect(errors).toEqual([{ path: 'name', message: expect.stringContaining('Refund of order <order number>; <reason>') }]);
    }
    // A name not beginning with "Refund" (or none) is a general pull payment, never read as naming an invoice:
    // in EUR it is refused on its currency (general pull payments are in BTC), not on its name.
    for (const name of ['12 items arrived damaged, order 5', '', null]) {
      const res = await refund(name, 'order 5');
      expect(res.statusCode, `${name}: ${res.body}`).toBe(422);
      expect(res.json()).toEqual([{ path: 'currency', message: expect.any(String) }]);
    }
    expect([await count('refunds'), await count('outbox'), await count('greenfield_pull_payments')]).toEqual(before);
  });

  it('an order with two paid invoices is refused with 422 naming both; "Refund of invoice <id>" refunds the one named and mails its buyer', async () => {
    const before = await count('refunds');
    const res = await refund('Refund of order 7; damaged');
    expect(res.statusCode, res.body).toBe(422);
    const [error] = res.json() as { path: string; message: string }[];
    expect(error!.path).toBe('name');
    expect(error!.message).toContain(inv.order7a);
    expect(error!.message).toContain(inv.order7b);
    expect(error!.message).toContain('Refund of invoice <invoice id>; <reason>');
    expect(await count('refunds')).toBe(before);

    const named = await refund(`Refund of invoice ${inv.order7a}; damaged`);
    expect(named.statusCode, named.body).toBe(200);
    const pull = named.json() as { id: string; invoiceId: string; refundedTransactionId: string };
    expect(pull.invoiceId).toBe(inv.order7a);
    expect(await mailedTo(pull.id)).toEqual(['buyer7a@example.test']);
  });

  it('an order’s later unpaid invoice does not hide its paid one', async () => {
    const res = await refund('Refund of order 8; damaged');
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as { invoiceId: string }).invoiceId).toBe(inv.order8paid);
  });

  it('a name that reads as two order numbers ("5" and "5; x") is refused with 422', async () => {
    const res = await refund('Refund of order 5; x; y');
    expect(res.statusCode, res.body).toBe(422);
    const [error] = res.json() as { path: string; message: string }[];
    expect(error).toEqual({ path: 'name', message: expect.stringContaining('"5; x"') });
  });

  it('an order with no paid invoice, an unknown order and an unknown invoice are refused with 422', async () => {
    for (const [name, says] of [
      ['Refund of order 10; x', `order "10" has no paid invoice (${inv.order10})`],
      ['Refund of order 999; x', 'no invoice of this store has order number "999"'],
      ['Refund of invoice NoSuchInvoice; x', 'no invoice of this store has id "NoSuchInvoice"'],
      [`Refund of invoice ${inv.order10}; x`, `invoice "${inv.order10}" has received no payment`],
    ] as const) {
      const res = await refund(name);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(422);
      expect(res.json()).toEqual([{ path: 'name', message: expect.stringContaining(says) }]);
    }
  });

  it('a refund of an invoice without buyerEmail mails nobody', async () => {
    const res = await refund('Refund of order 9; damaged');
    expect(res.statusCode, res.body).toBe(200);
    const pull = res.json() as { id: string; invoiceId: string; refundedTransactionId: string };
    expect(pull.invoiceId).toBe(inv.order9);
    expect(await mailedTo(pull.id)).toEqual([]);
  });

  it('refunds are pull payments of the store as BTCPay lists them: in the list, answered by id, never archived', async () => {
    const res = await refund('Refund of order 12; damaged');
    expect(res.statusCode, res.body).toBe(200);
    const created = res.json() as Record<string, unknown>;
    const manager = await greenfieldKey(t.ctx, store, [POLICIES.managePullPayments]);
    const general = await gf(t.app, manager, 'POST', `/api/v1/stores/${store}/pull-payments`, { name: 'Affiliates', amount: '0.001', currency: 'BTC' });
    expect(general.statusCode, general.body).toBe(200);
    const list = (await gf(t.app, manager, 'GET', `/api/v1/stores/${store}/pull-payments`)).json() as Record<string, unknown>[];
    const ids = list.map((p) => p.id);
    expect(ids).toContain(created.id);
    expect(ids.indexOf(created.id)).toBeLessThan(ids.indexOf((general.json() as { id: string }).id));
    const listed = list.find((p) => p.id === created.id)!;
    const { period: _period, ...fields } = listed;
    expect(fields).toEqual(created);
    const byId = await gf(t.app, null, 'GET', `/api/v1/pull-payments/${created.id as string}`);
    expect(byId.statusCode).toBe(200);
    expect(byId.json()).toEqual(listed);
    const archived = await gf(t.app, manager, 'DELETE', `/api/v1/stores/${store}/pull-payments/${created.id as string}`);
    expect(archived.statusCode).toBe(400);
    expect(archived.json()).toMatchObject({ code: 'refund-not-archivable' });
  });
});
