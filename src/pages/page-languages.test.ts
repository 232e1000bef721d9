// The payer pages in other languages: the pseudo-locale leaves no English word outside the catalogue, and each
// language sets lang and dir on the document, keeps addresses and amounts left-to-right and offers the picker.
import { describe, expect, it } from 'vitest';
import { renderErrorPage, renderNotFoundPage, renderPaymentPage, type PaymentPageData } from './payment-page.ts';
import { readFileSync } from 'node:fs';
import { renderFormNotFound, renderFormPage, type FormPageView } from './form-page.ts';
import { renderRefundNotFound, renderRefundPage, type RefundPageView } from './refund-page.ts';
import { messagesFor } from './messages.ts';
import { PSEUDO_LANGUAGE } from './locales/index.ts';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const ADDRESS = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';

function record(over: Partial<PaymentPageData> = {}): PaymentPageData {
  return {
    reference: 'PAY123',
    site_name: 'Zqx',
    order_amount: '25.00',
    order_currency: 'USD',
    crypto_amount: '0.0005',
    crypto_address: ADDRESS,
    crypto_currency: 'testBTC',
    expiry_date: '2026-01-01T12:15:00Z',
    status: 'unpaid',
    success_url: 'https://shop.example/thanks',
    cancel_url: 'https://shop.example/cart',
    amounts: { unconfirmed_crypto_amount: '0', confirmed_crypto_amount: '0', unconfirmed_order_amount: '0', confirmed_order_amount: '0' },
    ...over,
  };
}

function formView(over: Partial<FormPageView> = {}): FormPageView {
  return {
    token: 'tok',
    phase: 'fields',
    order_status: 'pending',
    payment_status: 'unconfirmed',
    site_name: 'Zqx',
    order_id: 'ORD7',
    order_amount: '25',
    order_currency: 'USD',
    crypto_currency: 'testBTC',
    address: ADDRESS,
    crypto_amount_due: '0.0005',
    exchange_rate: '50000',
    expires_ms: NOW + 900_000,
    remaining_order_amount: '10.00',
    user_fields: [
      { name: 'who', display_name: 'Zqx', required: 1, type: 'text', value: '' },
      { name: 'note', display_name: 'Zqx', required: 0, type: 'textarea', value: '' },
    ],
    ask_email: true,
    cancel_url: 'https://shop.example/cart',
    complete_url: 'https://shop.example/thanks',
    ...over,
  };
}

function refundView(over: Partial<RefundPageView> = {}): RefundPageView {
  return { status: 'Scheduled', tx_id: '', refund_amount: '0.0005', refund_addr: '', network: 'testnet4', site_name: 'Zqx', confirmed: false, ...over };
}

const paid = { unconfirmed_crypto_amount: '0', confirmed_crypto_amount: '0.0003', unconfirmed_order_amount: '0', confirmed_order_amount: '15' };
const TXID = 'a'.repeat(64);

/** Every page a payer can see from this module, in one language. */
function pages(lang: string): Array<[string, string]> {
  const m = messagesFor(lang);
  const at = (over: Partial<PaymentPageData>, now = NOW) => renderPaymentPage(record(over), { now, messages: m });
  return [
    ['unpaid', at({})],
    ['unpaid, unnamed shop', at({ site_name: '' })],
    ['expired', at({}, Date.parse('2026-01-01T13:00:00Z'))],
    ['paid less', at({ status: 'confirmed-less', amounts: paid, txids: [TXID] })],
    ['confirmed', at({ status: 'confirmed', amounts: { ...paid, confirmed_crypto_amount: '0.0005', confirmed_order_amount: '25' }, txids: [TXID] })],
    ['invalid', at({ status: 'invalid', crypto_address: '' })],
    ['not found', renderNotFoundPage(undefined, m)],
    ['unavailable', renderErrorPage(undefined, m)],
    ...(['fields', 'pay', 'partly', 'partly-expired', 'paid', 'expired'] as const).map(
      (phase): [string, string] => [`form: ${phase}`, renderFormPage(formView({ phase }), { now: NOW, messages: m })],
    ),
    ['form: unnamed shop, no e-mail asked', renderFormPage(formView({ site_name: '', ask_email: false }), { now: NOW, messages: m })],
    ['form: not found', renderFormNotFound(undefined, m)],
    ['refund: address asked', renderRefundPage('rtok', refundView(), undefined, m)],
    ['refund: scheduled', renderRefundPage('rtok', refundView({ refund_addr: ADDRESS }), undefined, m)],
    ['refund: sent', renderRefundPage('rtok', refundView({ status: 'Processing', refund_addr: ADDRESS, tx_id: TXID }), undefined, m)],
    ['refund: confirmed, mainnet, unnamed shop', renderRefundPage('rtok', refundView({ status: 'Processing', refund_addr: ADDRESS, tx_id: TXID, confirmed: true, network: 'mainnet', site_name: '' }), undefined, m)],
    ['refund: not found', renderRefundNotFound(undefined, m)],
  ];
}

