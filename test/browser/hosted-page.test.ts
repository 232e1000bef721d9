// The hosted payment page end to end: the real service on a real port with a bcoin regtest node,
// a hosted payment created through OAuth and operation 26, opened in Chromium, paid from the
// regtest payer, and followed to confirmed without a reload. Screenshots go to test-results/.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { startRegtestNode, type RegtestNode } from '../support/regtest-node.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { freePort } from '../support/server-process.ts';
import { writeRatesFile } from '../support/rates-file.ts';
import { generateNewWallet } from '../../src/bitcoin/new-wallet.ts';
import { decodeAddress } from '../../src/bitcoin/address.ts';
import { btcFromSats, satsFromBtc } from '../../src/money/money.ts';
import { normalizeDecimal } from '../../src/money/decimal.ts';
import { isJsonObject, numericText, parseExactJson } from '../../src/money/exact-json.ts';
import { PAGE_CSP } from '../../src/pages/page-headers.ts';
import { fitsWidth, launchChromium, loadedImageWidth, markDocument, RESULTS_DIR, stillMarked, watchPage } from './chromium.ts';

const run = promisify(execFile);
const SATGATE_BIN = fileURLToPath(new URL('../../bin/satgate.js', import.meta.url));
const SITE_NAME = '<script>alert(1)</script>';

let node: RegtestNode;
let t: TestApp;
let origin: string;
let browser: Browser;
// The service's clock runs this far ahead of the wall clock (moved to pass a payment's expiry).
let clockOffsetMs = 0;

beforeAll(async () => {
  node = await startRegtestNode();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await createTestApp('sqlite', {
    env: { SATGATE_PUBLIC_URL: origin, SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }) },
    chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
    clock: () => Date.now() + clockOffsetMs,
    start: true,
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await node?.stop();
});

/** `satgate client create --json` against the test database, as the operator would run it. */
async function createClient(apiId: string): Promise<{ client_id: string; client_secret: string }> {
  const keyFile = join(mkdtempSync(join(tmpdir(), 'satgate-key-')), 'master.key');
  // The bytes of TEST_MASTER_KEY (32 times 0x07), so the CLI seals secrets as the test app reads them.
  writeFileSync(keyFile, `${'07'.repeat(32)}\n`, { mode: 0o600 });
  const { stdout } = await run(process.execPath, [SATGATE_BIN, 'client', 'create', '--api-id', apiId, '--json'], {
    env: { ...process.env, ...t.testDb.env, SATGATE_MASTER_KEY_FILE: keyFile, LOG_LEVEL: 'silent' },
  });
  return JSON.parse(stdout) as { client_id: string; client_secret: string };
}

