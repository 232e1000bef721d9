import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { derivePaymentStatus, PAYMENT_STATUSES, type DetectedOutput, type PaymentStatusInput } from './payment-status.ts';
import { fiatToSats } from '../money/money.ts';

const CREATED = 1_700_000_000_000;
const EXPIRY = CREATED + 900_000;
const WINDOW = 24 * 3600_000;
const BEFORE = CREATED + 60_000; // seen inside the rate guarantee
const AFTER = EXPIRY + 60_000; // seen after the rate guarantee

// 100.00 USD at 50000.00 USD/BTC is exactly 200,000 sats; one satoshi is worth 0.0005 USD.
function payment(outputs: DetectedOutput[], over: Partial<PaymentStatusInput> = {}): PaymentStatusInput {
  return {
    orderAmount: '100.00',
    orderCurrency: 'USD',
    minorUnits: 2,
    lockedRate: '50000.00',
    expiryMs: EXPIRY,
    createdMs: CREATED,
    monitoringWindowMs: WINDOW,
    outputs,
    now: CREATED + 120_000,
    ...over,
  };
}

const out = (sats: bigint, confirmations = 0, firstSeenAt = BEFORE, spotRate?: string): DetectedOutput =>
  spotRate === undefined ? { sats, firstSeenAt, confirmations } : { sats, firstSeenAt, confirmations, spotRate };

describe('derivePaymentStatus: one case per status', () => {
  const cases: Array<[string, PaymentStatusInput, string]> = [
    ['no funds inside the monitoring window is unpaid', payment([]), 'unpaid'],
    ['no funds once the monitoring window has passed is invalid', payment([], { now: CREATED + WINDOW }), 'invalid'],
    ['one satoshi short of a whole-satoshi amount is unconfirmed-less', payment([out(199_999n)]), 'unconfirmed-less'],
    ['the exact quoted amount unconfirmed is unconfirmed', payment([out(200_000n)]), 'unconfirmed'],
    ['one satoshi over is unconfirmed-more', payment([out(200_001n)]), 'unconfirmed-more'],
    ['half the amount confirmed is confirmed-less', payment([out(100_000n, 1)]), 'confirmed-less'],
    ['the exact amount confirmed is confirmed', payment([out(200_000n, 3)]), 'confirmed'],
    ['half again as much confirmed is confirmed-more', payment([out(300_000n, 1)]), 'confirmed-more'],
  ];
  it.each(cases)('%s', (_name, input, status) => {
    expect(derivePaymentStatus(input).status).toBe(status);
  });

  it('covers every documented status', () => {
    expect(new Set(cases.map((c) => c[2]))).toEqual(new Set(PAYMENT_STATUSES));
  });
});

