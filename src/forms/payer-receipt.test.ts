import { describe, expect, it } from 'vitest';
import { renderPayerReceipt, type PayerReceipt } from './payer-receipt.ts';

const receipt = (over: Partial<PayerReceipt> = {}): PayerReceipt => ({
  shopName: 'Corner Shop',
  orderId: 'ORD-1',
  orderAmount: '49.9',
  orderCurrency: 'EUR',
  paidCrypto: '0.001',
  cryptoCurrency: 'BTC',
  txids: ['a'.repeat(64), 'b'.repeat(64)],
  orderPageUrl: 'https://pay.example/form/frm_x',
  ...over,
});

describe("the payer's receipt", () => {
  it('names the shop, the amount with its minor units, what was paid, every txid and the order page', () => {
    const mail = renderPayerReceipt(receipt());
    expect(mail.subject).toBe('Your payment receipt from Corner Shop');
    expect(mail.text).toContain('Thank you for your payment to Corner Shop.');
    expect(mail.text).toContain('Order: ORD-1\nAmount: 49.90 EUR\nPaid: 0.001 BTC\n');
    expect(mail.text).toContain(`Transaction ID: ${'a'.repeat(64)}\nTransaction ID: ${'b'.repeat(64)}\n`);
    expect(mail.text).toContain('Your order page: https://pay.example/form/frm_x\n');
  });

  it('speaks neutrally when the shop has no name', () => {
    const mail = renderPayerReceipt(receipt({ shopName: '  ' }));
    expect(mail.subject).toBe('Your payment receipt');
    expect(mail.text.startsWith('Thank you for your payment. ')).toBe(true);
  });

  it('keeps a shop name with line breaks on one line, so the subject cannot carry a header', () => {
    const mail = renderPayerReceipt(receipt({ shopName: 'Shop\r\nBcc: victim@example.com' }));
    expect(mail.subject).toBe('Your payment receipt from Shop Bcc: victim@example.com');
    expect(mail.subject).not.toMatch(/[\r\n]/);
  });
});

describe("the payer's receipt in the payer's language", () => {
  it('is written in German for a payer who asked in German, amounts with German separators and exact digits', () => {
    const mail = renderPayerReceipt(receipt({ language: 'de', orderAmount: '1234.5', paidCrypto: '0.00012345' }));
    expect(mail.subject).toBe('Ihre Zahlungsquittung von Corner Shop');
    expect(mail.text).toContain('Vielen Dank für Ihre Zahlung an Corner Shop.');
    expect(mail.text).toContain('Bestellung: ORD-1\nBetrag: 1.234,50 EUR\nBezahlt: 0,00012345 BTC\n');
    expect(mail.text).toContain(`Transaktions-ID: ${'a'.repeat(64)}\n`);
    expect(mail.text).toContain('Ihre Bestellseite: https://pay.example/form/frm_x\n');
  });

  it('keeps a right-to-left receipt intact: the address and the link unchanged', () => {
    const mail = renderPayerReceipt(receipt({ language: 'ar' }));
    expect(mail.subject).toBe('إيصال الدفع الخاص بك من Corner Shop');
    expect(mail.text).toContain('https://pay.example/form/frm_x');
  });

  it('falls back to English for a language that is not offered or not recorded', () => {
    expect(renderPayerReceipt(receipt({ language: 'tlh' })).subject).toBe('Your payment receipt from Corner Shop');
    expect(renderPayerReceipt(receipt({ language: null })).subject).toBe('Your payment receipt from Corner Shop');
  });
});
