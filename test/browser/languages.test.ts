// Every payer page in English, German (long words), Arabic (right-to-left) and Japanese, on a phone (360 px) and a
// desktop (1280 px) in Chromium: no sideways scrolling, `lang` and `dir` on the document, axe-core clean, and the
// language picker working with JavaScript switched off. The pages are served by their real routes (payment page,
// form page, refund page) over contract stubs of the services whose answers the test sets, as page-states.test.ts
// does; screenshots of each go to test-results/languages/.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { pageRoutes } from '../../src/pages/routes.ts';
import { formRoutes } from '../../src/forms/routes.ts';
import { refundRoutes, type RefundRoutesContext } from '../../src/refunds/routes.ts';
import type { PaymentPageData } from '../../src/pages/payment-page.ts';
import type { FormService, FormPageState } from '../../src/forms/form-service.ts';
import type { RefundPageView } from '../../src/pages/refund-page.ts';
import { DomainError } from '../../src/core/domain-errors.ts';
import { paymentUri, renderQrPng } from '../../src/payments/qr-code.ts';
import { LANGUAGES, PSEUDO_LANGUAGE } from '../../src/pages/locales/index.ts';
import { messagesFor } from '../../src/pages/messages.ts';
import { loadPageAssets } from '../../src/pages/page-assets.ts';
import { renderPaymentPage } from '../../src/pages/payment-page.ts';
import { renderFormPage } from '../../src/pages/form-page.ts';
import { renderRefundPage } from '../../src/pages/refund-page.ts';
import { axeViolations, launchChromium, RESULTS_DIR, watchPage } from './chromium.ts';

const SHOTS = join(RESULTS_DIR, 'languages');
const ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const TXID = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';
// A long shop name in Latin script: the bidi isolation and the wrapping both have something to do.
const SHOP = 'Corner Shop & Café Rosenthaler Straße';
const WIDTHS = [360, 1280] as const;
const LANGS = ['en', 'de', 'ar', 'ja'] as const;

const payments = new Map<string, PaymentPageData>();
const forms = new Map<string, FormPageState>();
const refunds = new Map<string, RefundPageView>();
let app: FastifyInstance;
let origin: string;
let browser: Browser;

const noAmounts = { unconfirmed_crypto_amount: '0', confirmed_crypto_amount: '0', unconfirmed_order_amount: '0', confirmed_order_amount: '0' };

function payment(reference: string, over: Partial<PaymentPageData> = {}): void {
  payments.set(reference, {
    reference,
    site_name: SHOP,
    order_amount: '1234.50',
    order_currency: 'EUR',
    crypto_amount: '0.02057500',
    crypto_address: ADDRESS,
    crypto_currency: 'testBTC',
    expiry_date: new Date(Date.now() + 3_600_000).toISOString(),
    status: 'unpaid',
    success_url: 'https://shop.example/thanks',
    cancel_url: 'https://shop.example/cart',
    amounts: noAmounts,
    ...over,
  });
}

function form(token: string, over: Partial<FormPageState> = {}): void {
  forms.set(token, {
    token,
    phase: 'fields',
    order_status: 'pending',
    payment_status: 'unpaid',
    site_name: SHOP,
    order_id: 'ORDER-2026-000042',
    order_amount: '1234.50',
    order_currency: 'EUR',
    crypto_currency: 'testBTC',
    address: ADDRESS,
    crypto_amount_due: '0.020575',
    exchange_rate: '60000',
    expires_ms: Date.now() + 3_600_000,
    remaining_order_amount: '1234.50',
    user_fields: [
      { name: 'full_name', display_name: 'Full name', required: 1, type: 'text', value: '' },
      { name: 'note', display_name: 'Note for the shop', required: 0, type: 'textarea', value: '' },
    ],
    ask_email: true,
    cancel_url: 'https://shop.example/cart',
    // Never a redirect while the test looks at the paid page.
    complete_url: null,
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    paid_crypto: '0',
    transactions: 0,
    user_email: null,
    ...over,
  } as FormPageState);
}

