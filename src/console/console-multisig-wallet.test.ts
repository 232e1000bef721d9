// The console's wallet page for a multisig wallet: its kind and threshold, and each cosigner's master fingerprint
// and path, as the merchant's signers name them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../../test/support/test-db.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { lastLoginMail } from '../../test/support/dashboard.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { cosigner } from '../../test/support/cosigner-keys.ts';
import { associate } from '../dashboard/accounts.ts';

const ORIGIN = 'http://console.example';
const SAME_ORIGIN = { origin: ORIGIN, 'sec-fetch-site': 'same-origin', host: 'console.example' };
const DEAD_NODE = { test: { rpcUrl: 'http://u:p@127.0.0.1:1', network: 'regtest' as const } };

describe.each(testEngines())('the console wallet page of a multisig wallet on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile(), SATGATE_PUBLIC_URL: ORIGIN }, chains: DEAD_NODE });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('shows "p2wsh multisig 2-of-3" and every cosigner as [fingerprint/path]; a one-key wallet shows no cosigners', async () => {
    const email = 'cosigners@example.com';
    const keys = [cosigner(), cosigner(), cosigner()];
    const text = `wsh(sortedmulti(2,${keys.map((k) => `${k.withOrigin}/<0;1>/*`).join(',')}))`;
    const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: text, currency: 'testBTC' } });
    expect(added.json(), added.body).toMatchObject({ return: '0' });
    const apiId = added.json().api_id as string;
    await t.app.inject({ method: 'POST', url: '/console/login', headers: { ...SAME_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: `email=${encodeURIComponent(email)}` });
    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/console/login/code',
      headers: { ...SAME_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `email=${encodeURIComponent(email)}&otp=${(await lastLoginMail(t.ctx.db, email)).code}`,
    });
    const cookie = (signedIn.headers['set-cookie'] as string).split(';')[0]!;
    const wallet = (await t.ctx.wallets.repo.findByApiId(apiId))!;
    const profile = await t.ctx.db.kysely.selectFrom('profiles').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    await t.ctx.db.kysely.transaction().execute((trx) => associate(trx, profile.id, wallet.id, 'operator', Date.now()));

    const page = await t.app.inject({ method: 'GET', url: `/console/wallets/${apiId}`, headers: { host: 'console.example', cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<dt>Type</dt><dd>p2wsh multisig 2-of-3</dd>');
    expect(page.body).toContain('<dt>Cosigners</dt>');
    for (const k of keys) expect(page.body).toContain(`<li><code>${k.origin}</code></li>`);
    const list = await t.app.inject({ method: 'GET', url: '/console/wallets', headers: { host: 'console.example', cookie } });
    expect(list.body).toContain(`<li><code>${keys[0]!.origin}</code></li>`);

    const one = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: cosigner(true, "m/84'/1'/0'").xpub, currency: 'testBTC' } });
    const single = (await t.ctx.wallets.repo.findByApiId(one.json().api_id))!;
    await t.ctx.db.kysely.transaction().execute((trx) => associate(trx, profile.id, single.id, 'operator', Date.now()));
    const singlePage = await t.app.inject({ method: 'GET', url: `/console/wallets/${single.api_id}`, headers: { host: 'console.example', cookie } });
    expect(singlePage.body).not.toContain('<dt>Cosigners</dt>');
  });
});
