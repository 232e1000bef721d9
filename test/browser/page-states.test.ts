// The hosted page's own behaviour in Chromium, against a contract stub of operations 27-29
// (INTERFACE.md 2.11 and 4.4 shapes, numbers as JSON numbers) whose answers the test sets:
// every status, expiry with an indicative amount, copy buttons, the strict CSP, a phone screen.
// hosted-page.test.ts drives the same page end to end on the real service.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { pageRoutes } from '../../src/pages/routes.ts';
import type { PaymentPageData } from '../../src/pages/payment-page.ts';
import { paymentUri, renderQrPng } from '../../src/payments/qr-code.ts';
import { fitsWidth, launchChromium, loadedImageWidth, markDocument, RESULTS_DIR, stillMarked, watchPage, type PageWatch } from './chromium.ts';

const ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const payments = new Map<string, PaymentPageData>();
let rate = '60000.00';
let app: FastifyInstance;
let origin: string;
let browser: Browser;

function payment(reference: string, over: Partial<PaymentPageData> = {}): PaymentPageData {
  const p: PaymentPageData = {
    reference,
    site_name: 'Corner <b>Shop</b>',
    order_amount: '25.00',
    order_currency: 'USD',
    crypto_amount: '0.0005',
    crypto_address: ADDRESS,
    crypto_currency: 'testBTC',
    expiry_date: new Date(Date.now() + 900_000).toISOString(),
    status: 'unpaid',
    success_url: 'https://shop.example/thanks',
    cancel_url: 'https://shop.example/cart',
    amounts: { unconfirmed_crypto_amount: '0', confirmed_crypto_amount: '0', unconfirmed_order_amount: '0', confirmed_order_amount: '0' },
    ...over,
  };
  payments.set(reference, p);
  return p;
}

/** Operation 27's body for a stored payment: amounts as JSON numbers, in both spellings. */
function statusBody(p: PaymentPageData): string {
  const n = (v: string) => `#num#${v}`;
  const body: Record<string, unknown> = {
    payment_reference: p.reference,
    crypto_currency: p.crypto_currency,
    crypto_address: p.crypto_address,
    crypto_amount: n(p.crypto_amount),
    order_currency: p.order_currency,
    order_amount: n(p.order_amount),
    exchange_rate: n('50000'),
    expiry_date: p.expiry_date,
    status: p.status,
    status_date: new Date().toISOString(),
    site_name: p.site_name,
  };
  for (const [k, v] of Object.entries(p.amounts)) {
    body[k] = n(v);
    body[k.replace(/_amount$/, '_amt')] = n(v);
  }
  return JSON.stringify(body).replace(/"#num#([0-9.]+)"/g, '$1');
}

