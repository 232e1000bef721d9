// The payer pages in other languages: the pseudo-locale leaves no English word outside the catalogue, and each
// language sets lang and dir on the document, keeps addresses and amounts left-to-right and offers the picker.
import { describe, expect, it } from 'vitest';
import { renderErrorPage, renderNotFoundPage, renderPaymentPage, type PaymentPageData } from './payment-page.ts';
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
  ];
}

/** The words a payer reads (text and labelling attributes), without the data block and the catalogue's own words. */
function strayWords(html: string): string[] {
  const attrs = [...html.matchAll(/\s(?:alt|aria-label)="([^"]*)"/g)].map((x) => x[1] ?? '');
  const text = html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<option[^>]*>[^<]*<\/option>/g, ' ') // each language's own name, by design
    .replace(/<[^>]+>/g, ' ');
  const visible = `${text} ${attrs.join(' ')}`.replace(/&[a-z#0-9]+;/g, ' ').replace(/⟦[^⟧]*⟧/g, ' ');
  const data = new Set(['Zqx', 'USD', 'testBTC', 'PAY123', ADDRESS, 'aaaaaaaa…aaaaaaaa']);
  return visible.split(/[\s⟦⟧]+/).filter((w) => /[A-Za-z]{2,}/.test(w) && !data.has(w));
}

describe('payer pages in the pseudo-locale', () => {
  it.each(pages(PSEUDO_LANGUAGE))('%s: every word comes from the catalogue', (_name, html) => {
    expect(strayWords(html)).toEqual([]);
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
    expect(messagesFor('ar').t('payment.detail.seenFinalOnceConfirmed', { minutes: 2 })).toContain('دقيقتين');
    expect(messagesFor('en').t('payment.detail.seenFinalOnceConfirmed', { minutes: 1 })).toContain('within 1 minute;');
  });
});
