// The store wallet, the on-chain payment method on both path generations, health, archive and Greenfield's 404,
// on a real bcoin regtest node and both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { POLICIES } from './permissions.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

const ALL = [POLICIES.modifyStoreSettings];

describe.each(testEngines())('Greenfield store wallet on regtest on %s', (engine) => {
  let t: TestApp;
  let watchOnly: string;
  let held: string;
  let wKey: string;
  let hKey: string;

  beforeAll(async () => {
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: '40000' }) },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.ctx.chains.pollNow();
    watchOnly = await addSandboxWallet(t.app, { local_currency: 'EUR' });
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'eur' } });
    held = (res.json() as { api_id: string }).api_id;
    wKey = await greenfieldKey(t.ctx, watchOnly, ALL);
    hKey = await greenfieldKey(t.ctx, held, ALL);
  });
  afterAll(async () => {
    await t?.close();
  });

  const gens = (store: string) => [
    ['2.x', `/api/v1/stores/${store}/payment-methods/BTC-CHAIN/wallet`],
    ['1.x', `/api/v1/stores/${store}/payment-methods/onchain/BTC/wallet`],
  ] as const;

  it('health answers {synchronized} without a key', async () => {
    await t.ctx.chains.pollNow();
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ synchronized: true });
  });

  it('an unknown path under /api/v1 answers Greenfield {code, message}', async () => {
    const res = await gf(t.app, wKey, 'GET', '/api/v1/no-such-thing');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'not-found', message: expect.any(String) });
  });

  it('an archived invoice leaves the list unless includeArchived=true, and comes back when unarchived', async () => {
    const created = (await gf(t.app, wKey, 'POST', `/api/v1/stores/${watchOnly}/invoices`, { amount: '5', currency: 'EUR' })).json();
    expect(created.archived).toBe(false);
    expect((await gf(t.app, wKey, 'DELETE', `/api/v1/stores/${watchOnly}/invoices/${created.id}`)).statusCode).toBe(200);
    const ids = async (q: string) => ((await gf(t.app, wKey, 'GET', `/api/v1/stores/${watchOnly}/invoices${q}`)).json() as { id: string }[]).map((i) => i.id);
    expect(await ids('')).not.toContain(created.id);
    expect(await ids('?includeArchived=true')).toContain(created.id);
    expect((await gf(t.app, wKey, 'GET', `/api/v1/stores/${watchOnly}/invoices/${created.id}`)).json().archived).toBe(true);
    const back = await gf(t.app, wKey, 'POST', `/api/v1/stores/${watchOnly}/invoices/${created.id}/unarchive`);
    expect(back.json()).toMatchObject({ id: created.id, archived: false });
    expect(await ids('')).toContain(created.id);
  });

  it('the on-chain payment method on both generations, its preview, and PUT refusing a new scheme with 422', async () => {
    const base = `/api/v1/stores/${watchOnly}/payment-methods`;
    const v2 = (await gf(t.app, wKey, 'GET', `${base}/BTC-CHAIN`)).json();
    expect(v2).toMatchObject({ paymentMethodId: 'BTC-CHAIN', enabled: true, config: { derivationScheme: expect.any(String) } });
    expect((await gf(t.app, wKey, 'GET', `${base}/OnChain`)).json()).toEqual([expect.objectContaining({ cryptoCode: 'BTC', derivationScheme: v2.config.derivationScheme })]);
    expect((await gf(t.app, wKey, 'GET', `${base}/onchain/btc`)).json()).toMatchObject({ enabled: true, derivationScheme: v2.config.derivationScheme });
    const p1 = (await gf(t.app, wKey, 'GET', `${base}/OnChain/BTC/preview?offset=2&amount=3`)).json();
    const p2 = (await gf(t.app, wKey, 'GET', `${base}/BTC-CHAIN/wallet/preview?offset=2&count=3`)).json();
    expect(p1.addresses).toHaveLength(3);
    expect(p1.addresses[0].keyPath).toBe('0/2');
    expect(p2).toEqual(p1);
    expect((await gf(t.app, wKey, 'PUT', `${base}/OnChain/BTC`, { enabled: true, derivationScheme: v2.config.derivationScheme })).statusCode).toBe(200);
    const refused = await gf(t.app, wKey, 'PUT', `${base}/BTC-CHAIN`, { enabled: true, config: { derivationScheme: 'tpubSomethingElse' } });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual([expect.objectContaining({ path: 'config' })]);
    expect((await gf(t.app, wKey, 'GET', `${base}/LTC-CHAIN`)).statusCode).toBe(404);
  });

  it('receive address: the same until unreserved or forced, then fresh; balances, transactions and UTXOs on both generations', async () => {
    const [, w2] = gens(watchOnly)[0]!;
    const [, w1] = gens(watchOnly)[1]!;
    const a = (await gf(t.app, wKey, 'GET', `${w2}/address`)).json();
    expect(a).toMatchObject({ address: expect.any(String), keyPath: expect.stringMatching(/^0\/\d+$/), paymentLink: `bitcoin:${a.address}` });
    expect((await gf(t.app, wKey, 'GET', `${w1}/address`)).json().address).toBe(a.address);
    expect((await gf(t.app, wKey, 'DELETE', `${w1}/address`)).statusCode).toBe(200);
    const b = (await gf(t.app, wKey, 'GET', `${w2}/address?forceGenerate=true`)).json();
    const paid = await node.pay(decodeAddress(b.address).script, 70_000n);
    await t.ctx.chains.pollNow();
    for (const [, w] of gens(watchOnly)) {
      expect((await gf(t.app, wKey, 'GET', w)).json()).toMatchObject({ balance: '0.00070000', unconfirmedBalance: '0.00070000', confirmedBalance: '0.00000000' });
    }
    await node.mine(1);
    await t.ctx.chains.pollNow();
    for (const [, w] of gens(watchOnly)) {
      expect((await gf(t.app, wKey, 'GET', w)).json()).toMatchObject({ balance: '0.00070000', confirmedBalance: '0.00070000', unconfirmedBalance: '0.00000000' });
      const txs = (await gf(t.app, wKey, 'GET', `${w}/transactions?statusFilter=Confirmed`)).json();
      expect(txs).toEqual([expect.objectContaining({ transactionHash: paid.txid, amount: '0.00070000', status: 'Confirmed', confirmations: 1, blockHeight: await node.height() })]);
      expect((await gf(t.app, wKey, 'GET', `${w}/transactions/${paid.txid}`)).json().transactionHash).toBe(paid.txid);
      expect((await gf(t.app, wKey, 'GET', `${w}/transactions/${'0'.repeat(64)}`)).statusCode).toBe(404);
      expect((await gf(t.app, wKey, 'GET', `${w}/utxos`)).json()).toEqual([expect.objectContaining({ outpoint: `${paid.txid}-${paid.vouts[0]}`, amount: '0.00070000', address: b.address })]);
    }
  });

  it('sending from a watch-only store wallet is refused, pointing to the PSBT flow', async () => {
    for (const [, w] of gens(watchOnly)) {
      const res = await gf(t.app, wKey, 'POST', `${w}/transactions`, { destinations: [{ destination: (await gf(t.app, wKey, 'GET', `${w}/address`)).json().address, amount: '0.0001' }] });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'watch-only-wallet', message: expect.stringContaining('PSBT') });
    }
  });

  it('a service-held store wallet sends through the spending path (stored, broadcast, RBF) on both generations', async () => {
    const [[, w2], [, w1]] = gens(held);
    const funding = (await gf(t.app, hKey, 'GET', `${w2}/address`)).json();
    await node.pay(decodeAddress(funding.address).script, 200_000n);
    await node.mine(1);
    await t.ctx.chains.pollNow();
    const to = (await gf(t.app, wKey, 'GET', `/api/v1/stores/${watchOnly}/payment-methods/BTC-CHAIN/wallet/address?forceGenerate=true`)).json().address;
    for (const w of [w2, w1]) {
      const res = await gf(t.app, hKey, 'POST', `${w}/transactions`, { destinations: [{ destination: to, amount: '0.0005' }], feerate: 2 });
      expect(res.statusCode, res.body).toBe(200);
      const sent = res.json();
      expect(sent).toMatchObject({ transactionHash: expect.stringMatching(/^[0-9a-f]{64}$/), status: 'Unconfirmed' });
      expect(sent.amount.startsWith('-0.0005')).toBe(true);
      const stored = await t.ctx.db.kysely.selectFrom('spends').selectAll().where('txid', '=', sent.transactionHash).executeTakeFirstOrThrow();
      expect(stored.purpose).toBe('greenfield');
      // The change comes back to the wallet once the watcher has seen the transaction; the next send spends it.
      await t.ctx.chains.pollNow();
    }
    const refused = await gf(t.app, hKey, 'POST', `${w1}/transactions`, { destinations: [{ destination: to, amount: '0.0005', subtractFromAmount: true }] });
    expect(refused.statusCode).toBe(422);
  });
});
