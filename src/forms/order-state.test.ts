import { describe, it, expect } from 'vitest';
import { deriveOrderState, type OrderOutput } from './order-state.ts';

const T0 = 1_700_000_000_000;
const MIN15 = 15 * 60_000;
const lock = (rate: string, at = T0) => ({ rate, lockedAt: at, expiresAt: at + MIN15 });
const out = (sats: bigint, at: number, confirmations = 0, txid = `tx${at}`): OrderOutput => ({ txid, vout: 0, sats, firstSeenAt: at, confirmations });
const derive = (over: Partial<Parameters<typeof deriveOrderState>[0]>) =>
  deriveOrderState({ orderAmount: '25', locks: [lock('50000')], outputs: [], now: T0 + 1000, requiredConfirmations: 1, ...over }, 2);

describe('order state of a form or set_addr order', () => {
  it('is pending and unconfirmed with nothing received while the lock runs, asking for the whole amount', () => {
    const s = derive({});
    expect(s).toMatchObject({ orderStatus: 'pending', paymentStatus: 'unconfirmed', expired: false, lockSats: 50_000n, dueSats: 50_000n, canRefresh: false });
  });

  it('fails with nothing received once the lock ran out, and the failure is final (confirmed)', () => {
    const s = derive({ now: T0 + MIN15 });
    expect(s).toMatchObject({ orderStatus: 'failed', paymentStatus: 'confirmed', expired: true, canRefresh: false });
  });

  it('is paid by the quoted amount, unconfirmed until the transaction confirms', () => {
    expect(derive({ outputs: [out(50_000n, T0 + 10)] })).toMatchObject({ orderStatus: 'paid', paymentStatus: 'unconfirmed', dueSats: 0n });
    expect(derive({ outputs: [out(50_000n, T0 + 10, 1)] })).toMatchObject({ orderStatus: 'paid', paymentStatus: 'confirmed' });
  });

  it('one satoshi over the quote is paid too much; one under is paid too little', () => {
    expect(derive({ outputs: [out(50_001n, T0 + 10, 1)] }).orderStatus).toBe('paid_too_much');
    expect(derive({ outputs: [out(49_999n, T0 + 10, 1)] }).orderStatus).toBe('failed_paid_too_little');
  });

  it('stays unconfirmed while any of several transactions awaits confirmation', () => {
    const s = derive({ outputs: [out(20_000n, T0 + 10, 3, 'a'), out(30_000n, T0 + 20, 0, 'b')] });
    expect(s).toMatchObject({ orderStatus: 'paid', paymentStatus: 'unconfirmed', confirmedSats: 20_000n, unconfirmedSats: 30_000n });
    expect(s.transactions.map((t) => [t.txid, t.sats, t.confirmed])).toEqual([
      ['a', 20_000n, true],
      ['b', 30_000n, false],
    ]);
  });

  it('partly paid and expired can be refreshed; the refresh re-prices the remainder and paying it completes the order', () => {
    const first = out(20_000n, T0 + 10, 1, 'a'); // 10 USD of 25 at 50000
    const expired = derive({ outputs: [first], now: T0 + MIN15 + 1 });
    expect(expired).toMatchObject({ orderStatus: 'failed_paid_too_little', paymentStatus: 'confirmed', canRefresh: true, remainingOrderAmount: '15.00' });
    const refreshedAt = T0 + MIN15 + 5;
    const locks = [lock('50000'), lock('60000', refreshedAt)];
    const refreshed = derive({ outputs: [first], locks, now: refreshedAt + 1 });
    expect(refreshed).toMatchObject({ orderStatus: 'failed_paid_too_little', expired: false, canRefresh: false, lockSats: 25_000n, dueSats: 25_000n });
    const done = derive({ outputs: [first, out(25_000n, refreshedAt + 10, 0, 'b')], locks, now: refreshedAt + 20 });
    expect(done).toMatchObject({ orderStatus: 'paid', paymentStatus: 'unconfirmed', dueSats: 0n, remainingOrderAmount: '0.00', paidOrderAmount: '25.00' });
  });

  it('rounds the remainder of a refresh up to the satoshi so the merchant never gets less', () => {
    const locks = [lock('50000'), lock('30000', T0 + MIN15 + 5)];
    const s = derive({ orderAmount: '10', outputs: [out(1n, T0 + 10)], locks, now: T0 + MIN15 + 6 });
    // 10 USD - 0.0005 USD = 9.9995 USD at 30000 = 33331.666… sats, rounded up
    expect(s.lockSats).toBe(33_332n);
  });

  it('values funds first seen after the lock ran out at the spot rate of that moment', () => {
    const late = { ...out(40_000n, T0 + MIN15 + 10), spotRate: '62500' }; // 25 USD at 62500
    expect(derive({ outputs: [late], now: T0 + MIN15 + 20 })).toMatchObject({ orderStatus: 'paid', paidOrderAmount: '25.00' });
    const lateShort = { ...out(40_000n, T0 + MIN15 + 10), spotRate: '50000' }; // 20 USD
    expect(derive({ outputs: [lateShort], now: T0 + MIN15 + 20 })).toMatchObject({ orderStatus: 'failed_paid_too_little', remainingOrderAmount: '5.00' });
    expect(() => derive({ outputs: [out(40_000n, T0 + MIN15 + 10)], now: T0 + MIN15 + 20 })).toThrow(/no spot rate/);
  });

  it('a set_addr order fails only when its reservation ends, not when its 15-minute rate lock does', () => {
    expect(derive({ closesAt: T0 + 7_200_000, now: T0 + MIN15 + 1 }).orderStatus).toBe('pending');
    expect(derive({ closesAt: T0 + 7_200_000, now: T0 + 7_200_000 }).orderStatus).toBe('failed');
  });

  it('an order without an amount is paid by any funds', () => {
    expect(derive({ orderAmount: null, outputs: [out(1_000n, T0 + 10)] }).orderStatus).toBe('paid');
    expect(derive({ orderAmount: null }).orderStatus).toBe('pending');
  });

  it('a withdrawn (double-spent) payment no longer counts: back to pending', () => {
    expect(derive({ outputs: [] }).orderStatus).toBe('pending');
  });
});
