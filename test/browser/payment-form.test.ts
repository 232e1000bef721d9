// The payment form page end to end in Chromium on the real service and a regtest node, on a phone-sized
// and a desktop viewport at once: required fields enforced in the browser, fields submitted, address and
// QR code shown (the QR read back with jsQR, and zbarimg when installed), paid without a reload, then sent to payment_complete_url.
// And merchant strings that look like markup render as text. Screenshots of each step go to test-results/.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startRegtestNode, type RegtestNode } from '../support/regtest-node.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { freePort } from '../support/server-process.ts';
import { writeRatesFile } from '../support/rates-file.ts';
import { addSandboxWallet } from '../support/payment-api.ts';
import { decodeQrJs, decodeQrZbar } from '../support/qr-decode.ts';
import { onPath } from '../support/system-tools.ts';
import { decodeAddress } from '../../src/bitcoin/address.ts';
import { satsFromBtc } from '../../src/money/money.ts';
import { PAGE_CSP } from '../../src/pages/page-headers.ts';
import { fitsWidth, launchChromium, loadedImageWidth, markDocument, RESULTS_DIR, stillMarked, watchPage, type PageWatch } from './chromium.ts';

const XSS = '<img src=x onerror=alert(1)>';

let node: RegtestNode;
let t: TestApp;
let origin: string;
let browser: Browser;
let shop: Server;
let shopUrl: string;
// The service's clock runs this far ahead of the wall clock (moved to pass a form's rate lock).
let clockOffsetMs = 0;
const updates: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  node = await startRegtestNode();
  shop = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      if (req.method === 'POST') {
        updates.push(JSON.parse(raw) as Record<string, unknown>);
        res.writeHead(200).end('ok');
      } else {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Thanks</title><h1 id="thanks">Thank you for your order</h1>');
      }
    });
  });
  await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await createTestApp('sqlite', {
    env: { SATGATE_PUBLIC_URL: origin, SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1' },
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
  await new Promise((r) => shop?.close(r));
});

async function createForm(body: Record<string, unknown>): Promise<string> {
  const apiId = await addSandboxWallet(t.app);
  const res = await fetch(`${origin}/payment_form`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      api_id: apiId,
      order_amount: 25,
      order_currency: 'USD',
      payment_cancel_url: `${shopUrl}/cart`,
      payment_complete_url: `${shopUrl}/thanks?order=42`,
      payment_update_url: `${shopUrl}/updates`,
      ...body,
    }),
  });
  const answer = (await res.json()) as { return: string; status: string; payment_page_url: string };
  expect(answer.return, answer.status).toBe('0');
  return answer.payment_page_url;
}

interface Viewer {
  name: string;
  context: BrowserContext;
  page: Page;
  watch: PageWatch;
}

async function open(name: string, url: string, phone: boolean): Promise<Viewer> {
  const context = await browser.newContext(
    phone ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 900 } },
  );
  const page = await context.newPage();
  const watch = await watchPage(page);
  const res = await page.goto(url);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toBe(PAGE_CSP);
  await page.waitForSelector('html[data-page-ready="true"]');
  return { name, context, page, watch };
}

const phase = (v: Viewer) => v.page.locator('#form').getAttribute('data-phase');
const shot = (v: Viewer, step: string) => v.page.screenshot({ path: join(RESULTS_DIR, `payment-form-${step}-${v.name}.png`), fullPage: true });

