// Payouts of a watch-only wallet through the console on both engines, with a bcoin regtest node: the merchant's own
// key, a general pull payment and two payouts claimed through Greenfield, one approved; the Payouts page lists the
// approved one only, offers the PSBT (a binary BIP174 file paying it), refuses a wrong transaction and a form without
// the CSRF token as the page, takes the signed PSBT back (signed offline with the wallet's keys), broadcasts it, and
// the payout leaves the list, InProgress.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transaction } from '@scure/btc-signer';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { lastLoginMail } from '../../test/support/dashboard.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { inMempool, payWallet } from '../../test/support/refund-fixtures.ts';
import { accountNodeFromMnemonic, generateNewWallet } from '../bitcoin/new-wallet.ts';
import { encodeAddress } from '../bitcoin/address.ts';
import { POLICIES } from '../greenfield/permissions.ts';

const ORIGIN = 'http://console.example';
const SAME_ORIGIN = { origin: ORIGIN, 'sec-fetch-site': 'same-origin', host: 'console.example' };
const payee = () => encodeAddress(Uint8Array.from([0x00, 0x14, ...randomBytes(20)]), 'regtest');

describe.each(testEngines())('watch-only payouts in the console on %s', (engine) => {
  let node: RegtestNode;
  let t: TestApp;
  let cookie: string;

  beforeAll(async () => {
    node = await startRegtestNode();
    t = await createTestApp(engine, {
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      env: { SATGATE_FALLBACK_FEE_RATE: '2', SATGATE_PUBLIC_URL: ORIGIN, SATGATE_RATES_FILE: writeRatesFile() },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await node?.stop();
  });

  const form = (url: string, fields: Record<string, string>) =>
    t.app.inject({ method: 'POST', url, headers: { ...SAME_ORIGIN, cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { host: 'console.example', cookie } });

  it('lists the approved payouts, downloads their PSBT, takes the signed one back and broadcasts it', async () => {
    const email = 'payouts@example.com';
    const { mnemonic, accountKey } = generateNewWallet(true);
    await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: accountKey, notification_email: email } });
    await t.app.inject({ method: 'POST', url: '/console/login', headers: { ...SAME_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: `email=${encodeURIComponent(email)}` });
    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/console/login/code',
      headers: { ...SAME_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `email=${encodeURIComponent(email)}&otp=${(await lastLoginMail(t.ctx.db, email)).code}`,
    });
    cookie = (signedIn.headers['set-cookie'] as string).split(';')[0]!;
    const csrf = () => get('/console/wallets').then((r) => /name="csrf" value="([^"]+)"/.exec(r.body)![1]!);
    expect((await form('/console/wallets', { csrf: await csrf(), pub: accountKey })).statusCode).toBe(303);
    const wallet = (await t.ctx.wallets.repo.findByPub(accountKey))!;

    // Nothing due yet: the page says so, and the PSBT link answers the reason as a page.
    const empty = await get('/console/payouts');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('No approved payout is waiting for a transaction.');
    expect(empty.body).toContain('<a href="/console/payouts" aria-current="page">Payouts</a>');
    const none = await get(`/console/payouts/psbt?api_id=${wallet.api_id}`);
    expect(none.statusCode).toBe(400);
    expect(none.headers['content-type']).toMatch(/^text\/html/);
    expect(none.body).toContain('class="flash error"');
    expect(none.body).toContain('No approved payout of this store is waiting for a transaction');

    await t.ctx.chains.pollNow();
    await payWallet(t.ctx, node, wallet, [300_000n]);
    const key = await greenfieldKey(t.ctx, wallet.api_id, [POLICIES.managePullPayments]);
    const pull = await gf(t.app, key, 'POST', `/api/v1/stores/${wallet.api_id}/pull-payments`, { name: 'Affiliates', amount: '0.01', currency: 'BTC' });
    expect(pull.statusCode, pull.body).toBe(200);
    const pullId = (pull.json() as { id: string }).id;
    const claim = async (amount: string) => {
      const res = await gf(t.app, null, 'POST', `/api/v1/pull-payments/${pullId}/payouts`, { destination: payee(), amount, payoutMethodId: 'BTC-CHAIN' });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { id: string; destination: string };
    };
    const approved = await claim('0.0011');
    const waiting = await claim('0.0007');
    expect((await gf(t.app, key, 'POST', `/api/v1/payouts/${approved.id}`, { revision: 0 })).statusCode).toBe(200);

    const page = await get('/console/payouts');
    expect(page.body).toContain(`data-payout="${approved.id}"`);
    expect(page.body).toContain(approved.destination);
    expect(page.body).toContain('0.0011 testBTC');
    expect(page.body).not.toContain(`data-payout="${waiting.id}"`);
    expect(page.body).toContain('<label for="payout-signed-0">');
    // Another merchant's or an unknown wallet is not found.
    expect((await get('/console/payouts/psbt?api_id=unknown')).statusCode).toBe(404);

    const download = await get(`/console/payouts/psbt?api_id=${wallet.api_id}`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-disposition']).toBe(`attachment; filename="payouts-${wallet.api_id}.psbt"`);
    expect(download.rawPayload.subarray(0, 5).toString('latin1')).toBe('psbt\xff');

    const account = accountNodeFromMnemonic(mnemonic, true);
    const tx = Transaction.fromPSBT(download.rawPayload, { allowLegacyWitnessUtxo: true });
    for (let i = 0; i < tx.inputsLength; i++) {
      const path = tx.getInput(i).bip32Derivation![0]![1].path;
      tx.signIdx(account.deriveChild(path.at(-2)!).deriveChild(path.at(-1)!).privateKey!, i);
    }
    const signed = Buffer.from(tx.toPSBT(0)).toString('base64');

    const noToken = await form('/console/payouts/signed', { api_id: wallet.api_id, signed });
    expect(noToken.statusCode).toBe(403);
    const wrong = await form('/console/payouts/signed', { csrf: await csrf(), api_id: wallet.api_id, signed: 'bm90IGEgcHNidA==' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.headers['content-type']).toMatch(/^text\/html/);
    expect(wrong.body).toContain('class="flash error"');
    expect(wrong.body).toContain(`data-payout="${approved.id}"`);
    const sent = await form('/console/payouts/signed', { csrf: await csrf(), api_id: wallet.api_id, signed });
    expect(sent.statusCode, sent.body).toBe(303);
    expect(sent.headers.location).toBe('/console/payouts?ok=payouts_broadcast');
    const listed = await get('/console/payouts?ok=payouts_broadcast');
    expect(listed.body).toContain('Signed payout transaction checked and broadcast.');
    expect(listed.body).not.toContain(`data-payout="${approved.id}"`);
    expect(listed.body).not.toContain('Download PSBT');
    const payout = (await gf(t.app, key, 'GET', `/api/v1/payouts/${approved.id}`)).json() as { state: string };
    expect(payout.state).toBe('InProgress');
    const spend = await t.ctx.db.kysely.selectFrom('spends').select('txid').where('wallet_id', '=', wallet.id).where('purpose', '=', 'payout').executeTakeFirstOrThrow();
    expect(await inMempool(node, spend.txid)).toBe(true);
  }, 120_000);
});
