import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { cosigner, VPUB_VERSION, withVersion } from '../../test/support/cosigner-keys.ts';
import { keyOf } from '../bitcoin/wallet-key.ts';
import { descriptorChecksum } from '../bitcoin/descriptors/checksum.ts';
import { walletTypeNameOf } from './wallet-kinds.ts';
import { submitSignedRefund, type WatchOnlyDeps } from '../refunds/watch-only-refunds.ts';

const CLOCK_MS = Date.UTC(2026, 10, 26, 12, 0, 0);

/** A descriptor with its checksum, as wallets export it. */
const withChecksum = (body: string): string => `${body}#${descriptorChecksum(body)}`;

describe.each(testEngines())('wallets of every kind registered through add_pub on %s', (engine) => {
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

  const walletCount = async () => Number((await t!.testDb.db.kysely.selectFrom('wallets').select((eb) => eb.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow()).n);

  const row = (apiId: string) => t!.testDb.db.kysely.selectFrom('wallets').selectAll().where('api_id', '=', apiId).executeTakeFirstOrThrow();

  it('takes every accepted form, stores the text sent as pub and the canonical descriptor beside it, with wallet_type 4, 5 or 6', async () => {
    await boot();
    const [a, b, c] = [cosigner(), cosigner(), cosigner()];
    const single = cosigner(true, "m/84'/1'/0'");
    const taproot = cosigner(true, "m/86'/1'/0'");
    const forms: { text: string; walletType: number; kind: string; name: string }[] = [
      { text: withChecksum(`wpkh(${single.withOrigin}/<0;1>/*)`), walletType: 6, kind: 'p2wpkh', name: 'native segwit' },
      { text: `pkh(${cosigner(true, "m/44'/1'/0'").withOrigin}/0/*)`, walletType: 6, kind: 'p2pkh', name: 'legacy' },
      { text: `sh(wpkh(${cosigner(true, "m/49'/1'/0'").withOrigin}/0/*))`, walletType: 6, kind: 'p2sh-p2wpkh', name: 'p2sh-segwit' },
      { text: withChecksum(`tr(${taproot.withOrigin}/<0;1>/*)`), walletType: 4, kind: 'p2tr', name: 'p2tr' },
      { text: withChecksum(`wsh(sortedmulti(2,${a.withOrigin}/<0;1>/*,${b.withOrigin}/<0;1>/*,${c.withOrigin}/<0;1>/*))`), walletType: 5, kind: 'p2wsh-multisig', name: 'p2wsh multisig 2-of-3' },
      { text: `sh(wsh(multi(2,${a.xpub}/0/*,${b.xpub}/0/*)))`, walletType: 5, kind: 'p2sh-p2wsh-multisig', name: 'p2sh-p2wsh multisig 2-of-2' },
      { text: `sh(sortedmulti(1,${b.xpub}/0/*,${c.xpub}/0/*))`, walletType: 5, kind: 'p2sh-multisig', name: 'p2sh multisig 1-of-2' },
      { text: `${cosigner(true, "m/86'/1'/1'").xpub}-[taproot]`, walletType: 4, kind: 'p2tr', name: 'p2tr' },
      { text: `${cosigner(true, "m/49'/1'/1'").xpub}-[p2sh]`, walletType: 6, kind: 'p2sh-p2wpkh', name: 'p2sh-segwit' },
      { text: `2-of-${a.xpub}-${c.xpub}-${b.xpub}-[p2sh]`, walletType: 5, kind: 'p2sh-p2wsh-multisig', name: 'p2sh-p2wsh multisig 2-of-3' },
      { text: `2-of-${b.xpub}-${a.xpub}-[keeporder]`, walletType: 5, kind: 'p2wsh-multisig', name: 'p2wsh multisig 2-of-2' },
      { text: `2-of-${[cosigner(), cosigner(), cosigner()].map((k) => withVersion(k.xpub, VPUB_VERSION)).join('-')}`, walletType: 5, kind: 'p2wsh-multisig', name: 'p2wsh multisig 2-of-3' },
    ];
    for (const form of forms) {
      const res = await addPub({ pub: form.text, currency: 'testBTC' });
      expect(res.body, form.text).toMatchObject({ return: '0' });
      const stored = await row(res.body.api_id!);
      expect(stored.pub).toBe(form.text);
      expect(stored.mode).toBe('test');
      expect(Number(stored.wallet_type), form.text).toBe(form.walletType);
      expect(stored.script_type).toBe(form.kind);
      expect(walletTypeNameOf(stored)).toBe(form.name);
      expect(stored.descriptor).toMatch(/#[a-z0-9]{8}$/);
      expect(stored.descriptor).toContain('/<0;1>/*');
      // The first receive address the API names is the stored descriptor's.
      const first = await t!.app.inject({ method: 'GET', url: `/wallet_type/${encodeURIComponent(form.text)}` });
      expect(first.json(), form.text).toMatchObject({ return: '0', addr: keyOf({ descriptor: stored.descriptor! }, 'regtest').receive(0).address });
    }
    expect(await walletCount()).toBe(forms.length);
  });

  it('one wallet in another form (a BTCPay scheme, a descriptor without checksum) is the same wallet, found by its canonical descriptor', async () => {
    await boot();
    const keys = [cosigner(), cosigner(), cosigner()].map((k) => k.xpub);
    const first = await addPub({ pub: `2-of-${keys.join('-')}`, account_name: 'Shop' });
    expect(first.body.return).toBe('0');
    const again = await addPub({ pub: `wsh(sortedmulti(2,${keys.map((k) => `${k}/0/*`).join(',')}))`, account_name: 'Shop' });
    expect(again.body).toMatchObject({ return: '0', api_id: first.body.api_id });
    expect(await walletCount()).toBe(1);
  });

  it('refuses each bad form with 102 naming the part, and stores nothing', async () => {
    await boot();
    const [a, b] = [cosigner(), cosigner()];
    const main = cosigner(false, "m/48'/0'/0'/2'");
    const good = `wpkh(${a.withOrigin}/0/*)`;
    const wrongChecksum = `${good}#${descriptorChecksum(good) === 'qqqqqqqq' ? 'pppppppp' : 'qqqqqqqq'}`;
    const tprv = 'tprv8ZgxMBicQKsPd9TeAdPADNnSyH9SSUUbTVeFszDE23Ki6TBB5nCEDvxmMRe4vCCNoQdqg8NSSgfRcqAv4n3qF9wq1fyUkZ7S8d5HsRAjtdk';
    const refusals: [string, RegExp][] = [
      [wrongChecksum, /checksum/],
      [`wpkh(${a.xpub}/0h/*)`, /hardened step/],
      [`combo(${a.xpub}/0/*)`, /unsupported fragment combo\(\)/],
      ['raw(deadbeef)', /unsupported fragment raw\(\)/],
      ['addr(bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080)', /unsupported fragment addr\(\)/],
      [`wsh(and_v(v:pk(${a.xpub}/0/*),older(144)))`, /unsupported fragment and_v\(\)/],
      [`wsh(sortedmulti(3,${a.xpub}/0/*,${b.xpub}/0/*))`, /threshold 3/],
      [`wsh(sortedmulti(1,${a.xpub}/0/*,${a.xpub}/0/*))`, /same cosigner key appears twice/],
      [`wsh(sortedmulti(1,${a.xpub}/0/*,${main.xpub}/0/*))`, /mixes mainnet/],
      [`wpkh(${tprv}/0/*)`, /private key/],
      [`2-of-${a.xpub}-${b.xpub}-[segwit]`, /unsupported derivation-scheme option/],
    ];
    for (const [text, why] of refusals) {
      const res = await addPub({ pub: text });
      expect(res.status, text).toBe(400);
      expect(res.body.return, text).toBe('102');
      expect(res.body.status, text).toMatch(/^Public key is not valid: /);
      expect(res.body.status, text).toMatch(why);
      expect(res.body.status).not.toContain('tprv');
      const first = await t!.app.inject({ method: 'GET', url: `/wallet_type/${encodeURIComponent(text)}` });
      expect(first.json().return, text).toBe('102');
    }
    expect(await walletCount()).toBe(0);
  });

  it('a wallet_type that does not fit the descriptor is refused; the fitting one is taken', async () => {
    await boot();
    const text = `tr(${cosigner(true, "m/86'/1'/0'").xpub}/<0;1>/*)`;
    const wrong = await addPub({ pub: text, wallet_type: 3 });
    expect(wrong.body.return).toBe('201');
    expect(wrong.body.status).toContain('this one is 4');
    expect(await walletCount()).toBe(0);
    expect((await addPub({ pub: text, wallet_type: 4 })).body.return).toBe('0');
  });

  it('a mainnet descriptor is a live wallet and testBTC is refused for it', async () => {
    await boot();
    const text = `wpkh(${cosigner(false, "m/84'/0'/0'").xpub}/0/*)`;
    expect((await addPub({ pub: text, currency: 'testBTC' })).body.return).toBe('103');
    const res = await addPub({ pub: text });
    expect(res.body.return).toBe('0');
    expect((await row(res.body.api_id!)).mode).toBe('live');
    expect((await row(res.body.api_id!)).network).toBe('mainnet');
  });

  it('a descriptor wallet takes posted refund transactions (src/refunds/multisig-refunds.test.ts), and a text that is none is refused before anything is read', async () => {
    await boot();
    const res = await addPub({ pub: `wsh(sortedmulti(2,${cosigner().xpub}/0/*,${cosigner().xpub}/0/*))` });
    const wallet = await row(res.body.api_id!);
    const deps = {} as WatchOnlyDeps;
    await expect(submitSignedRefund(deps, wallet, '00')).rejects.toThrow(/cannot be read/);
  });

  it('GET /tx with a bad descriptor answers 102; with an unregistered good one an empty list', async () => {
    await boot();
    const bad = await t!.app.inject({ method: 'GET', url: `/tx/${encodeURIComponent('wsh(pk(x))')}` });
    expect(bad.json().return).toBe('102');
    const good = await t!.app.inject({ method: 'GET', url: `/tx/${encodeURIComponent(`tr(${cosigner().xpub}/0/*)`)}` });
    expect(good.json()).toMatchObject({ return: '0', tx: [] });
  });
});
