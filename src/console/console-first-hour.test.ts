// A merchant's first hour in the console (issue 33): the empty console says how a wallet is attached and offers the
// form there; adding a key that is already theirs saves the name and currency given (audited like an edit) and says
// so, a key of someone else changes nothing and says why without saying whose; a pasted private key is refused and
// never written back; what the payer typed into a form shows on the order's page; signing in after the one-code-a-
// minute limit offers the code form, and refusals speak plainly (no "OTP", no "see /currencies").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { HDKey } from '@scure/bip32';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { lastLoginMail } from '../../test/support/dashboard.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { listAudit } from '../security/audit.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };
const ORIGIN = 'http://console.example';
const XPRV = HDKey.fromMasterSeed(new Uint8Array(32).fill(1)).privateExtendedKey;
const WIF = createBase58check(sha256).encode(Uint8Array.from([0x80, ...new Uint8Array(32).fill(9), 0x01]));

/** A same-origin browser: keeps the cookie and reads the page's CSRF token. */
class Browser {
  cookie = '';
  constructor(private readonly app: FastifyInstance) {}

  get(url: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: 'GET', url, headers: { host: 'console.example', ...(this.cookie ? { cookie: this.cookie } : {}) } });
  }

  async post(url: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { host: 'console.example', origin: ORIGIN, 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
      payload: new URLSearchParams(form).toString(),
    });
    const set = res.headers['set-cookie'];
    if (typeof set === 'string') this.cookie = set.split(';')[0]!;
    return res;
  }

  async csrf(url = '/console/wallets'): Promise<string> {
    const m = /name="csrf" value="([^"]+)"/.exec((await this.get(url)).body);
    if (!m) throw new Error(`no CSRF field on ${url}`);
    return m[1]!;
  }
}

/** The value attribute of the input with this id. */
function inputValue(html: string, id: string): string | undefined {
  return new RegExp(`<input id="${id}"[^>]*value="([^"]*)"`).exec(html)?.[1];
}

