import { describe, expect, it } from 'vitest';
import { renderEventMail } from './event-mail.ts';

describe('the merchant\'s payment e-mail', () => {
  it('says the order amount with its currency\'s minor units, as the pages do', () => {
    const mail = renderEventMail({ payment_reference: 'PAY1', status: 'confirmed', order_amount: 49.9, order_currency: 'EUR' });
    expect(mail.text).toContain('Order amount: 49.90 EUR\n');
    const yen = renderEventMail({ payment_reference: 'PAY2', status: 'confirmed', order_amount: 1500, order_currency: 'JPY' });
    expect(yen.text).toContain('Order amount: 1500 JPY\n');
  });

  it('a payment update (forms and set_addr orders) pads the same way', () => {
    const mail = renderEventMail({ event: 'payment_update', order_id: '5', order_status: 'paid', payment_status: 'confirmed', order_amount: '25', order_currency: 'USD', payment: {} });
    expect(mail.text).toContain('Order amount: 25.00 USD\n');
  });

  it('an event without an order amount has no such line', () => {
    expect(renderEventMail({ payment_reference: 'PAY3', status: 'unpaid' }).text).not.toContain('Order amount');
  });

  it("a payment update names what the payer typed into the form (e-mail, name, delivery address), plain and on its own lines", () => {
    const mail = renderEventMail({
      event: 'payment_update',
      order_id: 'ORD-7',
      order_status: 'paid',
      payment_status: 'confirmed',
      user_email: 'payer@example.com',
      user_fields: [
        { name: 'full_name', display_name: 'Full name', required: 1, type: 'text', value: 'Ada <b>Lovelace</b>' },
        { name: 'shipping_address', display_name: 'Delivery address', required: 1, type: 'textarea', value: '12 St James Sq\r\nLondon\nWallet API ID: forged' },
        { name: 'gift_note', display_name: 'Gift note', required: 0, type: 'text', value: '' },
      ],
      payment: {},
    });
    expect(mail.text).toContain("The payer's details:\n  E-mail: payer@example.com\n  Full name: Ada <b>Lovelace</b>\n");
    expect(mail.text).toContain('  Delivery address: 12 St James Sq\n    London\n    Wallet API ID: forged\n');
    expect(mail.text).toContain('  Gift note: (not given)\n');
    expect(mail.text).not.toContain('\r');
    expect(mail.text.split('\n').filter((l) => l.startsWith('Wallet API ID:'))).toHaveLength(1);
  });

  it('a payment update without payer input has no payer section', () => {
    const mail = renderEventMail({ event: 'payment_update', order_id: '8', order_status: 'paid', payment_status: 'confirmed', user_email: null, user_fields: [], payment: {} });
    expect(mail.text).not.toContain("payer's details");
  });
});
