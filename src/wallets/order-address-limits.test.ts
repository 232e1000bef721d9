// The rule for every address-issuing call without a login (set_addr and payment_form, DESIGN.md 11): open unpaid
// reservations never take a wallet more than its gap limit past its last used address, an expired reservation's
// address waits out a grace period before it is handed out again, and the calls are rate-limited per wallet and
// per IP. Against the real app on both engines, a regtest node, and a clock the test moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { decodeAddress } from '../bitcoin/address.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

const THIRTY_DAYS = 30 * 86_400;
/** The grace period these tests configure: the default (25 h) would outlast the rates file's freshness. */
const GRACE = 10 * 60_000;

describe.each(testEngines())('address-issuing calls without a login on %s', (engine) => {
  let t: TestApp;
  let now = Date.UTC(2026, 10, 21, 12, 0, 0);

  beforeAll(async () => {
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1', SATGATE_ORDER_REUSE_GRACE: '10m' },
      clock: () => now,
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.ctx.chains.pollNow();
  });
  afterAll(async () => {
    await t?.close();
  });

  async function register(): Promise<{ apiId: string; walletId: bigint }> {
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey } });
    expect(res.json().return, res.body).toBe('0');
    const apiId = res.json().api_id as string;
    return { apiId, walletId: (await t.ctx.wallets.repo.findByApiId(apiId))!.id };
  }
  const setAddr = (api_id: string, expiration: number, ip = '127.0.0.1') =>
    t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id, expiration }, remoteAddress: ip });
  const form = (api_id: string, ip = '127.0.0.1') =>
    t.app.inject({
      method: 'POST',
      url: '/payment_form',
      remoteAddress: ip,
      payload: {
        api_id,
        order_id: `ORD-${Math.random().toString(36).slice(2, 8)}`,
        order_amount: '25.00',
        order_currency: 'usd',
        user_email: 'payer@example.com',
        payment_cancel_url: 'https://shop.example/cart',
        payment_complete_url: 'https://shop.example/thanks',
        payment_update_url: 'http://127.0.0.1:9/updates',
        site_name: 'Shop',
      },
    });
  async function indexOf(address: string): Promise<number> {
    const row = await t.ctx.db.kysely.selectFrom('addresses').select('derivation_index').where('address', '=', address).executeTakeFirstOrThrow();
    return Number(row.derivation_index);
  }
  async function issuedIndexes(walletId: bigint): Promise<number[]> {
    const rows = await t.ctx.db.kysely.selectFrom('addresses').select('derivation_index').where('wallet_id', '=', walletId).orderBy('derivation_index').execute();
    return rows.map((r) => Number(r.derivation_index));
  }
  async function orderCount(walletId: bigint): Promise<number> {
    const orders = await t.ctx.db.kysely.selectFrom('address_orders').select('id').where('wallet_id', '=', walletId).execute();
    const forms = await t.ctx.db.kysely.selectFrom('payment_forms').select('id').where('wallet_id', '=', walletId).execute();
    return orders.length + forms.length;
  }
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it('40 concurrent set_addr calls with a 30-day expiration issue indexes 0 to 19 and refuse the other 20 with 201, storing nothing for them', async () => {
    const { apiId, walletId } = await register();
    const answers = await Promise.all(Array.from({ length: 40 }, () => setAddr(apiId, THIRTY_DAYS)));
    const issued = answers.filter((r) => r.json().return === '0');
    const refused = answers.filter((r) => r.json().return !== '0');
    expect(issued).toHaveLength(20);
    expect(new Set(issued.map((r) => r.json().addr)).size).toBe(20);
    expect(await issuedIndexes(walletId)).toEqual(range(0, 19));
    expect(refused).toHaveLength(20);
    for (const r of refused) {
      expect(r.statusCode).toBe(400);
      expect(r.json().return).toBe('201');
      expect(r.json().status).toMatch(/gap limit of 20/);
    }
    expect(await orderCount(walletId)).toBe(20);
  });

  it('a payment moves the window: with index 19 paid, indexes 20 to 39 may be reserved, and no more', async () => {
    const { apiId, walletId } = await register();
    const first = await Promise.all(Array.from({ length: 20 }, () => setAddr(apiId, THIRTY_DAYS)));
    const last = first.map((r) => r.json().addr as string);
    const at19 = (await Promise.all(last.map(async (a) => [a, await indexOf(a)] as const))).find(([, i]) => i === 19)![0];
    expect((await setAddr(apiId, THIRTY_DAYS)).json().return).toBe('201');
    await node.pay(decodeAddress(at19).script, 10_000n);
    await t.ctx.chains.pollNow();
    const second = await Promise.all(Array.from({ length: 25 }, () => setAddr(apiId, THIRTY_DAYS)));
    expect(second.filter((r) => r.json().return === '0')).toHaveLength(20);
    expect(await issuedIndexes(walletId)).toEqual(range(0, 39));
  });

  it('payment forms share the window with set_addr: 10 orders and 15 forms at once reserve 20 addresses', async () => {
    const { apiId, walletId } = await register();
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => setAddr(apiId, THIRTY_DAYS)),
      ...Array.from({ length: 15 }, () => form(apiId)),
    ]);
    expect(answers.filter((r) => r.json().return === '0')).toHaveLength(20);
    const refused = answers.filter((r) => r.json().return !== '0');
    expect(refused).toHaveLength(5);
    for (const r of refused) expect(r.json()).toMatchObject({ return: '201', status: expect.stringMatching(/gap limit/) });
    expect(await issuedIndexes(walletId)).toEqual(range(0, 19));
    expect(await orderCount(walletId)).toBe(20);
  });

  it('an expired order address is handed out again only after the grace period, and a late payment within it stays with the expired order', async () => {
    const grace = GRACE;
    const { apiId } = await register();
    const first = (await setAddr(apiId, 60)).json().addr as string;
    now += 61_000;
    const second = (await setAddr(apiId, 60)).json().addr as string;
    expect(second).not.toBe(first);
    // One second before the grace period ends the first address is still kept back.
    now += grace - 2_000;
    const third = (await setAddr(apiId, 60)).json().addr as string;
    expect([first, second]).not.toContain(third);
    now += 2_000;
    expect((await setAddr(apiId, 60)).json().addr).toBe(first);

    // A payment that arrives after the order expired, within the grace period, meets no newer order on the address.
    const late = (await setAddr(apiId, 60)).json().addr as string;
    now += 61_000;
    await node.pay(decodeAddress(late).script, 10_000n);
    await t.ctx.chains.pollNow();
    const orders = await t.ctx.db.kysely
      .selectFrom('address_orders')
      .innerJoin('addresses', 'addresses.id', 'address_orders.address_id')
      .select('address_orders.id')
      .where('addresses.address', '=', late)
      .execute();
    expect(orders).toHaveLength(1);
    // Seen in the mempool, the address is never handed out again, grace period or not.
    now += grace + 1_000;
    for (let i = 0; i < 3; i++) expect((await setAddr(apiId, 60)).json().addr).not.toBe(late);
  });

  it('when the window is full, the oldest expired reservation past its grace period is reused', async () => {
    const { apiId, walletId } = await register();
    const addrs = [];
    for (let i = 0; i < 20; i++) {
      addrs.push((await setAddr(apiId, 60 + i)).json().addr as string);
    }
    expect((await setAddr(apiId, 60)).json().return).toBe('201');
    now += 60_000 + GRACE + 500;
    expect((await setAddr(apiId, 60)).json().addr).toBe(addrs[0]);
    expect((await setAddr(apiId, 60)).json().return).toBe('201');
    expect(await issuedIndexes(walletId)).toEqual(range(0, 19));
  });
});