describe.each(testEngines())("a merchant's first hour in the console on %s", (engine) => {
  let t: TestApp;
  let b: Browser;
  const email = 'first@shop.example';

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: '46000.50' }), SATGATE_PUBLIC_URL: ORIGIN }, chains: DEAD_NODE, start: true });
    b = new Browser(t.app);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('after the one-code-a-minute limit offers the code form, saying the last code is still valid, and that code signs in', async () => {
    expect((await b.post('/console/login', { email })).statusCode).toBe(200);
    const { code } = await lastLoginMail(t.ctx.db, email);
    const again = await b.post('/console/login', { email });
    expect(again.statusCode).toBe(429);
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    expect(again.body).toContain('<label for="otp">');
    expect(again.body).toContain('The last code we sent you is still valid');
    const signedIn = await b.post('/console/login/code', { email, otp: code });
    expect(signedIn.statusCode, signedIn.body).toBe(303);
    expect(signedIn.headers.location).toBe('/console/wallets');
  });

  it('says a wrong or used code in plain words, never "OTP" or "/send_otp"', async () => {
    const other = new Browser(t.app);
    const who = 'second@shop.example';
    await other.post('/console/login', { email: who });
    const { code } = await lastLoginMail(t.ctx.db, who);
    const wrong = await other.post('/console/login/code', { email: who, otp: code === '000000' ? '111111' : '000000' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('That code is not right; check the latest e-mail');
    expect(wrong.body).toContain('4 tries left for this code');
    expect(wrong.body).not.toMatch(/OTP|send_otp/);
    await other.post('/console/login/code', { email: who, otp: code });
    const used = await new Browser(t.app).post('/console/login/code', { email: who, otp: code });
    expect(used.body).toContain('Ask for a new code');
    expect(used.body).not.toMatch(/OTP|send_otp/);
  });

  it('on the empty console says how a wallet is attached and offers the add-wallet form right there', async () => {
    const page = await b.get('/console/wallets');
    const empty = /<section class="panel" id="no-wallets"[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? '';
    expect(empty).toContain('is not attached by itself');
    expect(empty).toContain(email);
    expect(empty).toContain('<input id="pub" name="pub"');
    expect(empty).toContain('Create a wallet held by the service');
  });

  it('adding a key registered with your e-mail, with a name and currency, attaches it and saves both', async () => {
    const apiId = await addSandboxWallet(t.app, { notification_email: email, account_name: 'Old name', local_currency: 'usd' });
    const pub = (await t.ctx.wallets.repo.findByApiId(apiId))!.pub;
    const res = await b.post('/console/wallets', { csrf: await b.csrf(), pub, account_name: 'Market stall', local_currency: 'eur' });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe('/console/wallets?ok=wallet_added&saved=account_name+local_currency');
    expect((await b.get(res.headers.location as string)).body).toContain('Wallet added: name and currency saved.');
    expect(await t.ctx.wallets.repo.findByApiId(apiId)).toMatchObject({ account_name: 'Market stall', local_currency: 'eur' });
  });

  it('adding a key that is already yours, with a name and currency, saves them with the audit record of an owner change and says so', async () => {
    const csrf = await b.csrf();
    const fresh = generateNewWallet(true).accountKey;
    expect((await b.post('/console/wallets', { csrf, pub: fresh })).headers.location).toBe('/console/wallets?ok=wallet_added');
    const before = (await t.ctx.wallets.repo.findByPub(fresh))!;
    expect(before).toMatchObject({ account_name: null, local_currency: 'usd' });

    const res = await b.post('/console/wallets', { csrf, pub: fresh, account_name: 'Till 2', local_currency: 'eur' });
    expect(res.headers.location).toBe('/console/wallets?ok=wallet_updated&saved=account_name+local_currency');
    const page = await b.get(res.headers.location as string);
    expect(page.body).toContain('Wallet updated: name and currency saved.');
    expect(page.body).not.toContain('Wallet added.');
    expect(await t.ctx.wallets.repo.findByPub(fresh)).toMatchObject({ account_name: 'Till 2', local_currency: 'eur' });
    const audit = (await listAudit(t.ctx.db, { email })).filter((r) => r.action === 'wallet_updated');
    expect(audit.at(-1)!.detail).toEqual({ api_id: before.api_id, fields: ['account_name', 'local_currency'] });

    const same = await b.post('/console/wallets', { csrf, pub: fresh });
    expect((await b.get(same.headers.location as string)).body).toContain('already in your console; nothing was changed');

    // A refused currency changes nothing, names the accepted ones, and sends nobody to /currencies.
    const bad = await b.post('/console/wallets', { csrf, pub: fresh, account_name: 'Not saved', local_currency: 'xyz' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Accepted here: EUR, USD.');
    expect(bad.body).not.toContain('/currencies');
    expect(await t.ctx.wallets.repo.findByPub(fresh)).toMatchObject({ account_name: 'Till 2', local_currency: 'eur' });
    const edit = await b.post(`/console/wallets/${before.api_id}`, { csrf, local_currency: 'xyz' });
    expect(edit.body).toContain('Accepted here: EUR, USD.');
    expect(edit.body).not.toContain('/currencies');
  });

  it("adding someone else's key with a name and currency changes nothing, and says what was kept and why but not whose", async () => {
    const theirs = await addSandboxWallet(t.app, { notification_email: 'owner@elsewhere.example', account_name: 'Their shop', local_currency: 'usd' });
    const pub = (await t.ctx.wallets.repo.findByApiId(theirs))!.pub;
    const res = await b.post('/console/wallets', { csrf: await b.csrf(), pub, account_name: 'Mine now', local_currency: 'eur' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Nothing was changed: this key was registered with another notification e-mail');
    expect(res.body).toContain('its name and local currency stay as they were');
    expect(res.body).not.toMatch(/owner@elsewhere|Their shop/);
    expect(await t.ctx.wallets.repo.findByApiId(theirs)).toMatchObject({ account_name: 'Their shop', local_currency: 'usd' });
  });

  it('refuses a pasted private key by name and never writes it back into the form', async () => {
    const csrf = await b.csrf();
    for (const secret of [XPRV, WIF]) {
      const res = await b.post('/console/wallets', { csrf, pub: secret, account_name: 'Shop' });
      expect(res.statusCode, secret.slice(0, 4)).toBe(400);
      expect(res.body).toContain('Public key is not valid: this is a private key');
      expect(res.body).not.toContain(secret);
      expect(inputValue(res.body, 'pub')).toBe('');
      expect(inputValue(res.body, 'add-name')).toBe('Shop');
    }
    // A private key in the name field is not written back either, nor quoted by a refusal of the currency field.
    const named = await b.post('/console/wallets', { csrf, pub: 'xpub-nonsense', account_name: XPRV });
    expect(named.body).not.toContain(XPRV);
    expect(inputValue(named.body, 'pub')).toBe('xpub-nonsense');
    const fresh = generateNewWallet(true).accountKey;
    const quoted = await b.post('/console/wallets', { csrf, pub: fresh, local_currency: XPRV });
    expect(quoted.statusCode).toBe(400);
    expect(quoted.body).toContain('Currency is not valid');
    expect(quoted.body).not.toContain(XPRV);
  });

  it("shows what the payer typed into a payment form on the order's page, escaped", async () => {
    const { api_id: apiId } = await t.ctx.db.kysely.selectFrom('wallets').select('api_id').where('account_name', '=', 'Till 2').executeTakeFirstOrThrow();
    const created = await t.app.inject({
      method: 'POST',
      url: '/payment_form',
      payload: {
        api_id: apiId,
        order_id: 'ORD-9',
        order_amount: '12.50',
        order_currency: 'usd',
        payment_cancel_url: 'https://shop.example/cart',
        payment_complete_url: 'https://shop.example/thanks',
        payment_update_url: 'https://shop.example/updates',
        site_name: 'Corner Shop',
        user_fields: [
          { name: 'full_name', display_name: 'Your name', required: 1, type: 'text' },
          { name: 'delivery', display_name: 'Delivery address', required: 1, type: 'textarea' },
        ],
      },
    });
    expect(created.json().return, created.body).toBe('0');
    const token = (created.json().payment_page_url as string).split('/').pop()!;
    const submitted = await t.app.inject({
      method: 'POST',
      url: `/form/${token}/fields`,
      payload: { user_email: 'payer@example.com', fields: { full_name: 'Ada <b>Lovelace</b>', delivery: '1 Main St\nFlat <2>' } },
    });
    expect(submitted.json().return, submitted.body).toBe('0');
    const form = await t.ctx.db.kysely.selectFrom('payment_forms').select('id').where('order_id', '=', 'ORD-9').executeTakeFirstOrThrow();
    const page = await b.get(`/console/orders/form/${form.id}`);
    expect(page.statusCode).toBe(200);
    const payer = /<section class="panel" aria-labelledby="payer-h"[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? '';
    expect(payer).toContain('payer@example.com');
    expect(payer).toContain('<dt>Your name</dt><dd class="pre">Ada &lt;b&gt;Lovelace&lt;/b&gt;</dd>');
    expect(payer).toContain('1 Main St\nFlat &lt;2&gt;');
    expect(payer).toContain('Submitted by the payer on');
    expect(page.body).not.toContain('<b>Lovelace</b>');
  });
});