beforeAll(async () => {
  app = Fastify({ routerOptions: { maxParamLength: 500 } });
  await app.register(async (scope) =>
    pageRoutes(scope, { clock: () => Date.now(), payments: { publicRecord: async (ref) => payments.get(ref) ?? null } }, { pollIntervalMs: 300 }),
  );
  app.get<{ Params: { ref: string } }>('/api/v1/payment/:ref', async (req, reply) => {
    const p = payments.get(req.params.ref);
    if (!p) return reply.status(404).type('application/problem+json').send({ status: 404, title: 'Not Found' });
    return reply.type('application/json').send(statusBody(p));
  });
  app.get<{ Params: { ref: string }; Querystring: { width?: string } }>('/api/v1/payment/:ref/qrcode', async (req, reply) => {
    const p = payments.get(req.params.ref);
    if (!p) return reply.status(404).send();
    return reply.type('image/png').send(await renderQrPng(paymentUri(p.crypto_address, p.crypto_amount), Number(req.query.width ?? 256)));
  });
  app.get('/api/v1/payment/:ref/exchange_rate', async (_req, reply) =>
    reply.type('application/json').send(`{"from_currency":"BTC","to_currency":"USD","exchange_rate":${rate}}`),
  );
  origin = await app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function open(reference: string, viewport = { width: 1024, height: 900 }): Promise<{ page: Page; watch: PageWatch; context: BrowserContext }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const watch = await watchPage(page);
  await page.goto(`${origin}/pay/${reference}`);
  await page.waitForSelector('html[data-page-ready="true"]');
  return { page, watch, context };
}

const text = (page: Page, selector: string) => page.locator(selector).innerText();

describe('hosted page in Chromium (contract stub)', () => {
  it('shows an unpaid payment, then follows it through too little to confirmed without reloading', async () => {
    const p = payment('STATES1');
    const { page, watch, context } = await open('STATES1');
    expect(await text(page, '#site-name')).toBe('Corner <b>Shop</b>');
    expect(await text(page, '#crypto-amount')).toBe('0.00050000');
    expect(await loadedImageWidth(page, 'qr-image')).toBe(512);
    expect(await page.locator('#countdown').innerText()).toMatch(/^1[45]:\d\d$/);
    expect(await page.locator('#cancel-link').isVisible()).toBe(true);
    const wallet = page.locator('#wallet-link');
    expect(await wallet.isVisible()).toBe(true);
    expect(await wallet.getAttribute('href')).toMatch(/^bitcoin:[a-z0-9]+\?amount=0\.00050000&label=Corner%20%3Cb%3EShop%3C%2Fb%3E$/);
    expect(await page.locator('#network-badge').isVisible()).toBe(true);
    const mark = await markDocument(page);

    p.status = 'unconfirmed-less';
    p.amounts = { ...p.amounts, unconfirmed_crypto_amount: '0.0003', unconfirmed_order_amount: '15.00' };
    await expect.poll(() => text(page, '#status-headline')).toBe('Payment seen, but it is not enough');
    expect(await text(page, '#status-detail')).toContain('Still missing: 10.00 USD.');
    expect(await text(page, '#amount-label')).toBe('Remaining amount to send');
    expect(await text(page, '#crypto-amount')).toBe('0.00020000');
    expect(await page.locator('#qr').isVisible()).toBe(false);
    expect(await wallet.getAttribute('href')).toMatch(/\?amount=0\.00020000&/);

    p.status = 'confirmed';
    p.amounts = { unconfirmed_crypto_amount: '0', unconfirmed_order_amount: '0', confirmed_crypto_amount: '0.0005', confirmed_order_amount: '25.00' };
    await expect.poll(() => page.locator('#payment').getAttribute('data-status')).toBe('confirmed');
    expect(await text(page, '#status-headline')).toBe('Paid: payment confirmed');
    expect(await page.locator('#success-link').isVisible()).toBe(true);
    expect(await page.locator('#success-link').getAttribute('href')).toBe('https://shop.example/thanks');
    expect(await page.locator('#pay').isVisible()).toBe(false);
    expect(await page.locator('#cancel-link').isVisible()).toBe(false);
    expect(await stillMarked(page, mark)).toBe(true);
    expect(await page.locator('#status-live').getAttribute('aria-live')).toBe('polite');
    expect(watch.errors).toEqual([]);
    expect(await watch.cspViolations()).toEqual([]);
    await context.close();
  });

  it('once funds are seen, shows the amount paid and each transaction ID, short with the full ID copyable, linking nowhere', async () => {
    const txA = 'a'.repeat(8) + '0123456789abcdef'.repeat(3) + 'b'.repeat(8);
    const txB = 'c'.repeat(64);
    const p = payment('PAID1');
    const { page, watch, context } = await open('PAID1');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    expect(await page.locator('#paid').isVisible()).toBe(false);

    p.status = 'unconfirmed-less';
    p.amounts = { ...p.amounts, unconfirmed_crypto_amount: '0.0003', unconfirmed_order_amount: '15.00' };
    p.txids = [txA];
    await expect.poll(() => text(page, '#paid-amount')).toBe('Paid 0.0003 testBTC');
    await expect.poll(() => page.locator('#txids code.txid').count()).toBe(1);
    expect(await text(page, '#txid-0')).toBe('aaaaaaaa…bbbbbbbb');
    expect(await page.locator('#txid-0').getAttribute('title')).toBe(txA);

    p.status = 'unconfirmed';
    p.amounts = { ...p.amounts, unconfirmed_crypto_amount: '0.0005', unconfirmed_order_amount: '25.00' };
    p.txids = [txA, txB];
    await expect.poll(() => text(page, '#paid-amount')).toBe('Paid 0.0005 testBTC');
    await expect.poll(() => page.locator('#txids code.txid').count()).toBe(2);
    expect(await text(page, '#txid-1')).toBe('cccccccc…cccccccc');
    await page.getByRole('button', { name: 'Copy transaction ID' }).nth(1).click();
    await expect.poll(() => text(page, '#copy-feedback')).toBe('Copied.');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(txB);
    expect(await page.locator('#paid a').count()).toBe(0);
    expect(watch.errors).toEqual([]);
    expect(await watch.cspViolations()).toEqual([]);
    await context.close();

    // A page opened after payment shows the same from the server's rendering.
    payment('PAID2', {
      status: 'confirmed',
      amounts: { unconfirmed_crypto_amount: '0', unconfirmed_order_amount: '0', confirmed_crypto_amount: '0.0005', confirmed_order_amount: '25.00' },
      txids: [txB],
    });
    const again = await open('PAID2');
    expect(await text(again.page, '#paid-amount')).toBe('Paid 0.0005 testBTC');
    expect(await text(again.page, '#txid-0')).toBe('cccccccc…cccccccc');
    await again.context.close();
  });

  it('says by how much a payment is too large', async () => {
    payment('STATES2', {
      status: 'unconfirmed-more',
      amounts: { unconfirmed_crypto_amount: '0.0006', unconfirmed_order_amount: '30.00', confirmed_crypto_amount: '0', confirmed_order_amount: '0' },
    });
    const { page, context } = await open('STATES2');
    expect(await text(page, '#status-headline')).toBe('Paid too much: waiting for confirmation');
    expect(await text(page, '#status-detail')).toContain('You sent 5.00 USD more than the amount due');
    expect(await page.locator('#success-link').isVisible()).toBe(true);
    await context.close();
  });

  it('after expiry with nothing paid, offers a fresh indicative amount from operation 29 and says it is indicative', async () => {
    rate = '60000.00';
    payment('EXPIRED1', { expiry_date: new Date(Date.now() - 1000).toISOString() });
    const { page, watch, context } = await open('EXPIRED1');
    await expect.poll(() => text(page, '#crypto-amount')).toBe('0.00041667'); // 25 / 60000, rounded up to the satoshi
    expect(await text(page, '#amount-label')).toBe('Indicative amount to send');
    expect(await text(page, '#status-headline')).toBe('The guaranteed amount has expired');
    expect(await text(page, '#indicative')).toContain('indicative, not guaranteed');
    expect(await text(page, '#indicative')).toContain('60000.00 USD per testBTC');
    expect(await page.locator('#qr').isVisible()).toBe(false);
    expect(await page.locator('#countdown-line').isVisible()).toBe(false);
    // An indicative amount is not one to pay from a link.
    expect(await page.locator('#wallet-link').isVisible()).toBe(false);
    expect(watch.errors).toEqual([]);
    await context.close();
  });

  it('an invalid request says it is no longer valid and shows nothing to pay', async () => {
    payment('INVALID1', { status: 'invalid', crypto_address: '', expiry_date: new Date(Date.now() - 86_400_000).toISOString() });
    const { page, context } = await open('INVALID1');
    expect(await text(page, '#status-headline')).toBe('This payment request is no longer valid');
    expect(await page.locator('#pay').isVisible()).toBe(false);
    expect(await page.locator('#cancel-link').isVisible()).toBe(true);
    await context.close();
  });

  it('copies the address with the Clipboard API, and selects it for manual copying where that is unavailable', async () => {
    payment('COPY1');
    const { page, context } = await open('COPY1');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await page.getByRole('button', { name: 'Copy address' }).click();
    await expect.poll(() => text(page, '#copy-feedback')).toBe('Copied.');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(ADDRESS);
    await context.close();

    const bare = await browser.newContext();
    const page2 = await bare.newPage();
    await page2.addInitScript("Object.defineProperty(navigator, 'clipboard', { value: undefined })");
    await page2.goto(`${origin}/pay/COPY1`);
    await page2.waitForSelector('html[data-page-ready="true"]');
    await page2.getByRole('button', { name: 'Copy amount' }).click();
    expect(await page2.evaluate<string>('String(window.getSelection())')).toBe('0.00050000');
    expect(await text(page2, '#copy-feedback')).toMatch(/^(Copied\.|Selected: press Ctrl\+C)/);
    await bare.close();
  });

  it('fits a phone screen without sideways scrolling, with labelled controls', async () => {
    payment('PHONE1', { site_name: 'A shop with a rather long name that has to wrap on small screens' });
    const { page, context } = await open('PHONE1', { width: 360, height: 780 });
    expect(await fitsWidth(page)).toBe(true);
    for (const button of await page.getByRole('button').all()) expect((await button.innerText()).trim()).not.toBe('');
    expect(await page.locator('#qr-image').getAttribute('alt')).toContain(ADDRESS);
    await page.screenshot({ path: join(RESULTS_DIR, 'hosted-page-stub-phone.png'), fullPage: true });
    await context.close();
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
