import { describe, it, expect } from 'vitest';
import { paymentView, type ViewInput } from './payment-view.ts';

const EXPIRY = Date.parse('2026-01-01T12:15:00Z');
const BEFORE = EXPIRY - 60_000;
const AFTER = EXPIRY + 1;

function input(status: string, paid: Partial<ViewInput['amounts']> = {}, over: Partial<ViewInput> = {}): ViewInput {
  return {
    status,
    order_amount: '25.00',
    order_currency: 'USD',
    crypto_amount: '0.0005',
    crypto_currency: 'testBTC',
    crypto_address: 'tb1qexample',
    expiry_date: '2026-01-01T12:15:00Z',
    amounts: {
      unconfirmed_crypto_amount: '0',
      confirmed_crypto_amount: '0',
      unconfirmed_order_amount: '0',
      confirmed_order_amount: '0',
      ...paid,
    },
    ...over,
  };
}

describe('payment view', () => {
  it('an unpaid request shows the amount due, the QR code, the countdown and the cancel link', () => {
    const v = paymentView(input('unpaid'), BEFORE);
    expect(v).toMatchObject({ phase: 'unpaid', amountLabel: 'Amount to send', amountToSend: '0.00050000' });
    expect(v).toMatchObject({ showPay: true, showQr: true, showCountdown: true, showSuccess: false, showCancel: true });
  });

  it('after expiry with nothing paid, the QR code goes and an indicative amount is awaited', () => {
    const v = paymentView(input('unpaid'), AFTER);
    expect(v).toMatchObject({ phase: 'unpaid-expired', expired: true, amountLabel: 'Indicative amount to send', amountToSend: '' });
    expect(v).toMatchObject({ showPay: true, showQr: false });
  });

  it('too little paid says exactly how much is missing, in both currencies', () => {
    const v = paymentView(
      input('unconfirmed-less', { unconfirmed_crypto_amount: '0.0003', unconfirmed_order_amount: '15.00' }),
      BEFORE,
    );
    expect(v.headline).toBe('Payment seen, but it is not enough');
    expect(v.detail).toContain('Still missing: 10.00 USD.');
    expect(v).toMatchObject({ amountLabel: 'Remaining amount to send', amountToSend: '0.00020000', showQr: false, showCancel: false });
  });

  it('fiat amounts are said with their currency\'s minor units (49.9 EUR due, 25 paid: 24.90 EUR missing; JPY with none)', () => {
    const eur = paymentView(input('unconfirmed-less', { unconfirmed_crypto_amount: '0.0003', unconfirmed_order_amount: '25' }, { order_amount: '49.9', order_currency: 'EUR' }), BEFORE);
    expect(eur.detail).toContain('Still missing: 24.90 EUR.');
    const jpy = paymentView(input('unconfirmed-less', { unconfirmed_crypto_amount: '0.0003', unconfirmed_order_amount: '1000' }, { order_amount: '1500', order_currency: 'JPY' }), BEFORE);
    expect(jpy.detail).toContain('Still missing: 500 JPY.');
  });

  it('says what has been received once funds are seen, confirmed or not, and nothing before', () => {
    expect(paymentView(input('unpaid'), BEFORE).paidCrypto).toBe('');
    const v = paymentView(input('confirmed-less', { confirmed_crypto_amount: '0.0002', unconfirmed_crypto_amount: '0.00010000' }), BEFORE);
    expect(v.paidCrypto).toBe('0.0003');
  });

  it('a mix of confirmed and unconfirmed funds adds up both', () => {
    const v = paymentView(
      input('confirmed-less', {
        confirmed_crypto_amount: '0.0001',
        confirmed_order_amount: '5.00',
        unconfirmed_crypto_amount: '0.00019999',
        unconfirmed_order_amount: '9.9995',
      }),
      BEFORE,
    );
    expect(v.detail).toContain('Still missing: 10.0005 USD.');
    expect(v.amountToSend).toBe('0.00020001');
  });

  it('too little paid after expiry asks for an indicative remainder', () => {
    const v = paymentView(input('confirmed-less', { confirmed_crypto_amount: '0.0003', confirmed_order_amount: '15.00' }), AFTER);
    expect(v).toMatchObject({ phase: 'confirmed-less-expired', amountLabel: 'Indicative remaining amount to send', amountToSend: '' });
  });

  it('paid in full (confirmed or not) shows the result and the way back to the shop', () => {
    for (const status of ['unconfirmed', 'confirmed']) {
      const v = paymentView(input(status, { confirmed_crypto_amount: '0.0005', confirmed_order_amount: '25.00' }), AFTER);
      expect(v).toMatchObject({ phase: status, showPay: false, showQr: false, showCountdown: false, showSuccess: true, showCancel: false });
    }
    expect(paymentView(input('confirmed'), BEFORE).headline).toBe('Paid: payment confirmed');
  });

  it('too much paid says by how much', () => {
    const v = paymentView(input('confirmed-more', { confirmed_crypto_amount: '0.0006', confirmed_order_amount: '30.00' }), BEFORE);
    expect(v.headline).toBe('Paid too much: payment confirmed');
    expect(v.detail).toContain('You sent 5.00 USD more than the amount due');
    expect(v.showSuccess).toBe(true);
  });

  it('an invalid request offers nothing to pay, only the way back', () => {
    const v = paymentView(input('invalid', {}, { crypto_address: '' }), AFTER);
    expect(v).toMatchObject({ phase: 'invalid', showPay: false, showQr: false, showSuccess: false, showCancel: true });
  });
});