/** Operation 27's body for a stored payment (what the page's script polls). */
function statusBody(p: PaymentPageData): Record<string, unknown> {
  return {
    payment_reference: p.reference,
    crypto_currency: p.crypto_currency,
    crypto_address: p.crypto_address,
    crypto_amount: p.crypto_amount,
    order_currency: p.order_currency,
    order_amount: p.order_amount,
    exchange_rate: '60000',
    expiry_date: p.expiry_date,
    status: p.status,
    status_date: new Date().toISOString(),
    site_name: p.site_name,
    ...p.amounts,
  };
}

/** Every payer page: path, expected HTTP status, name. */
const PAGES: Array<{ name: string; path: string; status: number }> = [
  { name: 'pay-unpaid', path: '/pay/UNPAID', status: 200 },
  { name: 'pay-paid-less', path: '/pay/LESS', status: 200 },
  { name: 'pay-confirmed', path: '/pay/DONE', status: 200 },
  { name: 'pay-invalid', path: '/pay/INVALID', status: 200 },
  { name: 'pay-not-found', path: '/pay/NOSUCH', status: 404 },
  { name: 'pay-unavailable', path: '/pay/BROKEN', status: 503 },
  { name: 'form-fields', path: '/form/fields', status: 200 },
  { name: 'form-pay', path: '/form/pay', status: 200 },
  { name: 'form-partly-expired', path: '/form/partly', status: 200 },
  { name: 'form-paid', path: '/form/paid', status: 200 },
  { name: 'form-expired', path: '/form/expired', status: 200 },
  { name: 'form-not-found', path: '/form/nosuch', status: 404 },
  { name: 'refund-ask', path: '/refund/ask', status: 200 },
  { name: 'refund-sent', path: '/refund/sent', status: 200 },
  { name: 'refund-not-found', path: '/refund/nosuch', status: 404 },
];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  payment('UNPAID');
  payment('LESS', {
    status: 'confirmed-less',
    amounts: { ...noAmounts, confirmed_crypto_amount: '0.01', confirmed_order_amount: '600' },
    txids: [TXID],
  });
  payment('DONE', {
    status: 'confirmed',
    amounts: { ...noAmounts, confirmed_crypto_amount: '0.020575', confirmed_order_amount: '1234.50' },
    txids: [TXID],
  });
  payment('INVALID', { status: 'invalid', crypto_address: '' });
  form('fields');
  form('pay', { phase: 'pay' });
  form('partly', { phase: 'partly-expired', remaining_order_amount: '634.50', crypto_amount_due: '0', expires_ms: Date.now() - 1000 });
  form('paid', { phase: 'paid', payment_status: 'confirmed', crypto_amount_due: '0', remaining_order_amount: '0.00' });
  form('expired', { phase: 'expired', crypto_amount_due: '0', expires_ms: Date.now() - 1000 });
  const refund: RefundPageView = { status: 'Scheduled', tx_id: '', refund_amount: '0.0008', refund_addr: '', network: 'regtest', site_name: SHOP, confirmed: false };
  refunds.set('ask', refund);
  refunds.set('sent', { ...refund, status: 'Processing', refund_addr: ADDRESS, tx_id: TXID });

  app = Fastify({ routerOptions: { maxParamLength: 500 } });
  await app.register(async (scope) =>
    pageRoutes(scope, {
      clock: () => Date.now(),
      payments: {
        publicRecord: async (ref) => {
          if (ref === 'BROKEN') throw new Error('database down');
          return payments.get(ref) ?? null;
        },
      },
    }),
  );
  app.get<{ Params: { ref: string } }>('/api/v1/payment/:ref', async (req, reply) => {
    const p = payments.get(req.params.ref);
    if (!p) return reply.status(404).send({ status: 404, title: 'Not Found' });
    return statusBody(p);
  });
  app.get<{ Params: { ref: string }; Querystring: { width?: string } }>('/api/v1/payment/:ref/qrcode', async (req, reply) => {
    const p = payments.get(req.params.ref);
    if (!p) return reply.status(404).send();
    return reply.type('image/png').send(await renderQrPng(paymentUri(p.crypto_address, p.crypto_amount), Number(req.query.width ?? 256)));
  });
  const found = (token: string): FormPageState => {
    const f = forms.get(token);
    if (!f) throw new DomainError('invalid', 'Wrong or missing argument: not a form token');
    return f;
  };
  const service = {
    pageState: async (token: string) => found(token),
    submitFields: async (token: string) => found(token),
    refresh: async (token: string) => found(token),
    // These states have no wallet behind them: no merchant default, so the page follows the payer's choice.
    merchantLanguage: async () => null,
    qrCode: async (token: string, width: number) => renderQrPng(paymentUri(found(token).address, found(token).crypto_amount_due), width),
  } as unknown as FormService;
  await app.register(async (scope) => formRoutes(scope, { clock: () => Date.now(), forms: { service } }));
  const refundCtx = {
    refunds: { view: async (token: unknown) => refunds.get(String(token)), merchantLanguage: async () => null },
    dashboard: { sessions: {} },
  } as unknown as RefundRoutesContext;
  await app.register(async (scope) => refundRoutes(scope, refundCtx));
  // The pseudo-locale is never offered to payers, so no route chooses it: these render the same pages with its
  // messages (every string wrapped and 40 % longer) to find what would clip or overflow in a long language.
  const assetUrls = loadPageAssets().urls;
  const pseudo = messagesFor(PSEUDO_LANGUAGE);
  const html = (reply: { type: (t: string) => { send: (b: string) => unknown } }, body: string) => reply.type('text/html; charset=utf-8').send(body);
  app.get<{ Params: { ref: string } }>('/pseudo/pay/:ref', async (req, reply) => html(reply, renderPaymentPage(payments.get(req.params.ref)!, { now: Date.now(), assets: assetUrls, messages: pseudo })));
  app.get<{ Params: { token: string } }>('/pseudo/form/:token', async (req, reply) => html(reply, renderFormPage(found(req.params.token), { now: Date.now(), assets: assetUrls, messages: pseudo })));
  app.get<{ Params: { token: string } }>('/pseudo/refund/:token', async (req, reply) => html(reply, renderRefundPage(req.params.token, refunds.get(req.params.token)!, assetUrls, pseudo)));
  origin = await app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Elements whose text is cut off: content wider than a box that hides its overflow. */