describe('derivePaymentStatus: within one satoshi is equal', () => {
  // 10.00 USD at 30000 USD/BTC is 33,333.33... sats; the quoted amount is 33,334.
  const thirds = (sats: bigint) => payment([out(sats)], { orderAmount: '10.00', lockedRate: '30000' });
  it.each([
    [33_332n, 'unconfirmed-less'],
    [33_333n, 'unconfirmed'], // 0.33 sat short: within one satoshi
    [33_334n, 'unconfirmed'], // the quoted, rounded-up amount
    [33_335n, 'unconfirmed-more'], // 1.67 sats over
  ])('%s sats against 33,333.33 owed is %s', (sats, status) => {
    expect(derivePaymentStatus(thirds(sats)).status).toBe(status);
    expect(derivePaymentStatus(thirds(sats)).requiredSats).toBe(33_334n);
  });

  it('exactly one satoshi away from a whole-satoshi amount is not equal', () => {
    expect(derivePaymentStatus(payment([out(199_999n)])).status).toBe('unconfirmed-less');
    expect(derivePaymentStatus(payment([out(200_001n)])).status).toBe('unconfirmed-more');
  });

  it('the quoted amount is equal for any amount and rate, one more satoshi is more, two fewer are less', () => {
    const decimal = (units: bigint, scale: number) => {
      const s = units.toString().padStart(scale + 1, '0');
      return scale === 0 ? s : `${s.slice(0, -scale)}.${s.slice(-scale)}`;
    };
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 9n }),
        fc.integer({ min: 0, max: 3 }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 8 }),
        (amountUnits, amountScale, rateUnits, rateScale) => {
          const orderAmount = decimal(amountUnits, amountScale);
          const lockedRate = decimal(rateUnits, rateScale);
          const need = fiatToSats(orderAmount, lockedRate);
          const at = (sats: bigint) =>
            derivePaymentStatus(payment([out(sats, 1)], { orderAmount, lockedRate, minorUnits: 3 })).status;
          expect(at(need)).toBe('confirmed');
          expect(at(need + 1n)).toBe('confirmed-more');
          if (need > 2n) expect(at(need - 2n)).toBe('confirmed-less');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('derivePaymentStatus: funds after expiry are valued at the spot rate', () => {
  it('funds seen after expiry count at the spot rate when first seen, not the locked rate', () => {
    // 100,000 sats is 50.00 at the locked rate but 100.00 at a spot of 100000.
    const late = derivePaymentStatus(payment([out(100_000n, 0, AFTER, '100000.00')]));
    expect(late.status).toBe('unconfirmed');
    expect(late.unconfirmedOrderAmount).toBe('100.00');
    const early = derivePaymentStatus(payment([out(100_000n, 0, BEFORE, '100000.00')]));
    expect(early.status).toBe('unconfirmed-less');
    expect(early.unconfirmedOrderAmount).toBe('50.00');
  });

  it('the quoted amount paid after expiry into a falling market is less', () => {
    const r = derivePaymentStatus(payment([out(200_000n, 1, AFTER, '40000')]));
    expect(r.status).toBe('confirmed-less');
    expect(r.confirmedOrderAmount).toBe('80.00');
  });

  it('funds seen exactly at the expiry moment are already valued at spot', () => {
    expect(derivePaymentStatus(payment([out(100_000n, 0, EXPIRY, '100000')])).status).toBe('unconfirmed');
  });

  it('a partial payment topped up after expiry with the rounded-up spot amount is equal', () => {
    // 50.00 paid at the locked rate; the remaining 50.00 at 99999.99 is ceil(50000.0005) = 50,001 sats.
    const remainder = fiatToSats('50.00', '99999.99');
    expect(remainder).toBe(50_001n);
    const r = derivePaymentStatus(payment([out(100_000n, 2), out(remainder, 0, AFTER, '99999.99')]));
    expect(r.status).toBe('confirmed');
    expect(r.paidOrderAmount).toBe('100.00');
  });

  it('an output seen after expiry without a spot rate is a caller error', () => {
    expect(() => derivePaymentStatus(payment([out(1n, 0, AFTER)]))).toThrow(RangeError);
  });
});

describe('derivePaymentStatus: confirmed and unconfirmed funds', () => {
  it('a mix of confirmed and unconfirmed funds is a confirmed status compared on the total', () => {
    const r = derivePaymentStatus(payment([out(100_000n, 1), out(100_000n, 0)]));
    expect(r).toEqual({
      status: 'confirmed',
      requiredSats: 200_000n,
      confirmedSats: 100_000n,
      unconfirmedSats: 100_000n,
      confirmedOrderAmount: '50.00',
      unconfirmedOrderAmount: '50.00',
      paidOrderAmount: '100.00',
      allConfirmed: false,
      lateSats: 0n,
    });
  });

  it('all funds confirmed is reported as allConfirmed', () => {
    expect(derivePaymentStatus(payment([out(150_000n, 1), out(50_000n, 4)])).allConfirmed).toBe(true);
  });

  it('outputs below the required confirmations stay unconfirmed', () => {
    const r = derivePaymentStatus(payment([out(200_000n, 5)], { requiredConfirmations: 6 }));
    expect(r.status).toBe('unconfirmed');
    expect(r.unconfirmedSats).toBe(200_000n);
    expect(derivePaymentStatus(payment([out(200_000n, 6)], { requiredConfirmations: 6 })).status).toBe('confirmed');
  });

  it('a withdrawn (replaced) transaction is simply absent, so the payment returns to unpaid', () => {
    expect(derivePaymentStatus(payment([out(200_000n)])).status).toBe('unconfirmed');
    const r = derivePaymentStatus(payment([]));
    expect(r.status).toBe('unpaid');
    expect(r.unconfirmedSats).toBe(0n);
    expect(r.paidOrderAmount).toBe('0.00');
    expect(r.allConfirmed).toBe(false);
  });

  it('zero-value outputs are not funds', () => {
    expect(derivePaymentStatus(payment([out(0n, 3)])).status).toBe('unpaid');
  });
});

describe('derivePaymentStatus: the monitoring window', () => {
  it('a partly paid request past its window keeps its funds status and counts later funds', () => {
    const r = derivePaymentStatus(
      payment([out(100_000n, 1), out(100_000n, 0, CREATED + WINDOW + 5, '50000')], { now: CREATED + WINDOW + 10 }),
    );
    expect(r.status).toBe('confirmed');
    expect(r.lateSats).toBe(0n);
  });

  it('funds first seen after the request became invalid do not revive it', () => {
    const r = derivePaymentStatus(payment([out(200_000n, 1, CREATED + WINDOW, '50000')], { now: CREATED + WINDOW + 1 }));
    expect(r.status).toBe('invalid');
    expect(r.lateSats).toBe(200_000n);
    expect(r.confirmedSats).toBe(0n);
  });

  it('the last millisecond of the window is still unpaid', () => {
    expect(derivePaymentStatus(payment([], { now: CREATED + WINDOW - 1 })).status).toBe('unpaid');
  });
});

describe('derivePaymentStatus: order-currency amounts', () => {
  it.each([
    ['10000 sats at 12345.67 rounds 1.234567 down', 10_000n, '12345.67', 2, '1.23'],
    ['1 sat at 500000 is exactly half a cent and rounds up', 1n, '500000', 2, '0.01'],
    ['1 sat at 499999.99 is just under half a cent', 1n, '499999.99', 2, '0.00'],
    ['a zero-decimal currency', 200_000n, '5000000', 0, '10000'],
    ['a three-decimal currency', 12_345n, '31000.123', 3, '3.827'],
  ])('%s', (_name, sats, rate, minorUnits, expected) => {
    const r = derivePaymentStatus(payment([out(sats, 1)], { lockedRate: rate, minorUnits, orderAmount: '1' }));
    expect(r.confirmedOrderAmount).toBe(expected);
    expect(r.paidOrderAmount).toBe(expected);
  });

  it('sums exactly before rounding', () => {
    // three outputs of 0.004 USD each: 0.012 in total rounds to 0.01, not 3 x 0.00.
    const r = derivePaymentStatus(payment([out(8n), out(8n), out(8n)], { orderAmount: '1' }));
    expect(r.unconfirmedOrderAmount).toBe('0.01');
  });

  it('bad inputs are rejected', () => {
    expect(() => derivePaymentStatus(payment([], { orderAmount: '0' }))).toThrow(RangeError);
    expect(() => derivePaymentStatus(payment([], { orderAmount: '1e3' }))).toThrow(RangeError);
    expect(() => derivePaymentStatus(payment([], { lockedRate: '0' }))).toThrow(RangeError);
    expect(() => derivePaymentStatus(payment([out(-1n)]))).toThrow(RangeError);
    expect(() => derivePaymentStatus(payment([], { requiredConfirmations: -1 }))).toThrow(RangeError);
  });

  it('with 0 required confirmations (Greenfield HighSpeed) funds in the mempool already count as confirmed', () => {
    const r = derivePaymentStatus(payment([{ ...out(50_000n), confirmations: 0 }], { requiredConfirmations: 0 }));
    expect(r.confirmedSats).toBe(50_000n);
    expect(r.status.startsWith('confirmed')).toBe(true);
  });
});
