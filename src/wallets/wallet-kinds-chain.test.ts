// Order addresses, payments, balances, transactions and unspent outputs of a 2-of-3 P2WSH multisig wallet and a
// BIP86 taproot wallet, on a real bcoin regtest node, read through its RPC (light mode is not covered here).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSource, type RunningSource } from '../../test/support/chain-sources.ts';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { cosigner } from '../../test/support/cosigner-keys.ts';
import { createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { keyOf } from '../bitcoin/wallet-key.ts';

describe.each(testEngines())('multisig and taproot wallets on a regtest node on %s', (engine) => {
  let node: RegtestNode;
  let source: RunningSource;
  let t: TestApp;
  let now = Date.UTC(2026, 10, 26, 12, 0, 0);
  const ratesFile = writeRatesFile();

  beforeAll(async () => {
    node = await startRegtestNode();
    source = await startSource('node RPC', node);
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: ratesFile, SATGATE_ORDER_REUSE_GRACE: '10s' },
      clock: () => now,
      chains: { test: { ...source.endpoint, network: 'regtest' } },
      start: true,
    });
  });

  afterAll(async () => {
    await t?.close();
    await source?.stop();
    await node?.stop();
  });

  async function register(pub: string): Promise<string> {
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub, currency: 'testBTC' } });
    expect(res.json(), res.body).toMatchObject({ return: '0' });
    return res.json().api_id as string;
  }

  async function storedDescriptor(apiId: string): Promise<string> {
    const row = await t.testDb.db.kysely.selectFrom('wallets').select('descriptor').where('api_id', '=', apiId).executeTakeFirstOrThrow();
    return row.descriptor!;
  }

  async function orderAddress(apiId: string): Promise<{ addr: string; index: number }> {
    const res = await t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id: apiId, expiration: 3600 } });
    expect(res.json(), res.body).toMatchObject({ return: '0' });
    const addr = res.json().addr as string;
    const row = await t.testDb.db.kysely.selectFrom('addresses').select('derivation_index').where('address', '=', addr).executeTakeFirstOrThrow();
    return { addr, index: Number(row.derivation_index) };
  }

  const balance = async (addr: string) => (await t.app.inject({ method: 'GET', url: `/balance/${addr}` })).json().balance;
  const unspent = async (addr: string) => (await t.app.inject({ method: 'GET', url: `/unspent/${addr}` })).json().unspent;
  const walletTx = async (text: string) => (await t.app.inject({ method: 'GET', url: `/tx/${encodeURIComponent(text)}` })).json();

  it('a 2-of-3 P2WSH sortedmulti wallet: an order address of the descriptor is paid, detected, confirmed, listed unspent and in the transactions', async () => {
    const [a, b, c] = [cosigner(), cosigner(), cosigner()];
    const text = `wsh(sortedmulti(2,${a.withOrigin}/<0;1>/*,${b.withOrigin}/<0;1>/*,${c.withOrigin}/<0;1>/*))`;
    const apiId = await register(text);
    const descriptor = await storedDescriptor(apiId);
    const key = keyOf({ descriptor }, 'regtest');
    const order = await orderAddress(apiId);
    // The receive branch (0/i) of every cosigner: 32-byte P2WSH program.
    expect(order.addr).toBe(key.receive(order.index).address);
    expect(order.addr).toMatch(/^bcrt1q.{58}$/);

    const payment = await node.pay(decodeAddress(order.addr).script, 50_000n);
    await t.ctx.chains.pollNow();
    expect(await balance(order.addr)).toEqual({ confirmed: '0', unconfirmed: '0.0005' });
    await node.mine(1);
    await t.ctx.chains.pollNow();
    expect(await balance(order.addr)).toEqual({ confirmed: '0.0005', unconfirmed: '0' });
    expect(await unspent(order.addr)).toEqual([expect.objectContaining({ tx_hash: payment.txid, value: 50_000, tx_pos: 0 })]);
    // GET /tx/:public_key names the wallet by the text registered or by its canonical descriptor, percent-encoded.
    for (const name of [text, descriptor]) {
      const listed = await walletTx(name);
      expect(listed.return).toBe('0');
      expect(listed.tx).toEqual([expect.objectContaining({ txid: payment.txid, address: order.addr, value: '0.0005', confirmation: 1 })]);
    }

    // The payment API issues from the same wallet key (a never-used address, later on the receive branch).
    const client = await createClient(t.ctx, [apiId]);
    const token = await tokenFor(t.app, client);
    const res = await postPayment(t.app, token, customRequest(apiId));
    expect(res.statusCode, res.body).toBe(200);
    const requested = res.json().crypto_address as string;
    const issued = await t.testDb.db.kysely.selectFrom('addresses').select('derivation_index').where('address', '=', requested).executeTakeFirstOrThrow();
    expect(requested).toBe(key.receive(Number(issued.derivation_index)).address);
    expect(requested).not.toBe(order.addr);
  });

  it('a BIP86 taproot wallet (BTCPay -[taproot]): an order address is paid, detected, confirmed, listed unspent and in the transactions', async () => {
    const account = cosigner(true, "m/86'/1'/0'");
    const text = `${account.xpub}-[taproot]`;
    const apiId = await register(text);
    const descriptor = await storedDescriptor(apiId);
    expect(descriptor).toMatch(/^tr\(/);
    const key = keyOf({ descriptor }, 'regtest');
    const order = await orderAddress(apiId);
    expect(order.addr).toBe(key.receive(order.index).address);
    expect(order.addr).toMatch(/^bcrt1p/);

    // bcoin 1.0.2 predates taproot, but takes a payment to a witness v1 output into its mempool (a spend of one it
    // would not validate; none is made here), so no block builder is needed: the payment is seen unconfirmed first.
    const { txid } = await node.pay(decodeAddress(order.addr).script, 40_000n);
    await t.ctx.chains.pollNow();
    expect(await balance(order.addr)).toEqual({ confirmed: '0', unconfirmed: '0.0004' });
    await node.mine(1);
    await t.ctx.chains.pollNow();
    expect(await balance(order.addr)).toEqual({ confirmed: '0.0004', unconfirmed: '0' });
    expect(await unspent(order.addr)).toEqual([expect.objectContaining({ tx_hash: txid, value: 40_000, tx_pos: 0 })]);
    for (const name of [text, descriptor]) {
      expect((await walletTx(name)).tx).toEqual([expect.objectContaining({ txid, address: order.addr, value: '0.0004', confirmation: 1 })]);
    }
  });

  it('the gap-limit reuse rule holds on a multisig wallet: an expired unpaid order address is handed out again after the grace period', async () => {
    const keys = [cosigner(), cosigner(), cosigner()].map((k) => k.xpub);
    const apiId = await register(`2-of-${keys.join('-')}`);
    const first = (await t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id: apiId, expiration: 1 } })).json().addr as string;
    // Past the grace period configured above (10 s; 25 h by default) after the reservation ended.
    now += 1_000 + 11_000;
    const again = (await t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id: apiId, expiration: 1 } })).json().addr as string;
    expect(again).toBe(first);
  });
});
