import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCES, startSource, type RunningSource } from '../../test/support/chain-sources.ts';
import nacl from 'tweetnacl';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { openBalancePayload, sealRequestPayload } from '../../test/support/payload-client.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { decodeAddress } from '../bitcoin/address.ts';

const cases = testEngines().flatMap((engine) => SOURCES.map((source) => [engine, source] as const));

describe.each(cases)('order addresses (set_addr) on %s, reading the chain through the %s', (engine, sourceName) => {
  let node: RegtestNode;
  let source: RunningSource;
  let t: TestApp;
  let now = Date.UTC(2026, 10, 21, 12, 0, 0);
  const ratesFile = writeRatesFile();

  beforeAll(async () => {
    node = await startRegtestNode();
    source = await startSource(sourceName, node);
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

  async function register(body: Record<string, unknown> = {}) {
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey, ...body } });
    expect(res.json().return).toBe('0');
    return res.json() as { api_id: string; server_public_key: string; server_sign_public_key: string };
  }

  async function setAddr(body: Record<string, unknown>) {
    return t.app.inject({ method: 'POST', url: '/set_addr', payload: body });
  }

  it('answers the address, the locked rate with its time and the local currency', async () => {
    const { api_id } = await register({ local_currency: 'EUR' });
    const res = await setAddr({ api_id, client_txid: 'order-1', return_email: 'shop@example.com' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ return: '0', status: 'OK', exchange_rate: 46000.5, local_currency: 'eur' });
    expect(res.json().addr).toMatch(/^bcrt1q/);
    expect(res.json().exchange_rate_datetime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('25 unpaid orders with a 1 s expiration, each past the grace period of the one before, reuse one address instead of walking past the gap limit', async () => {
    const { api_id } = await register();
    const seen = new Set<string>();
    for (let i = 0; i < 25; i++) {
      const res = await setAddr({ api_id, expiration: 1 });
      expect(res.json().return).toBe('0');
      seen.add(res.json().addr);
      // The grace period configured above (10 s; 25 h by default).
      now += 1_000 + 10_000;
    }
    expect(seen.size).toBe(1);

    // Without waiting, each order needs its own address.
    const concurrent = new Set<string>();
    for (let i = 0; i < 5; i++) concurrent.add((await setAddr({ api_id, expiration: 60 })).json().addr);
    expect(concurrent.size).toBe(5);
  });

  it('an address that received funds is never handed out again', async () => {
    const { api_id } = await register();
    const first = (await setAddr({ api_id, expiration: 1 })).json().addr as string;
    await node.pay(decodeAddress(first).script, 10_000n);
    await t.ctx.chains.pollNow();
    // Past the grace period (10 s here), as every later order is past the one before.
    now += 15_000;
    const issued = new Set<string>();
    for (let i = 0; i < 5; i++) {
      issued.add((await setAddr({ api_id, expiration: 1 })).json().addr);
      now += 12_000;
    }
    expect(issued.has(first)).toBe(false);
  });

  it('a payload sealed by the client decrypts, and the balance payload it gets back verifies and opens', async () => {
    const wallet = await register({ local_currency: 'usd' });
    const client = nacl.box.keyPair();
    const sealed = sealRequestPayload(
      { api_id: wallet.api_id, local_currency: 'usd', order_amount: '25.00' },
      wallet.server_public_key,
      client.secretKey,
    );
    const res = await setAddr({ api_id: wallet.api_id, ...sealed, client_txid: 'A-17' });
    expect(res.json().return).toBe('0');
    const address = res.json().addr as string;

    // 25 USD at 50000 USD/BTC is 0.0005 BTC; pay it and confirm.
    await node.pay(decodeAddress(address).script, 50_000n);
    await node.mine(1);
    await t.ctx.chains.pollNow();

    const balance = await t.app.inject({ method: 'GET', url: `/balance/${address}` });
    expect(balance.json()).toMatchObject({ return: '0', balance: { confirmed: '0.0005', unconfirmed: '0' } });
    const result = openBalancePayload(balance.json().payload, wallet.server_sign_public_key, wallet.server_public_key, client.secretKey);
    expect(result).toMatchObject({
      api_id: wallet.api_id,
      local_currency: 'usd',
      order_amount: '25.00',
      exchange_rate: '50000',
      crypto_amount: '0.0005',
      order_status: 'paid',
      amount_paid: '25.00',
      crypto_amount_paid_conf: '0.0005',
      crypto_amount_paid_unconf: '0',
      tx_status: 'confirmed',
    });
    expect((result.tx as unknown[]).length).toBe(1);

    // Tampering with one byte makes the signature fail.
    const raw = Buffer.from(balance.json().payload as string, 'base64');
    raw[100] = raw[100]! ^ 1;
    expect(() => openBalancePayload(raw.toString('base64'), wallet.server_sign_public_key, wallet.server_public_key, client.secretKey)).toThrow();

    const tx = await t.app.inject({ method: 'GET', url: `/tx/${encodeURIComponent((await t.ctx.wallets.repo.findByApiId(wallet.api_id))!.pub)}` });
    expect(tx.json().tx).toEqual([
      expect.objectContaining({ address, value: '0.0005', client_txid: 'A-17', local_currency: 'usd', rate: 50000, debit: 0, confirmation: 1 }),
    ]);
  });

  it('a payload that does not decrypt answers code 201 and changes nothing', async () => {
    const wallet = await register();
    const stranger = nacl.box.keyPair();
    const sealed = sealRequestPayload({ order_amount: '1' }, Buffer.from(nacl.box.keyPair().publicKey).toString('base64'), stranger.secretKey);
    const res = await setAddr({ api_id: wallet.api_id, ...sealed });
    expect(res.statusCode).toBe(400);
    expect(res.json().return).toBe('201');
    const walletRow = await t.ctx.wallets.repo.findByApiId(wallet.api_id);
    expect(await t.ctx.wallets.repo.countAddresses(walletRow!.id)).toBe(0);
  });

  it('bad input gets a clear code: unknown api_id 201, bad e-mail 308, unsupported currency 103', async () => {
    const { api_id } = await register();
    expect((await setAddr({ api_id: 'test_nope' })).json().return).toBe('201');
    expect((await setAddr({ api_id, return_email: 'not-an-email' })).json().return).toBe('308');
    expect((await setAddr({ api_id, local_currency: 'xyz' })).json().return).toBe('103');
    expect((await setAddr({ api_id, expiration: 0 })).json().return).toBe('201');
  });

  it('a live wallet without a mainnet node gets a clear error instead of an address', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/add_pub',
      payload: { pub: 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs' },
    });
    const addr = await setAddr({ api_id: res.json().api_id });
    expect(addr.statusCode).toBe(503);
    expect(addr.json().status).toMatch(/SATGATE_LIVE_RPC_URL/);
  });

  it('balance and unspent of an address the service never issued answer 201', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/balance/bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080' });
    expect(res.json().return).toBe('201');
    expect((await t.app.inject({ method: 'GET', url: '/unspent/bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080' })).json().return).toBe('201');
  });

  it('without any exchange rate, set_addr answers a clear 503 instead of hanging or pricing at zero', async () => {
    const offline = await createTestApp(engine, {
      env: { SATGATE_RATE_PROVIDERS: 'coingecko', SATGATE_RATE_BASE_URLS: 'coingecko=http://127.0.0.1:9' },
      chains: { test: { ...source.endpoint, network: 'regtest' } },
      start: true,
    });
    try {
      const reg = await offline.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey } });
      const res = await offline.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id: reg.json().api_id } });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ return: '998' });
      expect(res.json().status).toMatch(/exchange rate/i);
    } finally {
      await offline.close();
    }
  }, 30_000);
});
