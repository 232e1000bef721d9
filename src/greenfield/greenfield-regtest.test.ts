// Greenfield invoices paid on a real bcoin regtest node, on both engines: a EUR invoice and a BTC ("sats mode")
// invoice settle, a HighSpeed one settles on first sight, a partial payment stays New/PaidPartial and an
// overpayment settles as PaidOver; each is the same payment, with the same amounts, through payment API v1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { satsFromBtc } from '../money/money.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('Greenfield invoices paid on regtest on %s', (engine) => {
  let t: TestApp;
  let store: string;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: '40000' }) },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.ctx.chains.pollNow();
    store = await addSandboxWallet(t.app, { account_name: 'Regtest Shop', local_currency: 'EUR' });
    key = await greenfieldKey(t.ctx, store);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function create(body: unknown) {
    const res = await gf(t.app, key, 'POST', `/api/v1/stores/${store}/invoices`, body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: string; paymentReference: string };
  }
  async function read(id: string) {
    await t.ctx.chains.pollNow();
    const inv = (await gf(t.app, key, 'GET', `/api/v1/stores/${store}/invoices/${id}`)).json();
    const [pm] = (await gf(t.app, key, 'GET', `/api/v1/stores/${store}/invoices/${id}/payment-methods`)).json();
    return { inv, pm };
  }
  async function pay(destination: string, btc: string) {
    return node.pay(decodeAddress(destination).script, satsFromBtc(btc));
  }

  it('server info is fullySynched once the watcher has caught up with the node', async () => {
    await t.ctx.chains.pollNow();
    const info = (await gf(t.app, key, 'GET', '/api/v1/server/info')).json();
    expect(info.fullySynched).toBe(true);
    expect(info.syncStatus[0]).toMatchObject({ paymentMethodId: 'BTC-CHAIN', available: true, chainHeight: await node.height() });
  });

  it('a EUR invoice: Processing on sight, Settled at one confirmation, with the payment listed as txid-vout', async () => {
    const created = await create({ amount: '20.00', currency: 'EUR', metadata: { orderId: 'eur-1' } });
    let { inv, pm } = await read(created.id);
    expect(pm).toMatchObject({ amount: '0.00050000', due: '0.00050000', rate: '40000' });
    const paid = await pay(pm.destination, '0.0005');
    ({ inv, pm } = await read(created.id));
    expect(inv).toMatchObject({ status: 'Processing', additionalStatus: 'None' });
    expect(pm).toMatchObject({ totalPaid: '0.00050000', due: '0.00000000' });
    expect(pm.payments).toEqual([
      expect.objectContaining({ id: `${paid.txid}-${paid.vouts[0]}`, value: '0.00050000', status: 'Processing', destination: pm.destination }),
    ]);
    await node.mine(1);
    ({ inv, pm } = await read(created.id));
    expect(inv).toMatchObject({ status: 'Settled', additionalStatus: 'None' });
    expect(pm.payments[0].status).toBe('Settled');
    const record = (await t.app.inject({ method: 'GET', url: `/api/v1/payment/${created.paymentReference}` })).json();
    expect(record).toMatchObject({ status: 'confirmed', order_amount: 20, order_currency: 'EUR', crypto_amount: 0.0005, confirmed_crypto_amount: 0.0005, confirmed_order_amount: 20 });
  });

  it('a sats-mode invoice (currency BTC) settles for exactly its amount', async () => {
    const created = await create({ amount: '0.00031234', currency: 'BTC', checkout: { speedPolicy: 'MediumSpeed' } });
    let { inv, pm } = await read(created.id);
    expect(pm).toMatchObject({ amount: '0.00031234', rate: '1' });
    await pay(pm.destination, '0.00031234');
    await node.mine(1);
    ({ inv, pm } = await read(created.id));
    expect(inv).toMatchObject({ status: 'Settled', additionalStatus: 'None', amount: '0.00031234', paidAmount: '0.00031234', currency: 'BTC' });
    const record = (await t.app.inject({ method: 'GET', url: `/api/v1/payment/${created.paymentReference}` })).json();
    expect(record).toMatchObject({ status: 'confirmed', order_currency: 'BTC', order_amount: 0.00031234, confirmed_crypto_amount: 0.00031234 });
  });

  it('a HighSpeed invoice settles on first sight, before any block (the merchant’s risk)', async () => {
    const created = await create({ amount: '5', currency: 'EUR', checkout: { speedPolicy: 'HighSpeed' } });
    let { inv, pm } = await read(created.id);
    await pay(pm.destination, pm.amount);
    ({ inv, pm } = await read(created.id));
    expect(inv).toMatchObject({ status: 'Settled', additionalStatus: 'None', checkout: { speedPolicy: 'HighSpeed' } });
    expect(pm.payments[0].status).toBe('Settled');
  });

  it('a LowSpeed invoice needs six confirmations', async () => {
    const created = await create({ amount: '4', currency: 'EUR', checkout: { speedPolicy: 'LowSpeed' } });
    let { inv, pm } = await read(created.id);
    await pay(pm.destination, pm.amount);
    await node.mine(5);
    ({ inv } = await read(created.id));
    expect(inv.status).toBe('Processing');
    await node.mine(1);
    ({ inv } = await read(created.id));
    expect(inv.status).toBe('Settled');
  });

  it('a partial payment is New/PaidPartial; topping it up beyond the amount settles as PaidOver', async () => {
    const created = await create({ amount: '10', currency: 'EUR' });
    let { inv, pm } = await read(created.id);
    await pay(pm.destination, '0.0001');
    ({ inv, pm } = await read(created.id));
    expect(inv).toMatchObject({ status: 'New', additionalStatus: 'PaidPartial' });
    expect(pm).toMatchObject({ totalPaid: '0.00010000', due: '0.00015000' });
    await pay(pm.destination, '0.0002');
    await node.mine(1);
    ({ inv, pm } = await read(created.id));
    expect(inv).toMatchObject({ status: 'Settled', additionalStatus: 'PaidOver', paidAmount: '12' });
    expect(pm.payments).toHaveLength(2);
    expect(pm).toMatchObject({ totalPaid: '0.00030000', due: '-0.00005000' });
  });

  it('a short payment within paymentTolerance counts as paid', async () => {
    const created = await create({ amount: '10', currency: 'EUR', checkout: { paymentTolerance: 5 } });
    let { inv, pm } = await read(created.id);
    await pay(pm.destination, '0.00024'); // 9.60 EUR of 10: 4 % short
    await node.mine(1);
    ({ inv, pm } = await read(created.id));
    expect(inv).toMatchObject({ status: 'Settled', additionalStatus: 'None' });
  });
});
