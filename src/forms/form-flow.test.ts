// Payment forms and payment update notifications end to end, over real HTTP against a bcoin regtest node
// on both database engines: a local merchant server receives the 6.2 notifications (signed), a local SMTP
// server the e-mails; the service's clock is moved forward to pass rate locks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readMail, startSmtpCapture, type SmtpCapture } from '../../test/support/smtp-capture.ts';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { runCli } from '../../test/support/server-process.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { satsFromBtc } from '../money/money.ts';
import { verifyWebhookSignature } from '../notify/webhook-signature.ts';
import { currentWebhookSecret } from '../payments/webhook-secrets.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

interface Hook {
  path: string;
  body: Record<string, unknown>;
  raw: string;
  signature: string | undefined;
}

const MIN = 60_000;

describe.each(testEngines())('payment forms and payment updates on %s', (engine) => {
  let t: TestApp;
  let origin: string;
  let merchant: Server;
  let merchantUrl: string;
  let smtp: SmtpCapture;
  let offset = 0;
  const hooks: Hook[] = [];

  beforeAll(async () => {
    merchant = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        hooks.push({ path: req.url ?? '', body: JSON.parse(raw) as Record<string, unknown>, raw, signature: req.headers['x-satgate-signature'] as string | undefined });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', r));
    merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
    smtp = await startSmtpCapture();
    t = await createTestApp(engine, {
      env: {
        SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }),
        SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1',
        SATGATE_SMTP_URL: smtp.url,
      },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      clock: () => Date.now() + offset,
      start: true,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await t.ctx.chains.pollNow();
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => merchant?.close(r));
    await smtp?.close();
  });

  async function createForm(apiId: string, over: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    const res = await fetch(`${origin}/payment_form`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        api_id: apiId,
        order_id: `ORD-${Math.random().toString(36).slice(2, 8)}`,
        order_amount: '25.00',
        order_currency: 'usd',
        user_id: 'customer-7',
        user_email: 'payer@example.com',
        payment_cancel_url: 'https://shop.example/cart',
        payment_complete_url: 'https://shop.example/thanks',
        payment_update_url: `${merchantUrl}/updates`,
        site_name: 'Form Shop',
        ...over,
      }),
    });
    const body = (await res.json()) as { return: string; status: string; payment_page_url: string; auth_response_token: string };
    expect(body.return, body.status).toBe('0');
    const token = body.payment_page_url.split('/form/')[1]!;
    return { ...body, token, replayed: res.headers.get('idempotent-replayed') === 'true' };
  }
  const getJson = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${origin}${path}`, init);
    return (await res.json()) as Record<string, any>;
  };
  const state = async (token: string) => (await getJson(`/form/${token}/state`)).form as Record<string, any>;
  const post = (path: string, body: unknown) =>
    getJson(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const hooksFor = (orderId: string) => hooks.filter((h) => h.body.order_id === orderId);
  async function waitHooks(orderId: string, n: number) {
    await expect.poll(() => hooksFor(orderId).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(n);
    return hooksFor(orderId);
  }
  async function pay(address: string, btc: string) {
    const paid = await node.pay(decodeAddress(address).script, satsFromBtc(btc));
    await t.ctx.chains.pollNow();
    return paid;
  }
  async function mine() {
    await node.mine(1);
    await t.ctx.chains.pollNow();
  }

  it('a form with two required fields and one optional: session view, fields, payment, and signed notifications in order', async () => {
    const apiId = await addSandboxWallet(t.app, { account_name: 'Form Shop' });
    const userFields = [
      { name: 'full_name', display_name: 'Full name', required: 1, type: 'text' },
      { name: 'shipping_address', display_name: 'Shipping address', required: 1, type: 'textarea' },
      { name: 'gift_note', display_name: 'Gift note', required: 0, type: 'text', value: 'Happy birthday' },
    ];
    const form = await createForm(apiId, { order_id: 'ORD-MAIN', order_amount: 25, user_fields: userFields });
    expect(form.payment_page_url).toBe(`${t.ctx.config.publicUrl}/form/${form.token}`);
    expect(form.auth_response_token.length).toBeGreaterThanOrEqual(32);

    // The token is sealed at rest and the form token only stored hashed.
    const row = await t.ctx.db.kysely.selectFrom('payment_forms').selectAll().where('order_id', '=', 'ORD-MAIN').executeTakeFirstOrThrow();
    expect(row.auth_token_sealed).not.toContain(form.auth_response_token);
    expect(Object.values(row).map(String).join(' ')).not.toContain(form.token);
    // Address reserved and rate locked for 15 minutes, together.
    const lock = await t.ctx.db.kysely.selectFrom('form_rate_locks').selectAll().where('form_id', '=', row.id).executeTakeFirstOrThrow();
    expect(Number(lock.expires_at) - Number(lock.locked_at)).toBe(15 * MIN);
    const reserved = await t.ctx.db.kysely.selectFrom('addresses').select('reserved_until').where('id', '=', row.address_id).executeTakeFirstOrThrow();
    expect(reserved.reserved_until).toBe(lock.expires_at);

    const session = await getJson(`/payment_form/${form.token}`);
    expect(session).toEqual({
      return: '0',
      status: 'OK',
      crypto_currency: 'testBTC',
      crypto_amount: '0.0005',
      exchange_rate: '50000',
      order_id: 'ORD-MAIN',
      order_amount: 25,
      order_currency: 'USD',
      user_id: 'customer-7',
      user_email: 'payer@example.com',
      payment_cancel_url: 'https://shop.example/cart',
      site_name: 'Form Shop',
      user_fields: userFields.map((f) => ({ value: '', ...f })),
    });
    expect(session).not.toHaveProperty('payment_complete_url');

    expect((await state(form.token)).phase).toBe('fields');
    const missing = await post(`/form/${form.token}/fields`, { fields: { full_name: 'Ada Lovelace' } });
    expect(missing).toMatchObject({ return: '201', status: expect.stringContaining('Shipping address is required') });
    const wrongType = await post(`/form/${form.token}/fields`, { fields: { full_name: 'Ada', shipping_address: 12 } });
    expect(wrongType.return).toBe('201');
    const submitted = await post(`/form/${form.token}/fields`, { fields: { full_name: 'Ada Lovelace', shipping_address: '12 St James Sq', gift_note: '' } });
    expect(submitted.return).toBe('0');
    const paying = submitted.form as Record<string, any>;
    expect(paying).toMatchObject({ phase: 'pay', crypto_amount_due: '0.0005', complete_url: null });

    const paid = await pay(paying.address, paying.crypto_amount_due);
    const first = await waitHooks('ORD-MAIN', 1);
    await mine();
    const both = await waitHooks('ORD-MAIN', 2);
    expect(first[0]!.body).toMatchObject({ payment_status: 'unconfirmed', order_status: 'paid', triggers: ['transaction', 'status'] });
    expect(both[1]!.body).toMatchObject({ payment_status: 'confirmed', order_status: 'paid' });
    expect((both[1]!.body.triggers as string[]).includes('confirmation')).toBe(true);
    const secret = (await currentWebhookSecret(t.ctx.db.kysely, t.masterKey, row.wallet_id))!;
    for (const h of both) {
      expect(h.path).toBe('/updates');
      expect(h.body.auth_response_token).toBe(form.auth_response_token);
      expect(h.body.response_auth_token).toBe(form.auth_response_token);
      expect(h.body).toMatchObject({ return: '0', api_id: apiId, order_id: 'ORD-MAIN', order_amount: 25, order_currency: 'USD', user_id: 'customer-7', user_email: 'payer@example.com' });
      expect((h.body.user_fields as Array<{ name: string; value: string }>).map((f) => [f.name, f.value])).toEqual([
        ['full_name', 'Ada Lovelace'],
        ['shipping_address', '12 St James Sq'],
        ['gift_note', ''],
      ]);
      expect(h.signature && verifyWebhookSignature(h.signature, h.raw, secret)).toBe(true);
    }
    expect(both[1]!.body.payment).toMatchObject({
      address: paying.address,
      crypto_currency: 'testBTC',
      crypto_amount: '0.0005',
      exchange_rate: '50000',
      crypto_amount_paid_conf: '0.0005',
      crypto_amount_paid_unconf: '0',
      transactions: [{ txid: paid.txid, value: '0.0005', confirmations: 1 }],
    });
    expect((await state(form.token)).complete_url).toBe('https://shop.example/thanks');

    const transitions = await t.ctx.db.kysely.selectFrom('form_transitions').selectAll().where('form_id', '=', row.id).orderBy('id').execute();
    expect(transitions.map((x) => [x.from_status, x.to_status, x.cause])).toEqual([
      [null, 'pending', 'created'],
      ['pending', 'paid', 'mempool'],
    ]);

    const byToken = await runCli(['webhook', 'deliveries', form.token, '--json'], t.testDb.env);
    expect(byToken.code, byToken.stderr).toBe(0);
    const listed = JSON.parse(byToken.stdout) as Array<{ kind: string; target: string; state: string; attempts: unknown[] }>;
    expect(listed.filter((e) => e.kind === 'webhook').map((e) => [e.target, e.state])).toEqual([
      [`${merchantUrl}/updates`, 'delivered'],
      [`${merchantUrl}/updates`, 'delivered'],
    ]);
    const byAddress = await runCli(['webhook', 'deliveries', paying.address, '--json'], t.testDb.env);
    expect(JSON.parse(byAddress.stdout)).toHaveLength(listed.length);
  });

  /** A captured mail's text with quoted-printable soft breaks and escapes undone (long lines are wrapped on the wire). */
  const plain = (mail: string) => mail.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  const mailsTo = (address: string) => smtp.mails.filter((m) => m.includes(`To: ${address}`)).map(plain);

  it('a payer who ticks "E-mail me a receipt" gets one receipt once the order is paid and confirmed, and the shop a mail with what the payer typed', async () => {
    const apiId = await addSandboxWallet(t.app, { account_name: 'Receipt Shop', notification_email: 'shop-owner@example.com' });
    const form = await createForm(apiId, {
      order_id: 'ORD-RECEIPT',
      order_amount: '49.9',
      user_email: undefined,
      site_name: 'Receipt Shop',
      user_fields: [{ name: 'shipping_address', display_name: 'Delivery address', required: 1, type: 'textarea' }],
    });
    expect((await state(form.token)).phase).toBe('fields');
    // Consent is strict: only true or false; a refusal stores nothing.
    const refused = await post(`/form/${form.token}/fields`, { fields: { shipping_address: 'x' }, user_email: 'ada@example.com', receipt: 'yes' });
    expect(refused).toMatchObject({ return: '201', status: expect.stringContaining('receipt must be true or false') });
    expect((await state(form.token)).phase).toBe('fields');
    const submitted = await post(`/form/${form.token}/fields`, { fields: { shipping_address: '1 Analytical Way\nLondon' }, user_email: 'ada@example.com', receipt: true });
    expect(submitted.return, submitted.status).toBe('0');
    const row = await t.ctx.db.kysely.selectFrom('payment_forms').selectAll().where('order_id', '=', 'ORD-RECEIPT').executeTakeFirstOrThrow();
    expect(row.receipt_requested_at).not.toBeNull();
    expect(Object.values(row).map(String).join(' ')).not.toContain(form.token);

    const paid = await pay(submitted.form.address, submitted.form.crypto_amount_due);
    await waitHooks('ORD-RECEIPT', 1);
    // Not before the payment is confirmed.
    expect(await t.ctx.db.kysely.selectFrom('outbox').select('id').where('target', '=', 'ada@example.com').execute()).toHaveLength(0);
    await mine();
    await expect.poll(() => mailsTo('ada@example.com').length, { timeout: 20_000 }).toBe(1);
    const receipt = mailsTo('ada@example.com')[0]!;
    expect(receipt).toContain('Subject: Your payment receipt from Receipt Shop');
    expect(receipt).toContain('Thank you for your payment to Receipt Shop.');
    expect(receipt).toContain('Order: ORD-RECEIPT');
    expect(receipt).toContain('Amount: 49.90 USD');
    expect(receipt).toContain(`Paid: ${submitted.form.crypto_amount_due} testBTC`);
    expect(receipt).toContain(`Transaction ID: ${paid.txid}`);
    expect(receipt).toContain(`Your order page: ${form.payment_page_url}`);
    // Queued sealed: the outbox never holds the form token in clear.
    const queued = await t.ctx.db.kysely.selectFrom('outbox').selectAll().where('target', '=', 'ada@example.com').execute();
    expect(queued).toHaveLength(1);
    expect(queued[0]!.payload_json).not.toContain(form.token);

    // The shop's own mail carries what the payer typed.
    await expect.poll(() => mailsTo('shop-owner@example.com').filter((m) => m.includes('payment confirmed') || m.includes(', confirmed')).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    const shopMail = mailsTo('shop-owner@example.com').find((m) => m.includes('ORD-RECEIPT'))!;
    expect(shopMail).toContain('E-mail: ada@example.com');
    expect(shopMail).toContain('Delivery address: 1 Analytical Way');

    // Another block, another derivation: still one receipt.
    await mine();
    await state(form.token);
    expect(await t.ctx.db.kysely.selectFrom('outbox').select('id').where('target', '=', 'ada@example.com').execute()).toHaveLength(1);
  });

  it('without the payer\'s consent, no receipt is queued', async () => {
    const apiId = await addSandboxWallet(t.app);
    const form = await createForm(apiId, { order_id: 'ORD-NORECEIPT', user_email: undefined });
    const submitted = await post(`/form/${form.token}/fields`, { fields: {}, user_email: 'grace@example.com' });
    expect(submitted.return, submitted.status).toBe('0');
    await pay(submitted.form.address, submitted.form.crypto_amount_due);
    await waitHooks('ORD-NORECEIPT', 1);
    await mine();
    await expect.poll(() => hooksFor('ORD-NORECEIPT').at(-1)?.body.payment_status, { timeout: 20_000 }).toBe('confirmed');
    expect(await t.ctx.db.kysely.selectFrom('outbox').select('id').where('target', '=', 'grace@example.com').execute()).toHaveLength(0);
    expect(mailsTo('grace@example.com')).toHaveLength(0);
  });

  it('a payer who asked for the receipt on a page shown in German gets it in German; the shop keeps its English mail', async () => {
    // The wallet's default (French) comes after the payer's own choice: the picker's cookie says German.
    const apiId = await addSandboxWallet(t.app, { account_name: 'Sprachladen', notification_email: 'sprach-owner@example.com' });
    await t.ctx.db.kysely.updateTable('wallets').set({ default_language: 'fr' }).where('api_id', '=', apiId).execute();
    const form = await createForm(apiId, { order_id: 'ORD-DE', order_amount: '1234.5', user_email: undefined, site_name: 'Sprachladen' });
    const submitted = await getJson(`/form/${form.token}/fields`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: 'satgate_lang=de', 'accept-language': 'en-US' },
      body: JSON.stringify({ fields: {}, user_email: 'hilde@example.com', receipt: true }),
    });
    expect(submitted.return, submitted.status).toBe('0');
    const row = await t.ctx.db.kysely.selectFrom('payment_forms').select('receipt_language').where('order_id', '=', 'ORD-DE').executeTakeFirstOrThrow();
    expect(row.receipt_language).toBe('de');
    const paid = await pay(submitted.form.address, submitted.form.crypto_amount_due);
    await waitHooks('ORD-DE', 1);
    await mine();
    await expect.poll(() => smtp.mails.map(readMail).filter((m) => m.to === 'hilde@example.com').length, { timeout: 20_000 }).toBe(1);
    const receipt = smtp.mails.map(readMail).find((m) => m.to === 'hilde@example.com')!;
    expect(receipt.subject).toBe('Ihre Zahlungsquittung von Sprachladen');
    expect(receipt.text).toContain('Vielen Dank für Ihre Zahlung an Sprachladen. Sie ist eingegangen und bestätigt.');
    expect(receipt.text).toContain('Bestellung: ORD-DE\nBetrag: 1.234,50 USD\n');
    expect(receipt.text).toContain(`Bezahlt: ${submitted.form.crypto_amount_due.replace('.', ',')} testBTC`);
    expect(receipt.text).toContain(`Transaktions-ID: ${paid.txid}`);
    expect(receipt.text).toContain(`Ihre Bestellseite: ${form.payment_page_url}`);
    await expect.poll(() => mailsTo('sprach-owner@example.com').filter((m) => m.includes('ORD-DE')).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    expect(mailsTo('sprach-owner@example.com').find((m) => m.includes('ORD-DE'))).toContain('Order ORD-DE');
  });

  it('a receipt asked for with no language chosen takes the wallet default before the browser', async () => {
    const apiId = await addSandboxWallet(t.app, { account_name: 'Boutique' });
    await t.ctx.db.kysely.updateTable('wallets').set({ default_language: 'fr' }).where('api_id', '=', apiId).execute();
    const form = await createForm(apiId, { order_id: 'ORD-FR', user_email: undefined, site_name: 'Boutique' });
    const submitted = await getJson(`/form/${form.token}/fields`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-language': 'ja' },
      body: JSON.stringify({ fields: {}, user_email: 'amelie@example.com', receipt: true }),
    });
    expect(submitted.return, submitted.status).toBe('0');
    expect((await t.ctx.db.kysely.selectFrom('payment_forms').select('receipt_language').where('order_id', '=', 'ORD-FR').executeTakeFirstOrThrow()).receipt_language).toBe('fr');
    await pay(submitted.form.address, submitted.form.crypto_amount_due);
    await waitHooks('ORD-FR', 1);
    await mine();
    await expect.poll(() => smtp.mails.map(readMail).filter((m) => m.to === 'amelie@example.com').length, { timeout: 20_000 }).toBe(1);
    expect(smtp.mails.map(readMail).find((m) => m.to === 'amelie@example.com')!.subject).toBe('Votre reçu de paiement de Boutique');
  });

  it('underpay then expiry is failed_paid_too_little; a refresh re-prices the remainder and a second payment completes it', async () => {
    const apiId = await addSandboxWallet(t.app);
    const form = await createForm(apiId, { order_id: 'ORD-SHORT' });
    const s0 = await state(form.token);
    expect(s0.phase).toBe('pay');
    await pay(s0.address, '0.0002'); // 10 of 25 USD
    const [short] = await waitHooks('ORD-SHORT', 1);
    expect(short!.body).toMatchObject({ payment_status: 'unconfirmed', order_status: 'failed_paid_too_little' });
    const s1 = await state(form.token);
    expect(s1).toMatchObject({ phase: 'partly', crypto_amount_due: '0.0003', remaining_order_amount: '15.00' });
    const refusedEarly = await post(`/form/${form.token}/refresh`, {});
    expect(refusedEarly.return).toBe('201');

    offset += 16 * MIN;
    const s2 = await state(form.token);
    expect(s2).toMatchObject({ phase: 'partly-expired', order_status: 'failed_paid_too_little' });
    const refreshed = await post(`/form/${form.token}/refresh`, {});
    expect(refreshed.return, refreshed.status).toBe('0');
    expect(refreshed.form).toMatchObject({ phase: 'partly', crypto_amount_due: '0.0003' });
    const locks = await t.ctx.db.kysely.selectFrom('form_rate_locks').select('form_rate_locks.id').innerJoin('payment_forms as f', 'f.id', 'form_rate_locks.form_id').where('f.order_id', '=', 'ORD-SHORT').execute();
    expect(locks).toHaveLength(2);

    await pay(s0.address, '0.0003');
    const all = await waitHooks('ORD-SHORT', 2);
    const last = all[all.length - 1]!.body;
    expect(last).toMatchObject({ order_status: 'paid', payment_status: 'unconfirmed' });
    expect((last.payment as { transactions: unknown[] }).transactions).toHaveLength(2);
    await mine();
    await expect.poll(() => hooksFor('ORD-SHORT').at(-1)?.body.payment_status, { timeout: 20_000 }).toBe('confirmed');
    expect(hooksFor('ORD-SHORT').at(-1)!.body.order_status).toBe('paid');
  });

  it('overpaying is paid_too_much', async () => {
    const apiId = await addSandboxWallet(t.app);
    const form = await createForm(apiId, { order_id: 'ORD-MORE' });
    await pay((await state(form.token)).address, '0.0006');
    const [h] = await waitHooks('ORD-MORE', 1);
    expect(h!.body).toMatchObject({ order_status: 'paid_too_much', payment_status: 'unconfirmed' });
    expect((await state(form.token)).phase).toBe('paid');
  });

  it('nothing paid by the end of the lock is failed, notified as final, and the page offers nothing to pay', async () => {
    const apiId = await addSandboxWallet(t.app);
    const form = await createForm(apiId, { order_id: 'ORD-NONE' });
    offset += 16 * MIN;
    await t.ctx.forms.tracker.sweep();
    const [h] = await waitHooks('ORD-NONE', 1);
    expect(h!.body).toMatchObject({ order_status: 'failed', payment_status: 'confirmed', triggers: ['status'] });
    expect((await state(form.token)).phase).toBe('expired');
    const qr = await fetch(`${origin}/form/${form.token}/qrcode`);
    expect(qr.status).toBe(400);

    // Funds that come anyway are valued at the spot rate when first seen, and recorded with it.
    await pay((await state(form.token)).address, '0.0005');
    const all = await waitHooks('ORD-NONE', 2);
    expect(all[1]!.body).toMatchObject({ order_status: 'paid', payment_status: 'unconfirmed', triggers: ['transaction', 'status'] });
    const rates = await t.ctx.db.kysely.selectFrom('order_output_rates').selectAll().where('order_kind', '=', 'form').execute();
    expect(rates.map((r) => [r.rate, r.source])).toContainEqual(['50000', 'spot']);
  });

  it('a double-spent payment goes back to waiting and the shop is told', async () => {
    const apiId = await addSandboxWallet(t.app);
    const form = await createForm(apiId, { order_id: 'ORD-DOUBLE' });
    const s = await state(form.token);
    const paid = await pay(s.address, s.crypto_amount_due);
    await waitHooks('ORD-DOUBLE', 1);
    expect((await state(form.token)).phase).toBe('paid');
    await node.replaceWithConflict(paid.txid);
    await t.ctx.chains.pollNow();
    const all = await waitHooks('ORD-DOUBLE', 2);
    expect(all[1]!.body).toMatchObject({ order_status: 'failed', payment_status: 'unconfirmed' });
    expect(all[1]!.body.triggers).toEqual(['withdrawn', 'status']);
    expect((all[1]!.body.payment as { transactions: unknown[] }).transactions).toEqual([]);
    expect((await state(form.token)).phase).toBe('pay');
  });

  it('replays an Idempotency-Key with the same answer, and refuses it with another body', async () => {
    const apiId = await addSandboxWallet(t.app);
    const a = await createForm(apiId, { order_id: 'ORD-IDEM' }, { 'idempotency-key': 'key-1' });
    const b = await createForm(apiId, { order_id: 'ORD-IDEM' }, { 'idempotency-key': 'key-1' });
    expect(b.replayed).toBe(true);
    expect(b.payment_page_url).toBe(a.payment_page_url);
    expect(b.auth_response_token).toBe(a.auth_response_token);
    const other = await getJson('/payment_form', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'key-1' },
      body: JSON.stringify({ api_id: apiId, order_id: 'OTHER', order_amount: 1, order_currency: 'USD', payment_cancel_url: 'https://a.example/', payment_complete_url: 'https://a.example/', payment_update_url: `${merchantUrl}/u`, site_name: 'S' }),
    });
    expect(other.return).toBe('201');
    expect(await t.ctx.db.kysely.selectFrom('payment_forms').select('id').where('order_id', '=', 'ORD-IDEM').execute()).toHaveLength(1);
  });

  it("a set_addr order notifies the wallet's return_url on payment and confirmation, and mails return_email", async () => {
    const apiId = await addSandboxWallet(t.app, { return_url: `${merchantUrl}/wallet-updates` });
    const res = await post('/set_addr', { api_id: apiId, return_email: 'buyer@example.com', client_txid: 'SETADDR-9' });
    expect(res.return, res.status).toBe('0');
    expect(typeof res.auth_response_token).toBe('string');
    const paid = await pay(res.addr as string, '0.001');
    const first = await waitHooks('SETADDR-9', 1);
    await mine();
    const both = await waitHooks('SETADDR-9', 2);
    expect(first[0]!.path).toBe('/wallet-updates');
    expect(both.map((h) => [h.body.payment_status, h.body.order_status])).toEqual([
      ['unconfirmed', 'paid'],
      ['confirmed', 'paid'],
    ]);
    const wallet = (await t.ctx.wallets.repo.findByApiId(apiId))!;
    const secret = (await currentWebhookSecret(t.ctx.db.kysely, t.masterKey, wallet.id))!;
    for (const h of both) {
      expect(h.body).toMatchObject({ auth_response_token: res.auth_response_token, response_auth_token: res.auth_response_token, api_id: apiId, source: 'set_addr' });
      // Signed at the service's clock, which this suite has moved forward.
      expect(verifyWebhookSignature(h.signature!, h.raw, secret, 300, Math.floor((Date.now() + offset) / 1000))).toBe(true);
    }
    expect(both[1]!.body.payment).toMatchObject({ address: res.addr, transactions: [{ txid: paid.txid, value: '0.001', confirmations: 1 }] });
    await expect.poll(() => smtp.mails.filter((m) => m.includes('buyer@example.com') && m.includes('SETADDR-9')).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    const mail = smtp.mails.find((m) => m.includes('buyer@example.com') && m.includes('confirmed'))!;
    expect(mail).toContain('Order SETADDR-9: paid');
    const byAddress = await runCli(['webhook', 'deliveries', res.addr as string, '--json'], t.testDb.env);
    const listed = JSON.parse(byAddress.stdout) as Array<{ kind: string }>;
    expect(listed.map((e) => e.kind).sort()).toEqual(['email', 'email', 'webhook', 'webhook']);
  });
});