async function clipped(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(
    "[...document.querySelectorAll('body *')].filter((el) => { const s = getComputedStyle(el); return el.offsetParent !== null && (s.overflowX === 'hidden' || s.overflowX === 'clip' || s.textOverflow === 'ellipsis') && el.scrollWidth > el.clientWidth + 1; }).map((el) => el.tagName + '#' + el.id)",
  );
}

describe('payer pages in four languages at two widths', () => {
  for (const lang of LANGS) {
    const dir = LANGUAGES.find((l) => l.tag === lang)!.dir;
    for (const width of WIDTHS) {
      it(`${lang} at ${width} px: lang and dir set, no sideways scrolling, nothing clipped, axe-core clean`, async () => {
        const context = await browser.newContext({ viewport: { width, height: 900 }, locale: lang });
        const page = await context.newPage();
        const watch = await watchPage(page);
        for (const p of PAGES) {
          const res = await page.goto(`${origin}${p.path}?lang=${lang}`);
          expect(res!.status(), p.name).toBe(p.status);
          expect(res!.headers()['content-language'], p.name).toBe(lang);
          // Scripted pages settle (first render, first poll) before they are looked at.
          await page.waitForLoadState('networkidle');
          expect(await page.getAttribute('html', 'lang'), p.name).toBe(lang);
          expect(await page.getAttribute('html', 'dir'), p.name).toBe(dir);
          expect(await page.evaluate<boolean>('document.scrollingElement.scrollWidth <= window.innerWidth'), `${p.name} fits ${width} px`).toBe(true);
          expect(await clipped(page), `${p.name}: clipped text`).toEqual([]);
          expect(await axeViolations(page), `${p.name}: axe-core`).toEqual([]);
          await page.screenshot({ path: join(SHOTS, `${p.name}-${lang}-${width}.png`), fullPage: true });
        }
        expect(watch.dialogs).toEqual([]);
        // Chromium reports the deliberate 404 and 503 answers; nothing else may fail.
        expect(watch.errors.filter((e) => !/status of (404|503)/.test(e))).toEqual([]);
        expect(await watch.cspViolations()).toEqual([]);
        await context.close();
      });
    }
  }
});

