import { describe, it, expect, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import Fastify from 'fastify';
import { countdownText, renderNotFoundPage, renderPaymentPage, type PaymentPageData } from './payment-page.ts';
import { escapeHtml, jsonForScript, safeHttpUrl } from './html.ts';
import { PAGE_CSP } from './page-headers.ts';
import { pageRoutes } from './routes.ts';
import { loadPageAssets } from './page-assets.ts';

const NOW = Date.parse('2026-01-01T12:00:00Z');

function record(over: Partial<PaymentPageData> = {}): PaymentPageData {
  return {
    reference: 'PAY123',
    site_name: 'Corner Shop',
    order_amount: '25.00',
    order_currency: 'USD',
    crypto_amount: '0.0005',
    crypto_address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
    crypto_currency: 'testBTC',
    expiry_date: '2026-01-01T12:15:00Z',
    status: 'unpaid',
    success_url: 'https://shop.example/thanks?order=1',
    cancel_url: 'https://shop.example/cart',
    amounts: {
      unconfirmed_crypto_amount: '0',
      confirmed_crypto_amount: '0',
      unconfirmed_order_amount: '0',
      confirmed_order_amount: '0',
    },
    ...over,
  };
}

const render = (over: Partial<PaymentPageData> = {}) => renderPaymentPage(record(over), { now: NOW });

/** The href of the element with this id, or undefined when the page has no such link. */
function hrefOf(html: string, id: string): string | undefined {
  return new RegExp(`<a id="${id}"[^>]*href="([^"]*)"`).exec(html)?.[1];
}

describe('escaping merchant input', () => {
  it('a site name of <script>alert(1)</script> renders as text, never as markup', () => {
    const html = render({ site_name: '<script>alert(1)</script>' });
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('<title>Payment to &lt;script&gt;alert(1)&lt;/script&gt;</title>');
  });

  it('quotes and ampersands in merchant strings cannot leave an attribute', () => {
    const html = render({ site_name: '"><img src=x onerror=alert(1)>', success_url: 'https://shop.example/?a="b"&c=<d>' });
    expect(html).not.toMatch(/<img src=x/);
    expect(html).not.toMatch(/<[^>]*\sonerror=/i);
    expect(hrefOf(html, 'success-link')).toBe('https://shop.example/?a=%22b%22&amp;c=%3Cd%3E');
  });

  it('escapeHtml escapes the five HTML-significant characters and nothing else', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a> é`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt; é');
  });

  it('the state handed to the script cannot close its script element', () => {
    const html = render({ reference: '</script><script>alert(1)</script>' });
    expect(html.match(/<script/g)).toHaveLength(2); // the external script and the JSON data block
    expect(jsonForScript({ a: '</script>&\u2028' })).toBe('{"a":"\\u003c/script\\u003e\\u0026\\u2028"}');
  });

  it('the page has no inline script, inline style or event handler attribute, so a strict CSP can hold', () => {
    const html = render({ site_name: 'x onload=alert(1)' });
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!.trim());
    expect(scripts).toEqual([expect.stringMatching(/^src="\/pay\/assets\/page\.js[^"]*" defer$/), 'type="application/json" id="page-data"']);
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).not.toMatch(/<[^>]+\son[a-z]+=/i);
    expect(html).toContain('<html lang="en" dir="ltr">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  });

  it('the browser script writes text only, never HTML', () => {
    const js = readFileSync(new URL('./assets/page.js', import.meta.url), 'utf8');
    expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    expect(js).toContain('textContent');
  });

  it('the shared browser helpers (common.js) write text only and count down as the server does', () => {
    const js = readFileSync(new URL('./assets/common.js', import.meta.url), 'utf8');
    expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    const helpers = runInNewContext(`${js}\nsatgatePage`, {}) as { countdownText(ms: number, expired: string): string };
    for (const ms of [900_000, 61_001, 3_600_000 + 5_000, 0, -5]) expect(helpers.countdownText(ms, 'expired')).toBe(countdownText(ms));
  });

  it('page.js and form.js are served with common.js in front, so each page still loads one script', () => {
    const read = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
    const { files } = loadPageAssets();
    for (const name of ['page.js', 'form.js']) expect(files.get(name)?.body.toString('utf8')).toBe(read('common.js') + read(name));
    expect(files.get('refund.js')?.body.toString('utf8')).toBe(read('refund.js'));
    expect(files.has('common.js')).toBe(false);
  });
});

describe('merchant links', () => {
  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    '/relative/path',
    'https://user:pass@evil.example/',
    'not a url',
  ])('%j is never rendered as a link', (url) => {
    const html = render({ status: 'confirmed', success_url: url, cancel_url: url });
    expect(hrefOf(html, 'success-link')).toBeUndefined();
    expect(hrefOf(html, 'cancel-link')).toBeUndefined();
    expect(html).not.toMatch(/href="[^"]*script:/i);
    expect(safeHttpUrl(url)).toBeNull();
  });

  it('http(s) URLs are links: cancel while unpaid, success (shown) once paid in full', () => {
    const unpaid = render();
    expect(hrefOf(unpaid, 'cancel-link')).toBe('https://shop.example/cart');
    expect(unpaid).toMatch(/<a id="success-link"[^>]*hidden>/);
    const paid = render({ status: 'unconfirmed', amounts: { ...record().amounts, unconfirmed_crypto_amount: '0.0005', unconfirmed_order_amount: '25.00' } });
    expect(paid).toMatch(/<a id="success-link" class="button" href="https:\/\/shop\.example\/thanks\?order=1">Continue to <bdi>Corner Shop<\/bdi><\/a>/);
    expect(paid).toMatch(/<a id="cancel-link"[^>]*hidden>/);
  });
});

describe('payment content', () => {
  it('shows the site name, order amount, crypto amount, address, QR image and countdown', () => {
    const html = render();
    expect(html).toContain('<h1 id="site-name"><bdi>Corner Shop</bdi></h1>');
    expect(html).toContain('<span id="order-amount">25.00</span> <span id="order-currency">USD</span>');
    expect(html).toContain('<code id="crypto-amount">0.00050000</code>');
    expect(html).toContain('<code id="crypto-address" class="address">tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx</code>');
    expect(html).toContain('src="/api/v1/payment/PAY123/qrcode?width=512"');
    expect(html).toContain('<span id="countdown" role="timer" dir="ltr">15:00</span>');
    expect(html).toMatch(/role="status" aria-live="polite"/);
  });

  it('a wallet without an account name gets a neutral wording, never "Payment to" with nothing after it', () => {
    const html = render({ site_name: '' });
    expect(html).toContain('<title>Bitcoin payment</title>');
    expect(html).toContain('<h1 id="site-name">Bitcoin payment</h1>');
    expect(html).not.toMatch(/Payment to\s*</);
    expect(html).toMatch(/>Cancel and return to the shop<\/a>/);
    const paid = render({ site_name: '   ', status: 'confirmed' });
    expect(paid).toMatch(/>Continue to the shop<\/a>/);
    expect(paid).not.toMatch(/Continue to \s*</);
  });

  it('shows the order total with its currency\'s minor units, and hands them to the script', () => {
    const html = render({ order_amount: '49.9', order_currency: 'EUR' });
    expect(html).toContain('<span id="order-amount">49.90</span> <span id="order-currency">EUR</span>');
    expect(html).toContain('"order_minor_units":2');
    expect(render({ order_amount: '1500', order_currency: 'JPY' })).toContain('<span id="order-amount">1500</span>');
  });

  it('offers "Open in wallet": a bitcoin: link with the address, the amount to send and the shop as label', () => {
    const html = render();
    expect(hrefOf(html, 'wallet-link')).toBe('bitcoin:tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx?amount=0.00050000&amp;label=Corner%20Shop');
    expect(html).toMatch(/<a id="wallet-link" class="button" href="[^"]*">Open in wallet<\/a>/);
    // Too little paid: the link asks for what is missing; without a name, no label.
    const less = render({ site_name: '', status: 'unconfirmed-less', amounts: { ...record().amounts, unconfirmed_crypto_amount: '0.0003', unconfirmed_order_amount: '15.00' } });
    expect(hrefOf(less, 'wallet-link')).toBe('bitcoin:tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx?amount=0.00020000');
    // No guaranteed amount (expired): no link to pay an amount that no longer holds.
    expect(render({ expiry_date: '2026-01-01T11:00:00Z' })).toMatch(/<a id="wallet-link"[^>]*hidden>/);
  });

  it('a test payment wears a badge saying its coins have no value; a mainnet payment does not', () => {
    expect(render()).toContain('<p id="network-badge" class="badge">Test payment: test coins only, no real value</p>');
    expect(render({ crypto_currency: 'BTC', crypto_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' })).not.toContain('network-badge');
  });

  it('an invalid request says so and offers no address or QR code', () => {
    const html = render({ status: 'invalid', crypto_address: '' });
    expect(html).toContain('This payment request is no longer valid');
    expect(html).toMatch(/<section id="pay"[^>]*hidden>/);
    expect(html).not.toContain('qrcode?width');
  });

  it('counts down in minutes and seconds, then says expired', () => {
    expect(countdownText(900_000)).toBe('15:00');
    expect(countdownText(61_001)).toBe('1:02');
    expect(countdownText(3_600_000 + 5_000)).toBe('1:00:05');
    expect(countdownText(0)).toBe('expired');
  });
});

describe('what has been received', () => {
  const txid = '0123456789abcdef'.repeat(4);
  it('once funds are seen, says what was paid and lists each transaction short, with the full ID to copy and no link', () => {
    const html = render({
      status: 'unconfirmed',
      amounts: { ...record().amounts, unconfirmed_crypto_amount: '0.0005', unconfirmed_order_amount: '25.00' },
      txids: [txid],
    });
    expect(html).toMatch(/<section id="paid" class="paid" aria-label="Payment received">/);
    expect(html).toContain('<p id="paid-amount">Paid 0.0005 testBTC</p>');
    expect(html).toContain(`<code id="txid-0" class="txid" dir="ltr" title="${txid}" data-full="${txid}">01234567…89abcdef</code>`);
    expect(html).toContain('data-copy="txid-0">Copy transaction ID</button>');
    const paid = html.slice(html.indexOf('<section id="paid"'), html.indexOf('<section id="pay"'));
    expect(paid).not.toContain('<a ');
  });

  it('shows nothing received while nothing has been seen', () => {
    expect(render()).toMatch(/<section id="paid" class="paid" aria-label="Payment received" hidden>/);
  });
});

describe('page routes', async () => {
  const app = Fastify({ routerOptions: { maxParamLength: 500 } }); // as the real app
  const stored = record({ site_name: '<script>alert(1)</script>' });
  await app.register(async (scope) =>
    pageRoutes(scope, {
      clock: () => NOW,
      payments: {
        publicRecord: async (ref) => {
          if (ref === 'BROKEN') throw new Error('database down');
          if (ref === 'PAID1') return { ...stored, reference: 'PAID1', txids: ['ab'.repeat(32)] };
          return ref === stored.reference ? stored : null;
        },
      },
    }),
  );
  afterAll(() => app.close());

  it('serves the page with a strict Content-Security-Policy and the other security headers', async () => {
    const res = await app.inject('/pay/PAY123');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(PAGE_CSP).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('an unknown reference answers a 404 HTML page', async () => {
    const res = await app.inject('/pay/NOPE');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(res.body).toBe(renderNotFoundPage(linkedAssets(res.body)));
    expect(res.body).toContain('<h1>Payment not found</h1>');
    expect((await app.inject(`/pay/${'x'.repeat(300)}`)).statusCode).toBe(404);
  });

  it('a failing lookup answers a 503 HTML page, not a stack trace', async () => {
    const res = await app.inject('/pay/BROKEN');
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('Payment page unavailable');
    expect(res.body).not.toContain('database down');
  });

  it("answers the page's own received data (the txids operation 27 does not carry) as JSON, 404 when unknown", async () => {
    const res = await app.inject('/pay/PAID1/received');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({ txids: ['ab'.repeat(32)] });
    expect((await app.inject('/pay/PAY123/received')).json()).toEqual({ txids: [] });
    expect((await app.inject('/pay/NOPE/received')).statusCode).toBe(404);
    expect((await app.inject('/pay/BROKEN/received')).statusCode).toBe(503);
  });

  it('serves the stylesheet and script the page links to, with their types, and nothing else', async () => {
    const page = (await app.inject('/pay/PAY123')).body;
    const { css, js } = linkedAssets(page);
    const cssRes = await app.inject(css);
    expect(cssRes.statusCode).toBe(200);
    expect(cssRes.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(cssRes.headers['x-content-type-options']).toBe('nosniff');
    const jsRes = await app.inject(js);
    expect(jsRes.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(jsRes.body).toContain("'use strict'");
    const again = await app.inject({ url: js, headers: { 'if-none-match': String(jsRes.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect((await app.inject('/pay/assets/..%2Fpayment-page.ts')).statusCode).toBe(404);
    expect((await app.inject('/pay/assets/other.js')).statusCode).toBe(404);
  });
});

function linkedAssets(html: string): { css: string; js: string } {
  const css = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1] ?? '';
  const js = /<script src="([^"]+)" defer>/.exec(html)?.[1] ?? '';
  return { css, js };
}
