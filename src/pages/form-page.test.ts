import { describe, it, expect } from 'vitest';
import { renderFormPage, type FormPageView } from './form-page.ts';

const XSS = '<img src=x onerror=alert(1)>';
const view = (over: Partial<FormPageView> = {}): FormPageView => ({
  token: 'tok',
  phase: 'fields',
  order_status: 'pending',
  payment_status: 'unconfirmed',
  site_name: XSS,
  order_id: XSS,
  order_amount: '25',
  order_currency: 'USD',
  crypto_currency: 'testBTC',
  address: 'bcrt1qexample',
  crypto_amount_due: '0.0005',
  exchange_rate: '50000',
  expires_ms: 1_000_000,
  remaining_order_amount: '25.00',
  user_fields: [{ name: 'who', display_name: XSS, required: 0, type: 'textarea', value: `</textarea>${XSS}` }],
  ask_email: true,
  cancel_url: 'javascript:alert(1)',
  complete_url: null,
  ...over,
});

describe('the payment form page HTML', () => {
  it('escapes every merchant string, including a prefilled textarea that tries to close itself', () => {
    const html = renderFormPage(view(), { now: 0 });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('</textarea><img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('(Optional) <bdi>&lt;img');
  });

  it('has no inline script or style, only the JSON data block and the script file', () => {
    const plain = { site_name: 'Shop', order_id: 'A-1', user_fields: [{ name: 'who', display_name: 'Who', required: 1 as const, type: 'text' as const, value: '' }] };
    const html = renderFormPage(view(plain), { now: 0 });
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).toContain('<script type="application/json" id="form-data">');
    expect(html).not.toMatch(/ style=| on[a-z]+=/);
  });

  it('never links a javascript: cancel URL and never shows payment_complete_url before payment', () => {
    const html = renderFormPage(view({ cancel_url: 'javascript:alert(1)' }), { now: 0 });
    expect(html).not.toContain('javascript:');
    expect(renderFormPage(view({ complete_url: null }), { now: 0 })).not.toContain('thanks');
  });

  it('asks for the e-mail only when the shop gave none', () => {
    expect(renderFormPage(view({ ask_email: true }), { now: 0 })).toContain('id="user-email"');
    expect(renderFormPage(view({ ask_email: false }), { now: 0 })).not.toContain('id="user-email"');
  });

  it('offers "E-mail me a receipt" with the e-mail field, unchecked by default, and not without it', () => {
    const html = renderFormPage(view({ ask_email: true }), { now: 0 });
    expect(html).toMatch(/<input id="receipt-consent" name="receipt" type="checkbox">\s*<label for="receipt-consent">E-mail me a receipt<\/label>/);
    expect(html).not.toMatch(/id="receipt-consent"[^>]*checked/);
    expect(html.indexOf('id="user-email"')).toBeLessThan(html.indexOf('id="receipt-consent"'));
    expect(renderFormPage(view({ ask_email: false }), { now: 0 })).not.toContain('receipt-consent');
  });
});
