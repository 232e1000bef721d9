import { describe, expect, it } from 'vitest';
import { paymentEventType } from './payment-events.ts';

describe('payment event types', () => {
  it('name each kind of status change', () => {
    expect(paymentEventType(null, 'unpaid')).toBe('payment.created');
    expect(paymentEventType('unpaid', 'unconfirmed-less')).toBe('payment.detected');
    expect(paymentEventType('unpaid', 'unconfirmed-more')).toBe('payment.detected');
    expect(paymentEventType('unconfirmed', 'confirmed')).toBe('payment.confirmed');
    expect(paymentEventType('unpaid', 'confirmed-less')).toBe('payment.confirmed');
    expect(paymentEventType('unpaid', 'invalid')).toBe('payment.invalid');
    expect(paymentEventType('unconfirmed', 'unpaid')).toBe('payment.unpaid');
  });
});