describe('payer pages in the pseudo-locale', () => {
  const pseudoPages = [...PAGES.filter((p) => p.status === 200).map((p) => `/pseudo${p.path}`)];
  for (const width of WIDTHS) {
    it(`at ${width} px every page fits, with nothing clipped`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      for (const path of pseudoPages) {
        const res = await page.goto(`${origin}${path}`);
        expect(res!.status(), path).toBe(200);
        await page.waitForLoadState('networkidle');
        expect(await page.getAttribute('html', 'lang'), path).toBe(PSEUDO_LANGUAGE);
        await page.screenshot({ path: join(SHOTS, `pseudo-${path.split('/').slice(2).join('-')}-${width}.png`), fullPage: true });
        const wide = await page.evaluate<string[]>("[...document.querySelectorAll('body *')].filter((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && (r.right > window.innerWidth + 0.5 || r.left < -0.5 || el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'visible' && el.clientWidth > 0); }).map((el) => el.tagName + '#' + el.id + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right) + ' ' + el.scrollWidth + '/' + el.clientWidth)");
        expect(wide, `${path} fits ${width} px`).toEqual([]);
        expect(await page.evaluate<boolean>('document.scrollingElement.scrollWidth <= window.innerWidth'), `${path} scrolls sideways at ${width} px`).toBe(true);
        expect(await clipped(page), `${path}: clipped text`).toEqual([]);
        await page.screenshot({ path: join(SHOTS, `pseudo-${path.split('/').slice(2).join('-')}-${width}.png`), fullPage: true });
      }
      await context.close();
    });
  }
});

describe('the language picker without JavaScript', () => {
  it('changes the language of every payer page, and the choice is remembered for the next page', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 360, height: 800 }, locale: 'en-US' });
    const page = await context.newPage();
    for (const p of PAGES) {
      await context.clearCookies();
      await page.goto(`${origin}${p.path}`);
      expect(await page.getAttribute('html', 'lang'), p.name).toBe('en');
      await page.selectOption('#lang-select', 'ar');
      await Promise.all([page.waitForURL(/[?&]lang=ar/), page.click('.lang-picker button[type="submit"]')]);
      expect(await page.getAttribute('html', 'lang'), p.name).toBe('ar');
      expect(await page.getAttribute('html', 'dir'), p.name).toBe('rtl');
      expect(await page.inputValue('#lang-select'), p.name).toBe('ar');
      // The cookie the server set keeps Arabic without the query.
      await page.goto(`${origin}${p.path}`);
      expect(await page.getAttribute('html', 'lang'), `${p.name} remembered`).toBe('ar');
      await page.selectOption('#lang-select', 'ja');
      await Promise.all([page.waitForURL(/[?&]lang=ja/), page.click('.lang-picker button[type="submit"]')]);
      expect(await page.getAttribute('html', 'lang'), p.name).toBe('ja');
      expect(await page.getAttribute('html', 'dir'), p.name).toBe('ltr');
    }
    await page.screenshot({ path: join(SHOTS, 'picker-no-js-ja.png'), fullPage: true });
    await context.close();
  });
});