describe.each(testEngines())('rate limits of address-issuing calls without a login on %s', (engine) => {
  let t: TestApp;
  let now = Date.UTC(2026, 10, 21, 12, 0, 0);

  beforeAll(async () => {
    t = await createTestApp(engine, {
      env: {
        SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }),
        SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1',
        SATGATE_ISSUE_LIMIT_PER_WALLET: '3',
        SATGATE_ISSUE_LIMIT_PER_IP: '5',
      },
      clock: () => now,
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function register(): Promise<string> {
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey } });
    return res.json().api_id as string;
  }
  const setAddr = (api_id: string, ip: string) => t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id }, remoteAddress: ip });
  const form = (api_id: string, ip: string) =>
    t.app.inject({
      method: 'POST',
      url: '/payment_form',
      remoteAddress: ip,
      payload: {
        api_id,
        order_id: 'ORD-1',
        order_amount: '25.00',
        order_currency: 'usd',
        user_email: 'payer@example.com',
        payment_cancel_url: 'https://shop.example/cart',
        payment_complete_url: 'https://shop.example/thanks',
        payment_update_url: 'http://127.0.0.1:9/updates',
        site_name: 'Shop',
      },
    });
  const addressCount = async () => (await t.ctx.db.kysely.selectFrom('addresses').select('id').execute()).length;

  it('per wallet: set_addr and payment_form together, answered 429 with Retry-After, storing nothing', async () => {
    const apiId = await register();
    expect((await setAddr(apiId, '198.51.100.1')).json().return).toBe('0');
    expect((await form(apiId, '198.51.100.2')).json().return).toBe('0');
    expect((await setAddr(apiId, '198.51.100.3')).json().return).toBe('0');
    const before = await addressCount();
    for (const res of [await setAddr(apiId, '198.51.100.4'), await form(apiId, '198.51.100.5')]) {
      expect(res.statusCode).toBe(429);
      expect(res.json()).toMatchObject({ return: '201', status: expect.stringMatching(/Too many requests: at most 3 new addresses a minute for one wallet/) });
      expect(Number(res.headers['retry-after'])).toBe(60);
    }
    expect(await addressCount()).toBe(before);
    now += 60_001;
    expect((await setAddr(apiId, '198.51.100.1')).json().return).toBe('0');
  });

  it('per IP address, across wallets', async () => {
    const [a, b] = [await register(), await register()];
    for (let i = 0; i < 3; i++) expect((await setAddr(a, '203.0.113.9')).json().return).toBe('0');
    for (let i = 0; i < 2; i++) expect((await form(b, '203.0.113.9')).json().return).toBe('0');
    const refused = await setAddr(b, '203.0.113.9');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().status).toMatch(/at most 5 new addresses a minute from one IP address/);
    // Another IP address still gets one for that wallet.
    expect((await setAddr(b, '203.0.113.10')).json().return).toBe('0');
  });
});
