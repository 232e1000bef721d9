import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventBody, eventsBetween, redeliveryBody, wants, type Announced, type GreenfieldPayment, type InvoiceFacts } from './webhook-events.ts';
import { btcpaySignature, verifyBtcpaySignature } from '../notify/btcpay-signature.ts';

const pay = (id: string, status: GreenfieldPayment['status'] = 'Processing'): GreenfieldPayment => ({
  id,
  receivedDate: 1_700_000_000,
  value: '0.00010000',
  fee: '0',
  status,
  destination: 'bcrt1qexample',
});
const none: Announced = { status: null, received: new Set(), settled: new Set() };
const types = (before: Announced, now: InvoiceFacts) => eventsBetween(before, now).map((e) => e.type);

describe('Greenfield invoice events', () => {
  it('a payment seen then confirmed announces Created, ReceivedPayment, Processing, then PaymentSettled, Settled', () => {
    const seen: InvoiceFacts = { status: 'Processing', additionalStatus: 'None', payments: [{ payment: pay('a-0'), settled: false }] };
    expect(types(none, { status: 'New', additionalStatus: 'None', payments: [] })).toEqual(['InvoiceCreated']);
    const created: Announced = { status: 'New', received: new Set(), settled: new Set() };
    expect(types(created, seen)).toEqual(['InvoiceReceivedPayment', 'InvoiceProcessing']);
    const processing: Announced = { status: 'Processing', received: new Set(['a-0']), settled: new Set() };
    const confirmed: InvoiceFacts = { status: 'Settled', additionalStatus: 'None', payments: [{ payment: pay('a-0', 'Settled'), settled: true }] };
    expect(types(processing, confirmed)).toEqual(['InvoicePaymentSettled', 'InvoiceSettled']);
    expect(types({ status: 'Settled', received: new Set(['a-0']), settled: new Set(['a-0']) }, confirmed)).toEqual([]);
  });

  it('a payment settled on first sight still passes through Processing, in order; a manual marking does not', () => {
    const created: Announced = { status: 'New', received: new Set(), settled: new Set() };
    const now: InvoiceFacts = { status: 'Settled', additionalStatus: 'PaidOver', payments: [{ payment: pay('b-1', 'Settled'), settled: true }] };
    const events = eventsBetween(created, now);
    expect(events.map((e) => e.type)).toEqual(['InvoiceReceivedPayment', 'InvoiceProcessing', 'InvoicePaymentSettled', 'InvoiceSettled']);
    expect(events[1]!.fields).toEqual({ overPaid: true });
    expect(events[3]!.fields).toEqual({ manuallyMarked: false, overPaid: true });
    expect(types(created, { status: 'Settled', additionalStatus: 'Marked', payments: [] })).toEqual(['InvoiceSettled']);
    expect(eventsBetween(created, { status: 'Invalid', additionalStatus: 'Marked', payments: [] })[0]!.fields).toEqual({ manuallyMarked: true });
  });

  it('expiry says whether something was paid; a payment after it says afterExpiration', () => {
    const partly: Announced = { status: 'New', received: new Set(['c-0']), settled: new Set() };
    const expired = eventsBetween(partly, { status: 'Expired', additionalStatus: 'PaidPartial', payments: [{ payment: pay('c-0'), settled: false }] });
    expect(expired).toEqual([{ type: 'InvoiceExpired', fields: { partiallyPaid: true } }]);
    expect(eventsBetween({ status: 'New', received: new Set(), settled: new Set() }, { status: 'Expired', additionalStatus: 'None', payments: [] })[0]!.fields).toEqual({ partiallyPaid: false });
    const late = eventsBetween({ status: 'Expired', received: new Set(), settled: new Set() }, { status: 'Expired', additionalStatus: 'PaidLate', payments: [{ payment: pay('d-0'), settled: false }] });
    expect(late).toEqual([{ type: 'InvoiceReceivedPayment', fields: { afterExpiration: true, paymentMethodId: 'BTC-CHAIN', payment: pay('d-0') } }]);
  });

  it('bodies carry the addressing, the invoice and every field of their type; a redelivery points at the first delivery', () => {
    const delivery = { deliveryId: 'D1', webhookId: 'W', originalDeliveryId: 'D1', isRedelivery: false, timestamp: 1_700_000_123 };
    const body = eventBody(delivery, { storeId: 'S', invoiceId: 'I', metadata: { orderId: '42' } }, { type: 'InvoiceExpired', fields: { partiallyPaid: false } });
    expect(Object.keys(body)).toEqual(['deliveryId', 'webhookId', 'originalDeliveryId', 'isRedelivery', 'type', 'timestamp', 'storeId', 'invoiceId', 'metadata', 'partiallyPaid']);
    const again = redeliveryBody(body, 'D2', 1_700_000_999);
    expect(again).toMatchObject({ deliveryId: 'D2', originalDeliveryId: 'D1', isRedelivery: true, timestamp: 1_700_000_999, partiallyPaid: false });
    expect(redeliveryBody(again, 'D3', 1).originalDeliveryId).toBe('D1');
  });

  it('authorized events filter by type', () => {
    expect(wants({ everything: true, specificEvents: [] }, 'InvoiceCreated')).toBe(true);
    expect(wants({ everything: false, specificEvents: ['InvoiceSettled'] }, 'InvoiceCreated')).toBe(false);
    expect(wants({ everything: false, specificEvents: ['InvoiceSettled'] }, 'InvoiceSettled')).toBe(true);
  });

  it('BTCPay-Sig is sha256= and the lowercase hex HMAC-SHA256 of the raw body under the secret', () => {
    const body = '{"type":"InvoiceSettled"}';
    const expected = `sha256=${createHmac('sha256', 'secret-1').update(body).digest('hex')}`;
    expect(btcpaySignature(body, 'secret-1')).toBe(expected);
    expect(verifyBtcpaySignature(expected, body, 'secret-1')).toBe(true);
    expect(verifyBtcpaySignature(expected, `${body} `, 'secret-1')).toBe(false);
    expect(verifyBtcpaySignature(expected.toUpperCase(), body, 'secret-1')).toBe(false);
  });
});
