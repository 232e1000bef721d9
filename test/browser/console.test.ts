// The merchant console in Chromium, on the real service with a bcoin regtest node and real SMTP capture (issue 15,
// "Done means"): a merchant signs in with the code from the captured e-mail, creates a wallet and sees it, a payment
// is created from the command line (the operator's `satgate client create`, then operation 26 over HTTP), turns
// confirmed in the list without a reload, its detail shows transitions and deliveries, a webhook is redelivered, a
// refund of the overpaid part is requested and shows Processing after the payer sets an address. A form posted from
// another origin is refused; merchant B cannot open merchant A's payment by URL. A watch-only wallet's approved
// Greenfield payout is paid from the Payouts page at 360 px: the PSBT downloaded, a wrong text refused on the page,
// the signed PSBT uploaded as a file, broadcast. axe-core finds no serious
// violation on any page; every page is photographed at phone and desktop sizes under test-results/console/.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { signInCode, startSmtpCapture, type SmtpCapture } from '../support/smtp-capture.ts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { startRegtestNode, type RegtestNode } from '../support/regtest-node.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { eventually, freePort } from '../support/server-process.ts';
import { writeRatesFile } from '../support/rates-file.ts';
import { addressForPublicKey, decodeAddressFor } from '../../src/bitcoin/address.ts';
import { satsFromBtc } from '../../src/money/money.ts';
import { CONSOLE_CSP } from '../../src/console/console-headers.ts';
import { enqueueNotifications } from '../../src/notify/outbox.ts';
import { fitsWidth, launchChromium, markDocument, RESULTS_DIR, stillMarked, watchPage } from './chromium.ts';
import { Transaction } from '@scure/btc-signer';
import { accountNodeFromMnemonic, generateNewWallet } from '../../src/bitcoin/new-wallet.ts';
import { gf, greenfieldKey } from '../support/greenfield.ts';
import { payWallet } from '../support/refund-fixtures.ts';
import { login } from '../support/dashboard.ts';
import { POLICIES } from '../../src/greenfield/permissions.ts';

const run = promisify(execFile);
const SATGATE_BIN = fileURLToPath(new URL('../../bin/satgate.js', import.meta.url));
const SHOTS = join(RESULTS_DIR, 'console');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 900 };

