// The payer's refund e-mails in the payer's language (issue 35), through a real SMTP server on both engines: the
// link mail goes out before the payer has acted anywhere, so it speaks the wallet's default; the payer then sets the
// address on a page shown in German (the picker's cookie), that language is recorded, and the "refund sent" mail
// is German. The merchant's own mails stay English.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { payWallet, sessionOwning } from '../../test/support/refund-fixtures.ts';
import { readMail, startSmtpCapture, type SmtpCapture } from '../../test/support/smtp-capture.ts';
import { addressForPublicKey } from '../bitcoin/address.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';

const payee = () => addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');

describe.each(testEngines())("refund e-mails in the payer's language on %s", (engine) => {
  let node: RegtestNode;
  let smtp: SmtpCapture;
  let t: TestApp;
  let wallet: WalletRow;
  let token: string;

  async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
    const res = await t.app.inject({ method: 'POST', url, payload: body as object, headers });
    return res.json() as Record<string, any>;
  }
  const mailsTo = (to: string) => smtp.mails.map(readMail).filter((m) => m.to === to);

  /** A payment to a new address of the wallet whose set_addr order names the payer's e-mail. */
  async function paidOrder(payerEmail: string, sats: bigint): Promise<string> {
    const paid = await payWallet(t.ctx, node, wallet, [sats]);
    const address = await t.ctx.db.kysely.selectFrom('addresses').select('id').where('address', '=', paid.addresses[0]!).executeTakeFirstOrThrow();
    const now = BigInt(Date.now());
    await t.ctx.db.kysely
      .insertInto('address_orders')
      .values({ address_id: address.id, wallet_id: wallet.id, client_txid: null, return_email: payerEmail, local_currency: 'usd', order_amount: null, exchange_rate: '50000', exchange_rate_at: now, rate_lock_expires_at: now, client_public_key: null, payload_json: null, created_at: now, reserved_until: now })
      .execute();
    return paid.txid;
  }

  beforeAll(async () => {
    node = await startRegtestNode();
    smtp = await startSmtpCapture();
    t = await createTestApp(engine, { chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } }, env: { SATGATE_FALLBACK_FEE_RATE: '3', SATGATE_SMTP_URL: smtp.url }, start: true });
    const added = await post('/add_pub', { pub: 'new_wallet', currency: 'testBTC', notification_email: 'shop@example.test' });
    wallet = (await t.ctx.wallets.repo.findByApiId(added.api_id))!;
    token = await sessionOwning(t.ctx, 'shop@example.test', [wallet.id]);
    await t.ctx.chains.pollNow();
    await payWallet(t.ctx, node, wallet, [400_000n]);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await node?.stop();
  });

  it('mails the link in the wallet’s default language, then the refund sent in the language of the page the payer set the address on', async () => {
    await t.ctx.db.kysely.updateTable('wallets').set({ default_language: 'fr' }).where('id', '=', wallet.id).execute();
    const txid = await paidOrder('payer-de@example.test', 90_000n);
    const requested = await post('/refund_request', { auth_token: token, tx_id: txid, refund_amount: '0.0003' });
    expect(requested.return, JSON.stringify(requested)).toBe('0');
    await expect.poll(() => mailsTo('payer-de@example.test').length, { timeout: 20_000 }).toBe(1);
    const link = mailsTo('payer-de@example.test')[0]!;
    expect(link.subject).toBe('[satgate] Votre remboursement : indiquez-nous où l’envoyer');
    expect(link.text).toContain('Un remboursement de 0,0003 BTC vous attend.');
    expect(link.text).toContain(requested.refund.refund_form_url);

    // The payer picked German on the refund page: the cookie comes with the page's post.
    const to = payee();
    const set = await post('/set_refund_addr', { refund_form_token: requested.refund.refund_form_token, refund_addr: to }, { cookie: 'satgate_lang=de', 'accept-language': 'ja' });
    expect(set.return, JSON.stringify(set)).toBe('0');
    const row = await t.ctx.db.kysely.selectFrom('refunds').select('payer_language').where('address', '=', to).executeTakeFirstOrThrow();
    expect(row.payer_language).toBe('de');
    await expect.poll(() => mailsTo('payer-de@example.test').length, { timeout: 20_000 }).toBe(2);
    const sent = mailsTo('payer-de@example.test')[1]!;
    expect(sent.subject).toBe('[satgate] Ihre Rückerstattung wurde gesendet');
    expect(sent.text).toContain(`Ihre Rückerstattung über 0,0003 BTC wurde an ${to} gesendet.`);
    expect(sent.text).toContain(`Transaktions-ID: ${set.refund.tx_id}`);

    // The merchant's mail about the same refund stays English.
    await expect.poll(() => mailsTo('shop@example.test').filter((m) => m.subject.includes('broadcast')).length, { timeout: 20_000 }).toBe(1);
  });

  it('without a page language or a wallet default, the payer is mailed in English', async () => {
    await t.ctx.db.kysely.updateTable('wallets').set({ default_language: null }).where('id', '=', wallet.id).execute();
    const txid = await paidOrder('payer-en@example.test', 80_000n);
    const requested = await post('/refund_request', { auth_token: token, tx_id: txid, refund_amount: '0.0002' });
    await expect.poll(() => mailsTo('payer-en@example.test').length, { timeout: 20_000 }).toBe(1);
    expect(mailsTo('payer-en@example.test')[0]!.subject).toBe('[satgate] Your refund: tell us where to send it');
    const set = await post('/set_refund_addr', { refund_form_token: requested.refund.refund_form_token, refund_addr: payee() });
    expect(set.return).toBe('0');
    await expect.poll(() => mailsTo('payer-en@example.test').length, { timeout: 20_000 }).toBe(2);
    expect(mailsTo('payer-en@example.test')[1]!.text).toContain('Your refund of 0.0002 BTC was sent to');
  });
});
