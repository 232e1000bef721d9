// Refunds of a watch-only wallet through the console on both engines, with a bcoin regtest node: the merchant adds
// their own key, a payment comes in, a refund is requested and the payer sets an address; the refunds page offers
// the PSBT, which downloads as a binary BIP174 file, is signed offline with the wallet's keys and handed back
// through the form (base64, as console.js reads a chosen file), checked, broadcast, and listed as Processing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Transaction } from '@scure/btc-signer';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { lastLoginMail } from '../../test/support/dashboard.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { inMempool, payWallet } from '../../test/support/refund-fixtures.ts';
import { accountNodeFromMnemonic, generateNewWallet } from '../bitcoin/new-wallet.ts';
import { addressForPublicKey } from '../bitcoin/address.ts';

const ORIGIN = 'http://console.example';
const SAME_ORIGIN = { origin: ORIGIN, 'sec-fetch-site': 'same-origin', host: 'console.example' };

describe.each(testEngines())('watch-only refunds in the console on %s', (engine) => {
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

  it('downloads the PSBT, takes the signed one back, broadcasts it and lists the refund as Processing', async () => {
    const email = 'watch@example.com';
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

    await t.ctx.chains.pollNow();
    const paid = await payWallet(t.ctx, node, wallet, [300_000n]);
    // The refund is asked through the dashboard API with the same session (the cookie's token).
    const token = cookie.slice(cookie.indexOf('=') + 1);
    const asked = await t.app.inject({ method: 'POST', url: '/refund_request', headers: { authorization: token }, payload: { tx_id: paid.txid, refund_amount: '0.001' } });
    expect(asked.json().return, asked.body).toBe('0');
    const to = addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');
    await t.app.inject({ method: 'POST', url: '/set_refund_addr', payload: { refund_form_token: asked.json().refund.refund_form_token, refund_addr: to } });

    const page = await get('/console/refunds');
    expect(page.body).toContain('Download PSBT');
    expect(page.body).toContain('<label for="signed-0">');
    const download = await get(`/console/refunds/psbt?api_id=${wallet.api_id}`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-disposition']).toBe(`attachment; filename="refunds-${wallet.api_id}.psbt"`);
    expect(download.rawPayload.subarray(0, 5).toString('latin1')).toBe('psbt\xff');

    // Signed offline: each input's BIP32 derivation ends in the account's 0/i or 1/i.
    const account = accountNodeFromMnemonic(mnemonic, true);
    const tx = Transaction.fromPSBT(download.rawPayload, { allowLegacyWitnessUtxo: true });
    for (let i = 0; i < tx.inputsLength; i++) {
      const path = tx.getInput(i).bip32Derivation![0]![1].path;
      tx.signIdx(account.deriveChild(path.at(-2)!).deriveChild(path.at(-1)!).privateKey!, i);
    }
    const signed = Buffer.from(tx.toPSBT(0)).toString('base64');

    const wrong = await form('/console/refunds/signed', { csrf: await csrf(), api_id: wallet.api_id, signed: 'bm90IGEgcHNidA==' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('class="flash error"');
    const sent = await form('/console/refunds/signed', { csrf: await csrf(), api_id: wallet.api_id, signed });
    expect(sent.statusCode, sent.body).toBe(303);
    expect(sent.headers.location).toBe('/console/refunds?ok=broadcast');
    const listed = await get('/console/refunds?ok=broadcast');
    expect(listed.body).toContain('Signed refund transaction checked and broadcast.');
    expect(listed.body).toContain('data-status="Processing"');
    expect(listed.body).not.toContain('Download PSBT');
    const profile = await t.ctx.db.kysely.selectFrom('profiles').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const refund = (await t.ctx.refunds.list(profile.id))[0]!;
    expect(await inMempool(node, refund.tx_id)).toBe(true);
  });
});
