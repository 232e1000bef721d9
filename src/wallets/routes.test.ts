import { afterEach, describe, it, expect } from 'vitest';
import nacl from 'tweetnacl';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { createTestApp, TEST_MASTER_KEY, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { accountKeyFromMnemonic } from '../bitcoin/new-wallet.ts';
import { parseExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { deriveReceiveAddress } from '../bitcoin/receive-address.ts';

/** BIP84 test vector account key (mnemonic "abandon … about", m/84'/0'/0') and its first receive address. */
const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const ZPUB_ADDR0 = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
/** Same mnemonic, m/44'/0'/0' (Electrum 4.3.4 vector). */
const XPUB = 'xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj';
/** Same mnemonic, m/44'/1'/0' and m/84'/1'/0' (Electrum 4.3.4 testnet vectors). */
const TPUB = 'tpubDC5FSnBiZDMmhiuCmWAYsLwgLYrrT9rAqvTySfuCCrgsWz8wxMXUS9Tb9iVMvcRbvFcAHGkMD5Kx8koh4GquNGNTfohfk7pgjhaPCdXpoba';
const VPUB = 'vpub5Y6cjg78GGuNLsaPhmYsiw4gYX3HoQiRBiSwDaBXKUafCt9bNwWQiitDk5VZ5BVxYnQdwoTyXSs2JHRPAgjAvtbBrf8ZhDYe2jWAqvZVnsc';

/** The key with one base58 character swapped, which breaks its checksum. */
const BROKEN_ZPUB = `${ZPUB.slice(0, 40)}${ZPUB[40] === 'a' ? 'b' : 'a'}${ZPUB.slice(41)}`;

const CLOCK_MS = Date.UTC(2026, 10, 21, 12, 0, 0);

describe.each(testEngines())('wallet API routes on %s', (engine) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function boot(): Promise<TestApp> {
    t = await createTestApp(engine, { clock: () => CLOCK_MS });
    return t;
  }

  async function addPub(body: Record<string, unknown>) {
    const res = await t!.app.inject({ method: 'POST', url: '/add_pub', payload: body });
    return { status: res.statusCode, body: res.json() as Record<string, string> };
  }

  it('GET /wallets lists at least ten wallets, each fully described', async () => {
    await boot();
    const res = await t!.app.inject({ method: 'GET', url: '/wallets' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ return: '0', status: 'OK' });
    expect(body.wallets.length).toBeGreaterThanOrEqual(10);
    for (const w of body.wallets) {
      for (const field of ['type', 'name', 'description', 'url']) {
        expect(typeof w[field], `${w.name} ${field}`).toBe('string');
        expect(w[field].length, `${w.name} ${field}`).toBeGreaterThan(0);
      }
      expect(w.url).toMatch(/^https?:\/\//);
    }
  });

  it('GET /wallet_type gives the first BIP84 address of a zpub', async () => {
    await boot();
    const res = await t!.app.inject({ method: 'GET', url: `/wallet_type/${ZPUB}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ return: '0', status: 'OK', addr: ZPUB_ADDR0 });
  });

  it('GET /wallet_type refuses a key with one character changed with code 102', async () => {
    await boot();
    const res = await t!.app.inject({ method: 'GET', url: `/wallet_type/${BROKEN_ZPUB}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().return).toBe('102');
    expect(res.json().status).toMatch(/^Public key is not valid/);
  });

  it('POST /add_pub registers a mainnet key with a live api_id and the server public keys', async () => {
    await boot();
    const { status, body } = await addPub({ pub: ZPUB });
    expect(status).toBe(200);
    expect(body.return).toBe('0');
    expect(body.status).toBe('OK');
    expect(body.api_id).toMatch(/^live_[0-9a-f]{32}$/);
    expect(Buffer.from(body.server_public_key!, 'base64')).toHaveLength(32);
    expect(Buffer.from(body.server_sign_public_key!, 'base64')).toHaveLength(32);
    expect(Buffer.from(body.server_public_key!, 'base64').toString('base64')).toBe(body.server_public_key);
    const row = await t!.ctx.wallets.repo.findByApiId(body.api_id!);
    expect(row).toMatchObject({ pub: ZPUB, mode: 'live', network: 'mainnet', script_type: 'p2wpkh', wallet_type: 3n, local_currency: 'usd' });
    expect(row!.seed_sealed).toBeNull();
    expect(row!.created_at).toBe(BigInt(CLOCK_MS));
  });

  it('registering the same key again keeps the api_id and updates its settings', async () => {
    await boot();
    const first = await addPub({ pub: ZPUB, local_currency: 'usd', notification_email: 'a@example.com', account_name: 'Shop' });
    const again = await addPub({ pub: ZPUB, local_currency: 'eur', notification_email: 'b@example.org', account_name: 'Shop 2' });
    expect(again.status).toBe(200);
    expect(again.body.api_id).toBe(first.body.api_id);
    expect(again.body.server_public_key).toBe(first.body.server_public_key);
    expect(again.body.server_sign_public_key).toBe(first.body.server_sign_public_key);
    const row = await t!.ctx.wallets.repo.findByApiId(first.body.api_id!);
    expect(row).toMatchObject({ local_currency: 'eur', notification_email: 'b@example.org', account_name: 'Shop 2' });
    expect(await t!.ctx.wallets.repo.list()).toHaveLength(1);
  });

  it('tpub and vpub keys get sandbox test_ api_ids on the test network', async () => {
    await boot();
    for (const pub of [TPUB, VPUB]) {
      const { status, body } = await addPub({ pub, currency: 'testBTC' });
      expect(status).toBe(200);
      expect(body.api_id).toMatch(/^test_[0-9a-f]{32}$/);
      const row = await t!.ctx.wallets.repo.findByApiId(body.api_id!);
      expect(row).toMatchObject({ mode: 'test', network: t!.ctx.config.testNetwork });
    }
    // Without a currency the key alone decides: the same test key keeps its test_ api_id.
    expect((await addPub({ pub: TPUB })).body.api_id).toMatch(/^test_/);
  });

  it('local_currency in any case is stored lowercase', async () => {
    await boot();
    const { body } = await addPub({ pub: ZPUB, local_currency: 'EuR' });
    expect(body.return).toBe('0');
    expect((await t!.ctx.wallets.repo.findByApiId(body.api_id!))!.local_currency).toBe('eur');
  });

  it.each([
    ['an unsupported local currency', { local_currency: 'xyz' }, 400, '103'],
    ['an altcoin currency', { currency: 'ETH' }, 400, '103'],
    ['a malformed currency', { currency: 'B!' }, 400, '101'],
    ['testBTC with a mainnet key', { currency: 'testBTC' }, 400, '103'],
    ['a bad notification e-mail', { notification_email: 'not-an-email' }, 400, '308'],
    ['wallet_type 7', { wallet_type: 7 }, 400, '201'],
    ['a non-http return_url', { return_url: 'ftp://example.com/x' }, 400, '201'],
    ['a loopback return_url (SSRF check when saved)', { return_url: 'http://127.0.0.1:19998/' }, 400, '201'],
    ['a private return_url', { return_url: 'http://10.1.2.3/hooks' }, 400, '201'],
    ['a cloud metadata return_url', { return_url: 'http://169.254.169.254/latest/meta-data/' }, 400, '201'],
    ['an unknown account_type', { account_type: 'charity' }, 400, '201'],
  ])('add_pub refuses %s', async (_name, extra, http, code) => {
    await boot();
    const { status, body } = await addPub({ pub: ZPUB, ...extra });
    expect(status).toBe(http);
    expect(body.return).toBe(code);
    expect(await t!.ctx.wallets.repo.list()).toHaveLength(0);
  });

  it('add_pub without pub answers code 201 naming the field', async () => {
    await boot();
    const { status, body } = await addPub({ currency: 'BTC' });
    expect(status).toBe(400);
    expect(body.return).toBe('201');
    expect(body.status).toContain('pub');
  });

  it('add_pub with a broken key answers code 102', async () => {
    await boot();
    const { status, body } = await addPub({ pub: BROKEN_ZPUB });
    expect(status).toBe(400);
    expect(body.return).toBe('102');
  });

  it('wallet_type 2 on an xpub makes a p2sh-segwit wallet', async () => {
    await boot();
    const { body } = await addPub({ pub: XPUB, wallet_type: 2 });
    expect(body.return).toBe('0');
    const row = await t!.ctx.wallets.repo.findByApiId(body.api_id!);
    expect(row).toMatchObject({ script_type: 'p2sh-p2wpkh', wallet_type: 2n });
    // Without wallet_type an xpub is legacy.
    const other = await addPub({ pub: TPUB });
    expect((await t!.ctx.wallets.repo.findByApiId(other.body.api_id!))!.script_type).toBe('p2pkh');
  });

  it('new_wallet with testBTC generates a sandbox wallet whose sealed seed derives its key', async () => {
    await boot();
    const { status, body } = await addPub({ pub: 'new_wallet', currency: 'testBTC' });
    expect(status).toBe(200);
    expect(body.api_id).toMatch(/^test_/);
    const row = (await t!.ctx.wallets.repo.findByApiId(body.api_id!))!;
    expect(row.seed_sealed).toMatch(/^v1:/);
    const mnemonic = TEST_MASTER_KEY.unseal(row.seed_sealed!).toString('utf8');
    expect(mnemonic.split(' ')).toHaveLength(12);
    expect(validateMnemonic(mnemonic, wordlist)).toBe(true);
    expect(accountKeyFromMnemonic(mnemonic, true)).toBe(row.pub);
    expect(row.pub).toMatch(/^vpub/);
    expect(row.script_type).toBe('p2wpkh');
  });

  it('new_wallet without a currency generates a mainnet wallet', async () => {
    await boot();
    const { body } = await addPub({ pub: 'new_wallet' });
    expect(body.api_id).toMatch(/^live_/);
    const row = (await t!.ctx.wallets.repo.findByApiId(body.api_id!))!;
    expect(row.pub).toMatch(/^zpub/);
    expect(accountKeyFromMnemonic(TEST_MASTER_KEY.unseal(row.seed_sealed!).toString('utf8'), false)).toBe(row.pub);
  });

  it('the private halves of the server keys are stored sealed and match the public halves', async () => {
    await boot();
    const { body } = await addPub({ pub: ZPUB });
    const row = (await t!.ctx.wallets.repo.findByApiId(body.api_id!))!;
    expect(row.box_secret_sealed).toMatch(/^v1:/);
    expect(row.sign_secret_sealed).toMatch(/^v1:/);
    const boxSecret = new Uint8Array(TEST_MASTER_KEY.unseal(row.box_secret_sealed));
    const signSecret = new Uint8Array(TEST_MASTER_KEY.unseal(row.sign_secret_sealed));
    expect(boxSecret).toHaveLength(32);
    expect(signSecret).toHaveLength(64);
    expect(Buffer.from(nacl.box.keyPair.fromSecretKey(boxSecret).publicKey).toString('base64')).toBe(body.server_public_key);
    expect(Buffer.from(nacl.sign.keyPair.fromSecretKey(signSecret).publicKey).toString('base64')).toBe(body.server_sign_public_key);
  });

  it('wallets survive a restart on the same database', async () => {
    const first = await boot();
    const a = await addPub({ pub: ZPUB, account_name: 'A' });
    const b = await addPub({ pub: 'new_wallet', currency: 'testBTC' });
    await first.stop();
    t = await createTestApp(engine, { testDb: { ...first.testDb, db: first.testDb.reopen() } });
    const rows = await t.ctx.wallets.repo.list();
    expect(rows.map((r) => r.api_id)).toEqual([a.body.api_id, b.body.api_id]);
    const again = await addPub({ pub: ZPUB });
    expect(again.body.api_id).toBe(a.body.api_id);
    expect(again.body.server_public_key).toBe(a.body.server_public_key);
    expect((await t.ctx.wallets.repo.findByApiId(a.body.api_id!))!.account_name).toBe('A');
  });

  it('addr_info refuses an address the service never issued with code 201', async () => {
    await boot();
    const get = await t!.app.inject({ method: 'GET', url: `/addr_info/${ZPUB_ADDR0}` });
    expect(get.statusCode).toBe(400);
    expect(get.json().return).toBe('201');
    const post = await t!.app.inject({ method: 'POST', url: '/addr_info', payload: { addr: ZPUB_ADDR0, info: 'x' } });
    expect(post.statusCode).toBe(400);
    expect(post.json().return).toBe('201');
  });

  it('addr_info adds notes given as addr or address and lists them with their time', async () => {
    await boot();
    const { body } = await addPub({ pub: ZPUB });
    const wallet = (await t!.ctx.wallets.repo.findByApiId(body.api_id!))!;
    const derived = deriveReceiveAddress(parseExtendedPublicKey(ZPUB), 0, 'p2wpkh', 'mainnet');
    expect(derived.address).toBe(ZPUB_ADDR0);
    await t!.ctx.db.kysely
      .insertInto('addresses')
      .values({ wallet_id: wallet.id, derivation_index: 0n, address: ZPUB_ADDR0, script_hex: Buffer.from(derived.script).toString('hex'), created_at: BigInt(CLOCK_MS) })
      .execute();

    const viaAddr = await t!.app.inject({ method: 'POST', url: '/addr_info', payload: { addr: ZPUB_ADDR0, info: 'order 1' } });
    expect(viaAddr.statusCode).toBe(200);
    expect(viaAddr.json()).toEqual({ return: '0', status: 'OK' });
    const viaAddress = await t!.app.inject({ method: 'POST', url: '/addr_info', payload: { address: ZPUB_ADDR0, info: 'order 1, paid' } });
    expect(viaAddress.json()).toEqual({ return: '0', status: 'OK' });

    const list = await t!.app.inject({ method: 'GET', url: `/addr_info/${ZPUB_ADDR0}` });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({
      return: '0',
      status: 'OK',
      info: [
        { info: 'order 1', dbtime: '2026-11-21T12:00:00Z' },
        { info: 'order 1, paid', dbtime: '2026-11-21T12:00:00Z' },
      ],
    });
  });

  it('addr_info without an address answers code 201', async () => {
    await boot();
    const res = await t!.app.inject({ method: 'POST', url: '/addr_info', payload: { info: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().return).toBe('201');
  });
});