describe('payment form page in Chromium, on the real service and a regtest node', () => {
  it('enforces required fields, takes them, shows address and QR, turns paid without reload and redirects to the shop', async () => {
    const url = await createForm({
      order_id: 'WEB-1',
      user_email: 'payer@example.com',
      site_name: 'Corner Shop',
      user_fields: [
        { name: 'full_name', display_name: 'Full name', required: 1, type: 'text' },
        { name: 'delivery', display_name: 'Delivery address', required: 1, type: 'textarea' },
        { name: 'note', display_name: 'Note for the shop', required: 0, type: 'text' },
      ],
    });
    const desktop = await open('desktop', url, false);
    const phone = await open('phone', url, true);
    const viewers = [desktop, phone];
    for (const v of viewers) {
      expect(await phase(v)).toBe('fields');
      expect(await v.page.locator('label[for="field-note"]').innerText()).toBe('(Optional) Note for the shop');
      expect(await v.page.locator('label[for="field-full_name"]').innerText()).toBe('Full name');
      expect(await v.page.locator('#pay').isVisible()).toBe(false);
      await shot(v, '1-fields');
      // Submitting with the required fields empty goes nowhere: the browser stops it.
      await v.page.locator('#fields-submit').click();
      expect(await v.page.evaluate<boolean>('document.getElementById("field-full_name").matches(":invalid")')).toBe(true);
      expect(await phase(v)).toBe('fields');
      await shot(v, '2-required-refused');
    }
    const stored = await t.ctx.db.kysely.selectFrom('payment_forms').select('fields_submitted_at').where('order_id', '=', 'WEB-1').executeTakeFirstOrThrow();
    expect(stored.fields_submitted_at).toBeNull();
    expect(await fitsWidth(phone.page)).toBe(true);

    const mark = await markDocument(desktop.page);
    await desktop.page.fill('#field-full_name', 'Grace Hopper');
    await desktop.page.fill('#field-delivery', '1 Navy Way\nArlington');
    await desktop.page.locator('#fields-submit').click();
    for (const v of viewers) {
      await expect.poll(() => phase(v), { timeout: 15_000 }).toBe('pay');
      expect(await loadedImageWidth(v.page, 'qr-image')).toBeGreaterThan(0);
      await shot(v, '3-pay');
    }
    const address = await desktop.page.locator('#crypto-address').innerText();
    const amount = await desktop.page.locator('#crypto-amount').innerText();
    expect(amount).toBe('0.0005');
    expect(address).toMatch(/^bcrt1/);
    // The QR code as the browser shows it, read back by jsQR (pure JavaScript) and, when installed, by zbarimg.
    const qrPng = await desktop.page.locator('#qr-image').screenshot({ path: join(RESULTS_DIR, 'payment-form-qr-desktop.png') });
    expect(decodeQrJs(qrPng)).toBe(`bitcoin:${address}?amount=${amount}`);
    if (onPath('zbarimg')) expect(decodeQrZbar(qrPng)).toBe(`bitcoin:${address}?amount=${amount}`);
    expect(await fitsWidth(phone.page)).toBe(true);

    await node.pay(decodeAddress(address).script, satsFromBtc(amount));
    await t.ctx.chains.pollNow();
    for (const v of viewers) {
      await expect.poll(() => phase(v), { timeout: 15_000 }).toBe('paid');
      expect(await v.page.locator('#status-headline').innerText()).toBe('Paid: thank you');
      expect(await v.page.locator('#complete-link').getAttribute('href')).toBe(`${shopUrl}/thanks?order=42`);
      expect(await v.page.locator('#pay').isVisible()).toBe(false);
      await shot(v, '4-paid');
    }
    expect(await stillMarked(desktop.page, mark)).toBe(true);
    // Then the page sends the payer back to the shop by itself.
    for (const v of viewers) {
      await v.page.waitForURL(`${shopUrl}/thanks?order=42`, { timeout: 15_000 });
      await shot(v, '5-redirected');
    }
    await expect.poll(() => updates.filter((u) => u.order_id === 'WEB-1').length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    const update = updates.find((u) => u.order_id === 'WEB-1')!;
    expect(update).toMatchObject({ order_status: 'paid', payment_status: 'unconfirmed' });
    expect(update.user_fields).toEqual([
      { name: 'full_name', display_name: 'Full name', required: 1, type: 'text', value: 'Grace Hopper' },
      { name: 'delivery', display_name: 'Delivery address', required: 1, type: 'textarea', value: '1 Navy Way\nArlington' },
      { name: 'note', display_name: 'Note for the shop', required: 0, type: 'text', value: '' },
    ]);
    for (const v of viewers) {
      expect(v.watch.dialogs).toEqual([]);
      expect(v.watch.errors).toEqual([]);
      await v.context.close();
    }
  });

  it('renders merchant strings that look like markup as text, with no dialog', async () => {
    const url = await createForm({
      order_id: XSS,
      site_name: XSS,
      user_fields: [
        { name: 'who', display_name: XSS, required: 1, type: 'text', value: XSS },
        { name: 'extra', display_name: XSS, required: 0, type: 'textarea', value: `</textarea>${XSS}` },
      ],
    });
    for (const phone of [false, true]) {
      const v = await open(phone ? 'phone' : 'desktop', url, phone);
      expect(await v.page.locator('#site-name').innerText()).toBe(XSS);
      expect(await v.page.locator('#order-id').innerText()).toBe(XSS);
      expect(await v.page.locator('label[for="field-who"]').innerText()).toBe(XSS);
      expect(await v.page.locator('label[for="field-extra"]').innerText()).toBe(`(Optional) ${XSS}`);
      expect(await v.page.inputValue('#field-who')).toBe(XSS);
      expect(await v.page.inputValue('#field-extra')).toBe(`</textarea>${XSS}`);
      // The user_email input is asked for because the shop gave none.
      expect(await v.page.locator('#user-email').isVisible()).toBe(true);
      expect(await v.page.locator('main img').count()).toBe(0);
      await v.page.waitForTimeout(300);
      expect(v.watch.dialogs).toEqual([]);
      expect(await v.watch.cspViolations()).toEqual([]);
      await shot(v, 'xss');
      await v.context.close();
    }
  });

  it('offers "E-mail me a receipt" beside the e-mail field, unchecked, and stores the payer\'s consent with the order only when ticked', async () => {
    const formUrl = await createForm({ order_id: 'WEB-RECEIPT', site_name: 'Corner Shop', user_fields: [{ name: 'full_name', display_name: 'Full name', required: 1, type: 'text' }] });
    const v = await open('desktop', formUrl, false);
    const box = v.page.getByLabel('E-mail me a receipt');
    expect(await box.isVisible()).toBe(true);
    expect(await box.isChecked()).toBe(false);
    // It sits with the e-mail field: the next control after it.
    expect(await v.page.locator('#user-email').evaluate((el) => el.closest('div')?.nextElementSibling?.querySelector('input')?.id)).toBe('receipt-consent');
    await v.page.fill('#field-full_name', 'Ada Lovelace');
    await v.page.fill('#user-email', 'ada@example.com');
    await box.check();
    await v.page.getByRole('button', { name: 'Continue to payment' }).click();
    await expect.poll(() => phase(v)).toBe('pay');
    const row = await t.ctx.db.kysely.selectFrom('payment_forms').select(['receipt_requested_at', 'user_email']).where('order_id', '=', 'WEB-RECEIPT').executeTakeFirstOrThrow();
    expect(row.user_email).toBe('ada@example.com');
    expect(row.receipt_requested_at).not.toBeNull();
    expect(v.watch.errors).toEqual([]);
    await v.context.close();

    const plainUrl = await createForm({ order_id: 'WEB-NORECEIPT', site_name: 'Corner Shop' });
    const w = await open('desktop', plainUrl, false);
    await w.page.fill('#user-email', 'grace@example.com');
    await w.page.getByRole('button', { name: 'Continue to payment' }).click();
    await expect.poll(() => phase(w)).toBe('pay');
    const other = await t.ctx.db.kysely.selectFrom('payment_forms').select('receipt_requested_at').where('order_id', '=', 'WEB-NORECEIPT').executeTakeFirstOrThrow();
    expect(other.receipt_requested_at).toBeNull();
    await w.context.close();
  });

  it('partly paid: shows what is still due; after expiry a refresh re-prices it and a second payment completes the order', async () => {
    const url = await createForm({ order_id: 'WEB-PART', user_email: 'payer@example.com', site_name: 'Corner Shop' });
    const desktop = await open('desktop', url, false);
    const phone = await open('phone', url, true);
    const viewers = [desktop, phone];
    const address = await desktop.page.locator('#crypto-address').innerText();
    await node.pay(decodeAddress(address).script, satsFromBtc('0.0002')); // 10 of 25 USD
    await t.ctx.chains.pollNow();
    for (const v of viewers) {
      await expect.poll(() => phase(v), { timeout: 15_000 }).toBe('partly');
      expect(await v.page.locator('#status-detail').innerText()).toContain('Still missing: 15.00 USD');
      expect(await v.page.locator('#amount-label').innerText()).toBe('Remaining amount to send');
      expect(await v.page.locator('#crypto-amount').innerText()).toBe('0.0003');
      await shot(v, 'partly-paid');
    }
    clockOffsetMs += 16 * 60_000;
    try {
      for (const v of viewers) {
        await expect.poll(() => phase(v), { timeout: 15_000 }).toBe('partly-expired');
        expect(await v.page.locator('#refresh-button').isVisible()).toBe(true);
        expect(await v.page.locator('#pay').isVisible()).toBe(false);
        await shot(v, 'partly-expired');
      }
      await phone.page.locator('#refresh-button').click();
      for (const v of viewers) {
        await expect.poll(() => phase(v), { timeout: 15_000 }).toBe('partly');
        expect(await v.page.locator('#crypto-amount').innerText()).toBe('0.0003');
        expect(await loadedImageWidth(v.page, 'qr-image')).toBeGreaterThan(0);
        await shot(v, 'refreshed');
      }
      await node.pay(decodeAddress(address).script, satsFromBtc('0.0003'));
      await t.ctx.chains.pollNow();
      for (const v of viewers) await expect.poll(() => phase(v), { timeout: 15_000 }).toBe('paid');
      for (const v of viewers) {
        expect(v.watch.errors).toEqual([]);
        await v.context.close();
      }
    } finally {
      clockOffsetMs -= 16 * 60_000;
    }
  });

  it('expired with nothing paid: says so and offers nothing to pay', async () => {
    const url = await createForm({ order_id: 'WEB-LATE', user_email: 'payer@example.com', site_name: 'Corner Shop' });
    clockOffsetMs += 16 * 60_000;
    try {
      for (const isPhone of [false, true]) {
        const v = await open(isPhone ? 'phone' : 'desktop', url, isPhone);
        expect(await phase(v)).toBe('expired');
        expect(await v.page.locator('#status-headline').innerText()).toBe('This payment form has expired');
        expect(await v.page.locator('#pay').isVisible()).toBe(false);
        expect(await v.page.locator('#refresh-button').isVisible()).toBe(false);
        expect(await v.page.locator('#qr-image').count()).toBe(0);
        expect(await v.page.locator('#cancel-link').getAttribute('href')).toBe(`${shopUrl}/cart`);
        await shot(v, 'expired');
        await v.context.close();
      }
    } finally {
      clockOffsetMs -= 16 * 60_000;
    }
  });

  it('an unknown form token shows the not-found page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const res = await page.goto(`${origin}/form/NO-SUCH-FORM`);
    expect(res?.status()).toBe(404);
    expect(await page.locator('h1').innerText()).toBe('Payment form not found');
    await context.close();
  });
});