/** The words a payer reads (text and labelling attributes), without the data block and the catalogue's own words. */
function strayWords(html: string): string[] {
  const attrs = [...html.matchAll(/\s(?:alt|aria-label|title|placeholder)="([^"]*)"/g)].map((x) => x[1] ?? '');
  const text = html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<option[^>]*>[^<]*<\/option>/g, ' ') // each language's own name, by design
    .replace(/<[^>]+>/g, ' ');
  const visible = `${text} ${attrs.join(' ')}`.replace(/&[a-z#0-9]+;/g, ' ').replace(/⟦[^⟧]*⟧/g, ' ');
  const data = new Set(['Zqx', 'USD', 'testBTC', 'BTC', 'PAY123', 'ORD7', ADDRESS, TXID, 'aaaaaaaa…aaaaaaaa']);
  return visible.split(/[\s⟦⟧]+/).filter((w) => /[A-Za-z]{2,}/.test(w) && !data.has(w));
}

/** Every string of a page script's `copy` (the words the script writes), from the page's data block. */
function scriptCopy(html: string): string[] {
  const block = /<script type="application\/json" id="(?:page|form)-data">([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (block === undefined) return [];
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk((JSON.parse(block) as { copy?: unknown }).copy);
  return strings;
}

describe('payer pages in the pseudo-locale', () => {
  const rendered = pages(PSEUDO_LANGUAGE);

  it.each(rendered)('%s: every word comes from the catalogue', (_name, html) => {
    expect(strayWords(html)).toEqual([]);
  });

  it.each(rendered.filter(([, html]) => html.includes('-data">')))('%s: every word the script writes comes from the page, in its language', (_name, html) => {
    const copy = scriptCopy(html);
    expect(copy.length).toBeGreaterThan(0);
    for (const text of copy) expect(text, text).toMatch(/^⟦[\s\S]*⟧$/);
  });

  it('leaves no sentence in the page scripts themselves (their words come from the page data)', () => {
    const internal = new Set(['use strict', 'no rate', 'HTTP ']);
    for (const file of ['common.js', 'page.js', 'form.js', 'refund.js']) {
      const source = readFileSync(new URL(`./assets/${file}`, import.meta.url), 'utf8').replace(/^\s*\/\/.*$/gm, '');
      const sentences = [...source.matchAll(/'((?:[^'\\\n]|\\.)*)'/g)]
        .map((x) => x[1] ?? '')
        .filter((lit) => /[A-Za-z]{2,}\s+[A-Za-z]{2,}/.test(lit) && !internal.has(lit));
      expect(sentences, file).toEqual([]);
    }
  });
});

describe('payer pages in other languages', () => {
  it('sets lang and dir on the document: Arabic right-to-left, Japanese and German left-to-right', () => {
    expect(pages('ar')[0]![1]).toContain('<html lang="ar" dir="rtl">');
    expect(pages('ja')[0]![1]).toContain('<html lang="ja" dir="ltr">');
    expect(pages('de')[0]![1]).toContain('<html lang="de" dir="ltr">');
  });

  it('keeps the address, amount, countdown and transaction IDs left-to-right in a right-to-left page', () => {
    const html = pages('ar')[3]![1];
    expect(html).toMatch(/<p class="value" dir="ltr"><code id="crypto-address" class="address">tb1q/);
    expect(html).toMatch(/<p class="value" dir="ltr"><code id="crypto-amount">/);
    expect(html).toMatch(/<span id="countdown" role="timer" dir="ltr">/);
    expect(html).toMatch(/<code id="txid-0" class="txid" dir="ltr"/);
  });

  it('sets lang and dir on the form, refund and not-found pages too, with the picker on each', () => {
    for (const [name, html] of pages('ar').slice(6)) {
      expect(html, name).toContain('<html lang="ar" dir="rtl">');
      expect(html, name).toContain('<option value="ar" lang="ar" dir="rtl" selected>العربية</option>');
    }
  });

  it('isolates merchant text and keeps addresses, amounts and IDs left-to-right on the form and refund pages', () => {
    const all = pages('ar');
    const form = all.find(([n]) => n === 'form: pay')![1];
    expect(form).toContain('<h1 id="site-name"><bdi>Zqx</bdi></h1>');
    expect(form).toMatch(/<p class="value" dir="ltr"><code id="crypto-address" class="address">tb1q/);
    expect(form).toMatch(/<p class="value" dir="ltr"><code id="crypto-amount">0\.0005<\/code>/);
    expect(form).toMatch(/<span id="countdown" role="timer" dir="ltr">/);
    const fields = all.find(([n]) => n === 'form: fields')![1];
    expect(fields).toMatch(/<label for="field-note">[^<]*<bdi>Zqx<\/bdi>/);
    const refund = all.find(([n]) => n === 'refund: sent')![1];
    expect(refund).toMatch(/<p class="value" dir="ltr"><code id="refund-address" class="address">tb1q/);
    expect(refund).toMatch(/<p class="value" dir="ltr"><code id="refund-txid" class="address">a{64}/);
    expect(refund).toMatch(/<p class="eyebrow">[^<]*<bdi>Zqx<\/bdi>/);
  });

  it('formats the form and refund amounts in the locale: fiat through Intl, bitcoin with its exact digits', () => {
    const de = messagesFor('de');
    const partly = renderFormPage(formView({ phase: 'partly', order_amount: '1234.5', remaining_order_amount: '1000.25', order_currency: 'EUR' }), { now: NOW, messages: de });
    expect(partly).toContain('<span id="order-amount">1.234,50</span>');
    expect(partly).toContain('1.000,25 EUR');
    expect(renderRefundPage('rtok', refundView({ refund_amount: '0.00012345' }), undefined, de)).toContain('<span id="refund-amount">0,00012345</span>');
    expect(renderRefundPage('rtok', refundView({ refund_amount: '0.00012345' }), undefined, messagesFor('ja'))).toContain('<span id="refund-amount">0.00012345</span>');
  });

  it('leaves the wallet link (BIP21) unchanged whatever the language', () => {
    const link = (h: string) => /id="wallet-link" class="button" href="([^"]*)"/.exec(h)?.[1];
    expect(link(pages('ar')[0]![1])).toBe(link(pages('en')[0]![1]));
  });

  it('offers a picker that works without JavaScript (a GET form) and names each language in itself', () => {
    const html = pages('de')[0]![1];
    expect(html).toMatch(/<form class="lang-picker" method="get" action="">/);
    expect(html).toContain('<option value="de" lang="de" dir="ltr" selected>Deutsch</option>');
    expect(html).toContain('<option value="ar" lang="ar" dir="rtl">العربية</option>');
    expect(html).not.toContain(`value="${PSEUDO_LANGUAGE}"`);
  });

  it('formats the order total with the locale separators and plurals through ICU', () => {
    expect(renderPaymentPage(record({ order_amount: '1234.5', order_currency: 'EUR' }), { now: NOW, messages: messagesFor('de') })).toContain(
      '<span id="order-amount">1.234,50</span>',
    );
    // The amount still missing follows the same rule as the total, on the server and in the page data for the script.
    const less = renderPaymentPage(
      record({ order_amount: '1234.5', order_currency: 'EUR', status: 'unconfirmed-less', amounts: { unconfirmed_crypto_amount: '0.0001', confirmed_crypto_amount: '0', unconfirmed_order_amount: '224.5', confirmed_order_amount: '0' } }),
      { now: NOW, messages: messagesFor('de') },
    );
    expect(less).toContain('1.010,00');
    expect(less).not.toContain('1010.00');
    expect(less).toContain('"locale":"de"');
    expect(messagesFor('ar').t('payment.detail.seenFinalOnceConfirmed', { minutes: 2 })).toContain('دقيقتين');
    expect(messagesFor('en').t('payment.detail.seenFinalOnceConfirmed', { minutes: 1 })).toContain('within 1 minute;');
  });
});
