// GET /api/v1/stores/{storeId}/payment-methods shows the wallet as BTCPay shows a store's on-chain method: its
// derivation scheme, and each account key with its master fingerprint and path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { cosigner, withVersion } from '../../test/support/cosigner-keys.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };

describe.each(testEngines())('the Greenfield store payment method of a wallet on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile(), SATGATE_PUBLIC_URL: 'https://pay.example.com' }, chains: DEAD_NODE });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function method(pub: string) {
    const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub, currency: 'testBTC', account_name: 'Shop' } });
    expect(added.json(), added.body).toMatchObject({ return: '0' });
    const store = added.json().api_id as string;
    const res = await gf(t.app, await greenfieldKey(t.ctx, store), 'GET', `/api/v1/stores/${store}/payment-methods`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json()[0];
  }

  it('a 2-of-3 P2SH-P2WSH descriptor wallet shows 2-of-tpub…-[p2sh] and its three cosigners’ fingerprints and paths', async () => {
    const keys = [cosigner(true, "m/48'/1'/0'/1'"), cosigner(true, "m/48'/1'/0'/1'"), cosigner(true, "m/48'/1'/0'/1'")];
    const pm = await method(`sh(wsh(sortedmulti(2,${keys.map((k) => `${k.withOrigin}/0/*`).join(',')})))`);
    const scheme = `2-of-${keys.map((k) => k.xpub).join('-')}-[p2sh]`;
    expect(pm).toMatchObject({ paymentMethodId: 'BTC-CHAIN', enabled: true, config: { derivationScheme: scheme, accountDerivation: scheme, label: 'Shop' } });
    expect(pm.config.accountKeySettings).toEqual(
      keys.map((k) => ({ rootFingerprint: k.origin.slice(1, 9), accountKeyPath: `${k.origin.slice(1, 9)}/48'/1'/0'/1'`, accountKey: k.xpub })),
    );
    expect(pm.config.accountKeyPath).toBeUndefined();
  });

  it('a taproot wallet shows tpub…-[taproot] with its key path', async () => {
    const k = cosigner(true, "m/86'/1'/0'");
    const pm = await method(`tr(${k.withOrigin}/<0;1>/*)`);
    expect(pm.config).toMatchObject({ derivationScheme: `${k.xpub}-[taproot]`, accountKeyPath: `${k.origin.slice(1, 9)}/86'/1'/0'` });
  });

  it('a wallet registered from one vpub shows the BIP32 (tpub) form of its key; one from a tpub shows -[legacy]', async () => {
    const k = cosigner(true, "m/84'/1'/0'");
    expect((await method(withVersion(k.xpub, 0x045f1cf6))).config.derivationScheme).toBe(k.xpub);
    expect((await method(k.xpub)).config.derivationScheme).toBe(`${k.xpub}-[legacy]`);
  });
});