let node: RegtestNode;
let t: TestApp;
let origin: string;
let browser: Browser;
let smtp: SmtpCapture;
let hooks: Server;
let hookUrl: string;
const hookAnswers: number[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  node = await startRegtestNode();
  smtp = await startSmtpCapture();
  // The shop's webhook receiver: fails the first delivery (HTTP 500), accepts every later one.
  hooks = createServer((req, res) => {
    req.resume();
    const status = hookAnswers.length === 0 ? 500 : 200;
    hookAnswers.push(status);
    res.writeHead(status).end();
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await createTestApp('sqlite', {
    env: {
      SATGATE_PUBLIC_URL: origin,
      SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: '46000.50' }),
      SATGATE_SMTP_URL: smtp.url,
      SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1',
      SATGATE_FALLBACK_FEE_RATE: '4',
      SATGATE_POLL_MS: '250',
      SATGATE_EXPLORER_TEST_URL: 'https://mempool.space/testnet4/tx/',
    },
    chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
    start: true,
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await node?.stop();
  await smtp?.close();
  await new Promise<void>((r) => (hooks ? hooks.close(() => r()) : r()));
});

/** The code of the newest login mail to `email` that arrived after `after` mails. */
async function mailedCode(email: string, after: number): Promise<string> {
  return eventually(async () => {
    for (const m of smtp.mails.slice(after).reverse()) {
      if (!m.toLowerCase().includes(`to: ${email}`)) continue;
      const code = signInCode(m);
      if (code) return code;
    }
    return undefined;
  }, 20_000, `a login mail to ${email}`);
}

/** Signs in through the pages with the mailed code. */
async function signIn(page: Page, email: string, shots = false): Promise<void> {
  await page.goto(`${origin}/console/`);
  expect(new URL(page.url()).pathname).toBe('/console/login');
  if (shots) await check(page, 'sign-in');
  const before = smtp.mails.length;
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send me a sign-in code' }).click();
  await page.waitForSelector('#otp');
  if (shots) await check(page, 'sign-in-code');
  await page.getByLabel('Sign-in code').fill(await mailedCode(email, before));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${origin}/console/wallets`);
}

/** axe-core on the page (zero serious or critical violations), then screenshots at desktop and phone sizes. */
async function check(page: Page, name: string): Promise<void> {
  // Through the DevTools protocol, which the page's CSP does not govern (the page itself runs no inline code).
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<{ id: string; impact: string; nodes: number; help: string }[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help })))",
  );
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'), `${name}: ${JSON.stringify(violations)}`).toEqual([]);
  // Lesser findings are reported, not failed on, so the closing note can list them.
  if (violations.length > 0) console.log(`axe on ${name}: ${violations.map((v) => `${v.id} (${v.impact}, ${v.nodes})`).join(', ')}`);
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  const wide = await page.evaluate<string[]>(
    "[document.documentElement.scrollWidth + '>' + window.innerWidth, ...[...document.querySelectorAll('body *')].map((el) => [el, el.getBoundingClientRect().right]).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([el, r]) => el.tagName + '.' + el.className + '@' + r)]",
  );
  expect(await fitsWidth(page), `${name} fits a phone: ${wide.join(', ')}`).toBe(true);
  await page.screenshot({ path: join(SHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

/** `satgate client create --json` against the test database, as the operator would run it. */
async function createClient(apiId: string): Promise<{ client_id: string; client_secret: string }> {
  const keyFile = join(mkdtempSync(join(tmpdir(), 'satgate-key-')), 'master.key');
  writeFileSync(keyFile, `${'07'.repeat(32)}\n`, { mode: 0o600 });
  const { stdout } = await run(process.execPath, [SATGATE_BIN, 'client', 'create', '--api-id', apiId, '--json'], {
    env: { ...process.env, ...t.testDb.env, SATGATE_MASTER_KEY_FILE: keyFile, LOG_LEVEL: 'silent' },
  });
  return JSON.parse(stdout) as { client_id: string; client_secret: string };
}

/** Operation 26 over HTTP with a client's token, as a shop's `curl` would. */
async function createPayment(apiId: string): Promise<{ payment_reference: string; crypto_address: string; crypto_amount: number }> {
  const client = await createClient(apiId);
  const token = (await fetch(`${origin}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
    body: 'grant_type=client_credentials',
  }).then((r) => r.json())) as { access_token: string };
  const res = await fetch(`${origin}/api/v1/payment/request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token.access_token}` },
    body: JSON.stringify({ type: 'custom', api_id: apiId, crypto_currency: 'testBTC', order_currency: 'USD', order_amount: 25, payer_id: 'payer@example.com', payer_ip: '203.0.113.7', notify_url: hookUrl }),
  });
  const body = await res.text();
  expect(res.status, body).toBe(200);
  return JSON.parse(body);
}