async function createHostedPayment(): Promise<{ reference: string; hostedUrl: string; address: string; cryptoAmount: string }> {
  const wallet = await fetch(`${origin}/add_pub`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pub: generateNewWallet(true).accountKey, account_name: SITE_NAME }),
  }).then((r) => r.json() as Promise<{ return: string; api_id: string }>);
  expect(wallet.return).toBe('0');

  const client = await createClient(wallet.api_id);
  const token = await fetch(`${origin}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  expect(token.access_token).toBeTruthy();

  const res = await fetch(`${origin}/api/v1/payment/request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token.access_token}` },
    body: JSON.stringify({
      type: 'hosted',
      api_id: wallet.api_id,
      crypto_currency: 'testBTC',
      order_currency: 'USD',
      order_amount: 25,
      payer_id: 'payer@example.com',
      success_url: 'https://shop.example/thanks?order=17',
      cancel_url: 'https://shop.example/cart',
    }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const body = parseExactJson(text);
  if (!isJsonObject(body)) throw new Error(`not a payment record: ${text}`);
  return {
    reference: String(body.payment_reference),
    hostedUrl: String(body.hosted_url),
    address: String(body.crypto_address),
    cryptoAmount: numericText(body.crypto_amount) ?? '',
  };
}

const text = (page: Page, selector: string) => page.locator(selector).innerText();

describe('hosted payment page in Chromium, on the real service and a regtest node', () => {
  it('shows the amount and QR code, renders the site name as text, and turns to paid without a reload', async () => {
    const payment = await createHostedPayment();
    expect(payment.hostedUrl).toBe(`${origin}/pay/${encodeURIComponent(payment.reference)}`);
    expect(payment.cryptoAmount).toBe('0.0005'); // 25 USD at 50000 USD/BTC

    const context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
    const page = await context.newPage();
    const watch = await watchPage(page);
    const response = await page.goto(payment.hostedUrl);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toBe(PAGE_CSP);
    await page.waitForSelector('html[data-page-ready="true"]');

    expect(await text(page, '#site-name')).toBe(SITE_NAME);
    expect(await page.locator('script').count()).toBe(2); // the page script and its JSON data block
    expect(normalizeDecimal(await text(page, '#order-amount'))).toBe('25');
    expect(await text(page, '#order-currency')).toBe('USD');
    expect(await text(page, '#crypto-amount')).toBe(btcFromSats(satsFromBtc(payment.cryptoAmount)).padEnd(10, '0'));
    expect(await text(page, '#crypto-address')).toBe(payment.address);
    expect(await loadedImageWidth(page, 'qr-image')).toBeGreaterThan(0);
    expect(await text(page, '#status-headline')).toBe('Waiting for your payment');
    await page.screenshot({ path: join(RESULTS_DIR, 'hosted-page-before-payment.png'), fullPage: true });

    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const phonePage = await phone.newPage();
    await phonePage.goto(payment.hostedUrl);
    await phonePage.waitForSelector('html[data-page-ready="true"]');
    expect(await loadedImageWidth(phonePage, 'qr-image')).toBeGreaterThan(0);
    expect(await fitsWidth(phonePage)).toBe(true);
    await phonePage.screenshot({ path: join(RESULTS_DIR, 'hosted-page-phone.png'), fullPage: true });
    await phone.close();

    const mark = await markDocument(page);
    await node.pay(decodeAddress(payment.address).script, satsFromBtc(payment.cryptoAmount));
    await t.ctx.chains.pollNow();
    await expect.poll(() => page.locator('#payment').getAttribute('data-status'), { timeout: 30_000 }).toBe('unconfirmed');
    expect(await text(page, '#status-headline')).toBe('Paid: waiting for confirmation');

    await node.mine(1);
    await t.ctx.chains.pollNow();
    await expect.poll(() => page.locator('#payment').getAttribute('data-status'), { timeout: 30_000 }).toBe('confirmed');
    expect(await text(page, '#status-headline')).toBe('Paid: payment confirmed');
    expect(await page.locator('#success-link').isVisible()).toBe(true);
    expect(await page.locator('#success-link').getAttribute('href')).toBe('https://shop.example/thanks?order=17');
    expect(await page.locator('#pay').isVisible()).toBe(false);
    expect(await stillMarked(page, mark)).toBe(true);
    await page.screenshot({ path: join(RESULTS_DIR, 'hosted-page-after-payment.png'), fullPage: true });

    expect(watch.dialogs).toEqual([]);
    expect(watch.errors).toEqual([]);
    expect(await watch.cspViolations()).toEqual([]);
    await context.close();
  });

  it('after expiry with nothing paid, offers the indicative amount of operation 29 and hides the QR code', async () => {
    const payment = await createHostedPayment();
    clockOffsetMs = 16 * 60_000; // past the 900 s rate lock
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      const watch = await watchPage(page);
      await page.goto(payment.hostedUrl);
      await page.waitForSelector('html[data-page-ready="true"]');
      expect(await text(page, '#status-headline')).toBe('The guaranteed amount has expired');
      await expect.poll(() => text(page, '#indicative'), { timeout: 10_000 }).toContain('rate of 50000 USD per testBTC');
      expect(await text(page, '#indicative')).toContain('indicative, not guaranteed');
      expect(await text(page, '#amount-label')).toBe('Indicative amount to send');
      expect(await text(page, '#crypto-amount')).toBe('0.00050000'); // 25 USD at 50000 USD/BTC, rounded up
      expect(await page.locator('#qr').isVisible()).toBe(false);
      await page.screenshot({ path: join(RESULTS_DIR, 'hosted-page-expired.png'), fullPage: true });
      expect(watch.errors).toEqual([]);
      await context.close();
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('an unknown reference shows the not-found page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const res = await page.goto(`${origin}/pay/NO-SUCH-PAYMENT`);
    expect(res?.status()).toBe(404);
    expect(await page.locator('h1').innerText()).toBe('Payment not found');
    await context.close();
  });
});