describe('the merchant console in Chromium', () => {
  it('signs in by mailed code, shows a wallet, follows a payment to confirmed without a reload, redelivers, and refunds', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const watch = await watchPage(page);

    const response = await page.goto(`${origin}/console/login`);
    expect(response!.headers()['content-security-policy']).toBe(CONSOLE_CSP);
    // Keyboard: the first Tab lands on the skip link, whose target is the main content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
    await signIn(page, 'merchant-a@shop.example', true);
    const cookie = (await context.cookies()).find((c) => c.name === 'satgate_console')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console/' });

    // A wallet held by the service (sandbox), created from the console, is listed with its balance.
    await page.getByRole('button', { name: 'Create a wallet held by the service' }).click();
    await page.waitForSelector('.flash.ok');
    const apiId = (await page.locator('.wallet code').first().innerText()).trim();
    expect(apiId).toMatch(/^test_[0-9a-f]{32}$/);
    expect(await page.locator('.wallet .btc').first().innerText()).toBe('0 testBTC');
    await check(page, 'wallets');
    const wallet = (await t.ctx.wallets.repo.findByApiId(apiId))!;
    await t.ctx.wallets.registration.repo.update(wallet.id, { account_name: 'Corner <Shop>' });

    // A payment from the command line; the list shows it unpaid, then confirmed without a reload.
    const payment = await createPayment(apiId);
    await page.goto(`${origin}/console/orders`);
    const row = page.locator('tr', { hasText: payment.payment_reference });
    expect(await row.locator('.badge').getAttribute('data-status')).toBe('unpaid');
    const mark = await markDocument(page);
    const overpaid = 10_000n;
    const due = satsFromBtc(String(payment.crypto_amount));
    const paid = await node.pay(decodeAddressFor(payment.crypto_address, 'regtest').script, due + overpaid);
    await page.waitForSelector(`tr:has-text("${payment.payment_reference}") .badge[data-status="unconfirmed-more"]`, { timeout: 30_000 });
    await node.mine(1);
    await page.waitForSelector(`tr:has-text("${payment.payment_reference}") .badge[data-status="confirmed-more"]`, { timeout: 30_000 });
    expect(await stillMarked(page, mark)).toBe(true);
    expect(await page.locator('#live-note').innerText()).toContain('confirmed-more');
    await check(page, 'payments');

    // The detail: transitions with causes, the transaction with its confirmation and explorer link, deliveries.
    await row.getByRole('link').click();
    await page.waitForSelector('#tr-h');
    const transitions = await page.locator('section:has(#tr-h) tbody tr').allInnerTexts();
    expect(transitions.length).toBeGreaterThanOrEqual(3);
    expect(transitions.at(-1)).toContain('confirmed-more');
    expect(await page.locator('.tx .confirmations').first().innerText()).toBe('1');
    expect(await page.locator(`.tx a[href="https://mempool.space/testnet4/tx/${paid.txid}"]`).count()).toBe(1);
    await eventually(async () => (hookAnswers.length >= 1 ? true : undefined), 20_000, 'the first webhook');
    await eventually(async () => {
      await page.reload();
      return (await page.locator('#deliveries').innerText()).includes('HTTP 500') ? true : undefined;
    }, 20_000, 'a failed attempt listed');
    await check(page, 'payment-detail');

    // Redeliver the failed event: it goes out again (the receiver now answers 200) and the attempt is listed.
    const failedRow = page.locator('#deliveries tr', { hasText: 'HTTP 500' }).first();
    await failedRow.getByRole('button', { name: /Redeliver/ }).click();
    await page.waitForSelector('.flash.ok');
    expect(await page.locator('.flash.ok').innerText()).toContain('queued again');
    await eventually(async () => {
      await page.reload();
      const text = await page.locator('#deliveries').innerText();
      return text.includes('HTTP 200') ? text : undefined;
    }, 20_000, 'the redelivered attempt');

    // A refund of the overpaid part (prefilled), then the payer sets an address and the refund is Processing.
    const amount = page.getByLabel(/Refund amount/).first();
    expect(await amount.inputValue()).toBe('0.0001');
    await page.getByRole('button', { name: 'Request refund' }).first().click();
    await page.waitForSelector('.flash.ok');
    const flash = await page.locator('.flash.ok').innerText();
    const token = /\/refund\/([A-Za-z0-9_-]+)/.exec(flash)![1]!;
    expect(await page.locator('.refunds .badge').first().getAttribute('data-status')).toBe('Scheduled');
    const to = addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');
    const set = (await fetch(`${origin}/set_refund_addr`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refund_form_token: token, refund_addr: to }) }).then((r) => r.json())) as { refund: { status: string } };
    expect(set.refund.status).toBe('Processing');
    await page.reload();
    expect(await page.locator('.refunds .badge').first().getAttribute('data-status')).toBe('Processing');
    await check(page, 'payment-detail-refunded');

    await page.goto(`${origin}/console/refunds`);
    expect(await page.locator('#refunds .badge').first().getAttribute('data-status')).toBe('Processing');
    await check(page, 'refunds');

    await page.goto(`${origin}/console/wallets/${apiId}`);
    expect(await page.locator('h1').innerText()).toBe('Corner <Shop>');
    expect(await page.locator('#received-chart rect.bar[height]:not([height="0"])').count()).toBe(1);
    // What came in (the refund's change back to the wallet is not income): 0.0006 testBTC, 30.00 USD at 50000.
    expect(await page.locator('.chart-data summary').innerText()).toContain('total 0.0006 BTC');
    expect(await page.locator('#chart-desc').textContent()).toContain('the highest was 30.00 USD');
    await check(page, 'wallet-chart');

    await page.goto(`${origin}/console/profile`);
    await page.getByLabel('First name').fill('Ada');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.waitForSelector('.flash.ok');
    expect(await page.locator('#logins').innerText()).toContain('Signed in');
    await check(page, 'profile');

    expect(watch.dialogs).toEqual([]);
    expect(await watch.cspViolations()).toEqual([]);
    expect(watch.errors).toEqual([]);

    // Sign out ends the session: the console asks to sign in again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/console/login`);
    await page.goto(`${origin}/console/orders`);
    expect(new URL(page.url()).pathname).toBe('/console/login');
    await context.close();
  });

  it('on a 360 px phone lays out the empty console with its add-wallet form, and a payment detail with several notifications as cards', async () => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await signIn(page, 'merchant-phone@shop.example');
    // The empty console explains how a wallet is attached and has the form right there, on screen.
    expect(await page.locator('#no-wallets').innerText()).toContain('is not attached by itself');
    expect(await page.locator('#no-wallets #pub').isVisible()).toBe(true);
    expect(await fitsWidth(page)).toBe(true);
    await check(page, 'wallets-empty');
    await page.setViewportSize(PHONE);

    await page.getByRole('button', { name: 'Create a wallet held by the service' }).click();
    await page.waitForSelector('.flash.ok');
    const apiId = (await page.locator('.wallet code').first().innerText()).trim();
    const payment = await createPayment(apiId);
    const row = await t.ctx.db.kysely.selectFrom('payments').select(['id', 'wallet_id']).where('reference', '=', payment.payment_reference).executeTakeFirstOrThrow();
    // A few deliveries to long webhook URLs and e-mail addresses, each with failed attempts, and long causes.
    const targets = [
      'https://notifications.a-rather-long-shop-domain-name.example/webhooks/satgate/payment-updates?store=12345&secret=abcdef',
      'https://hooks.another-long-subdomain.shop.example/api/v2/bitcoin/payments/notify',
      'accounts-receivable.department@a-rather-long-shop-domain-name.example',
    ];
    const now = Date.now();
    await t.ctx.db.kysely.transaction().execute((trx) =>
      enqueueNotifications(
        trx,
        targets.map((target) => ({ kind: target.includes('@') ? ('email' as const) : ('webhook' as const), target, walletId: row.wallet_id, paymentId: row.id, payload: { status: 'unpaid' } })),
        now + 3_600_000,
      ),
    );
    const events = await t.ctx.db.kysely.selectFrom('outbox').select('id').where('payment_id', '=', row.id).where('target', 'in', targets).execute();
    // What receivers answer: an error status, a connection that never came, a mail server's refusal; a few tries each.
    const answers = [
      { http_status: 502n, error: 'HTTP 502', tries: 3 },
      { http_status: null, error: 'connect ETIMEDOUT 203.0.113.9:443', tries: 3 },
      { http_status: null, error: '421 4.7.0 Try again later, closing connection', tries: 2 },
    ];
    for (const [i, event] of events.entries()) {
      const { tries, ...answer } = answers[i % answers.length]!;
      await t.ctx.db.kysely.updateTable('outbox').set({ state: 'failed', attempts: BigInt(tries) }).where('id', '=', event.id).execute();
      for (let attempt = 1n; attempt <= BigInt(tries); attempt++) {
        await t.ctx.db.kysely.insertInto('outbox_attempts').values({ outbox_id: event.id, attempt, at: BigInt(now), ...answer, duration_ms: 40n }).execute();
      }
    }
    await t.ctx.db.kysely
      .insertInto('payment_transitions')
      .values({ payment_id: row.id, from_status: 'unpaid', to_status: 'expired', cause: 'expired_without_any_payment_after_the_rate_lock', at: BigInt(now) })
      .execute();

    await page.setViewportSize(PHONE);
    await page.goto(`${origin}/console/orders/payment/${row.id}`);
    await page.waitForSelector('#deliveries');
    expect(await fitsWidth(page)).toBe(true);
    const height = await page.evaluate<number>('document.documentElement.scrollHeight');
    // Cards, not a table squeezed sideways: the page stays short. (2160: nine sections in the nav (Point of sale and
    // Payouts joined them) wrap it to two more rows on a phone than before.)
    expect(height, 'the detail page height at 360 px').toBeLessThan(2160);
    const inView = (selector: string) =>
      page.evaluate<boolean>(
        `(() => { const els = [...document.querySelectorAll(${JSON.stringify(selector)})]; return els.length > 0 && els.every((el) => { const r = el.getBoundingClientRect(); return r.width > 40 && r.height > 0 && r.left >= 0 && r.right <= window.innerWidth; }); })()`,
      );
    expect(await inView('#transitions td.cause'), 'every cause on screen').toBe(true);
    expect(await inView('#deliveries td.attempts-cell'), 'every attempts list on screen').toBe(true);
    expect(await page.locator('#transitions td.cause').last().innerText()).toContain('expired without any payment');
    expect(await page.locator('#deliveries').innerText()).toContain('HTTP 502');
    await check(page, 'payment-detail-deliveries');
    await context.close();
  });

  it("refuses a form posted from another origin, and merchant B gets 404 for merchant A's payment", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await signIn(page, 'merchant-c@shop.example');
    await page.getByRole('button', { name: 'Create a wallet held by the service' }).click();
    await page.waitForSelector('.flash.ok');
    const apiId = (await page.locator('.wallet code').first().innerText()).trim();
    const payment = await createPayment(apiId);
    const id = (await t.ctx.db.kysely.selectFrom('payments').select('id').where('reference', '=', payment.payment_reference).executeTakeFirstOrThrow()).id;
    await page.goto(`${origin}/console/orders/payment/${id}`);
    expect(await page.locator('#sum-h').innerText()).toContain(payment.payment_reference);

    // Another origin (localhost is another site than 127.0.0.1) serves a form aimed at the console.
    const evil = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(
        `<form method="post" action="${origin}/console/wallets/${apiId}"><input name="account_name" value="Hijacked"><input name="csrf" value="guess"><button id="go">Win a prize</button></form>`,
      );
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    try {
      const evilPage = await context.newPage();
      await evilPage.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      const [answer] = await Promise.all([evilPage.waitForResponse((r) => r.url().startsWith(`${origin}/console/wallets/`)), evilPage.click('#go')]);
      expect(answer.status()).toBe(403);
      expect((await t.ctx.wallets.repo.findByApiId(apiId))!.account_name).toBeNull();
    } finally {
      await new Promise<void>((r) => evil.close(() => r()));
    }

    // Merchant B, signed in on another browser, opens A's payment by URL: 404, nothing of it shown.
    const other = await browser.newContext({ viewport: DESKTOP });
    const b = await other.newPage();
    await signIn(b, 'merchant-b@shop.example');
    const res = await b.goto(`${origin}/console/orders/payment/${id}`);
    expect(res!.status()).toBe(404);
    expect(await b.content()).not.toContain(payment.payment_reference);
    await check(b, 'not-found');
    await other.close();
    await context.close();
  });

  it('pays a watch-only wallet’s approved payouts: downloads the PSBT, uploads the signed file, broadcasts', async () => {
    const context = await browser.newContext({ viewport: PHONE, acceptDownloads: true });
    // A new merchant, signed in through the API (the pages' sign-in is walked through above).
    const token = await login(t.app, t.ctx.db, 'merchant-payouts@shop.example', {}, '198.51.100.7');
    await context.addCookies([{ name: 'satgate_console', value: token, url: `${origin}/console/` }]);
    const page = await context.newPage();
    await page.goto(`${origin}/console/wallets`);
    const { mnemonic, accountKey } = generateNewWallet(true);
    await page.getByLabel(/Extended public key/).fill(accountKey);
    await page.getByRole('button', { name: 'Add wallet' }).click();
    await page.waitForSelector('.flash.ok');
    const wallet = (await t.ctx.wallets.repo.findByPub(accountKey))!;
    await payWallet(t.ctx, node, wallet, [400_000n]);
    const key = await greenfieldKey(t.ctx, wallet.api_id, [POLICIES.managePullPayments]);
    const pull = (await gf(t.app, key, 'POST', `/api/v1/stores/${wallet.api_id}/pull-payments`, { name: 'Affiliates', amount: '0.01', currency: 'BTC' })).json() as { id: string };
    const to = addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');
    const payout = (await gf(t.app, null, 'POST', `/api/v1/pull-payments/${pull.id}/payouts`, { destination: to, amount: '0.0012', payoutMethodId: 'BTC-CHAIN' })).json() as { id: string };
    expect((await gf(t.app, key, 'POST', `/api/v1/payouts/${payout.id}`, { revision: 0 })).statusCode).toBe(200);

    await page.getByRole('link', { name: 'Payouts' }).click();
    await page.waitForSelector(`tr[data-payout="${payout.id}"]`);
    expect(await page.locator(`tr[data-payout="${payout.id}"]`).innerText()).toContain('0.0012 testBTC');
    expect(await fitsWidth(page)).toBe(true);
    await check(page, 'payouts');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download PSBT' }).click()]);
    expect(download.suggestedFilename()).toBe(`payouts-${wallet.api_id}.psbt`);
    const unsigned = readFileSync((await download.path())!);
    const account = accountNodeFromMnemonic(mnemonic, true);
    const tx = Transaction.fromPSBT(unsigned, { allowLegacyWitnessUtxo: true });
    for (let i = 0; i < tx.inputsLength; i++) {
      const path = tx.getInput(i).bip32Derivation![0]![1].path;
      tx.signIdx(account.deriveChild(path.at(-2)!).deriveChild(path.at(-1)!).privateKey!, i);
    }
    // A wrong text first: refused on the page with its reason, the payout still listed.
    await page.getByLabel(/^Signed PSBT \(base64/).fill('not a psbt');
    await page.getByRole('button', { name: 'Check and broadcast' }).click();
    await page.waitForSelector('.flash.error');
    expect(await page.locator(`tr[data-payout="${payout.id}"]`).count()).toBe(1);
    await check(page, 'payouts-refused');
    // The signed PSBT as a binary file: console.js fills the box with its base64.
    await page.setInputFiles('#payout-file-0', { name: 'signed.psbt', mimeType: 'application/octet-stream', buffer: Buffer.from(tx.toPSBT(0)) });
    await eventually(async () => ((await page.locator('#payout-signed-0').inputValue()).startsWith('cHNidP') ? true : undefined), 5_000, 'the box filled from the file');
    await page.getByRole('button', { name: 'Check and broadcast' }).click();
    await page.waitForSelector('.flash.ok');
    expect(await page.locator('.flash.ok').innerText()).toContain('Signed payout transaction checked and broadcast.');
    expect(await page.locator(`tr[data-payout="${payout.id}"]`).count()).toBe(0);
    expect(((await gf(t.app, key, 'GET', `/api/v1/payouts/${payout.id}`)).json() as { state: string }).state).toBe('InProgress');
    await context.close();
  });
});
