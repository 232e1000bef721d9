import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SATS, MIN_SATS, amountRangeProblem, satsCapProblem, satsRangeProblem } from './amount-bounds.ts';
import { MAX_DUST_THRESHOLD } from '../spending/tx-size.ts';
import { btcFromSats, ConversionError, convertAmount, fiatToSats } from './money.ts';

const PRICES: Record<string, string> = { USD: '50000', EUR: '46000.5', JPY: '7400000', IRR: '0.000001' };
const priceOf = (code: string) => PRICES[code];

describe('the amount bound', () => {
  it('takes up to 21,000,000 BTC and refuses a satoshi more, in any spelling', () => {
    for (const ok of ['21000000', '21000000.00000000', '020999999.99999999', '0.00000001', '1']) expect(amountRangeProblem(ok, 'BTC'), ok).toBeNull();
    for (const over of ['21000000.00000001', '21000001', '100000000000000000', '99999999', '0021000000.1']) {
      expect(amountRangeProblem(over, 'btc'), over).toMatch(/at most 21000000 BTC/);
    }
    // Greenfield's SATS: the same cap in satoshis.
    expect(amountRangeProblem('2100000000000000', 'SATS')).toBeNull();
    expect(amountRangeProblem('2100000000000001', 'sats')).toMatch(/at most 2100000000000000 SATS \(21000000 BTC/);
  });

  it('a fiat amount has at most 15 digits before the point, leading zeros not counted', () => {
    expect(amountRangeProblem('999999999999999.99', 'USD')).toBeNull();
    expect(amountRangeProblem('000999999999999999', 'JPY')).toBeNull();
    expect(amountRangeProblem('1000000000000000', 'USD')).toMatch(/at most 15 digits before the decimal point/);
    expect(amountRangeProblem('1000000000000000.5', 'KWD')).toMatch(/15 digits/);
  });

  it('a satoshi amount is at most 21,000,000 BTC and never negative', () => {
    expect(satsRangeProblem(MAX_SATS)).toBeNull();
    expect(satsRangeProblem(MAX_SATS + 1n)).toMatch(/worth more than 21000000 BTC/);
    expect(satsRangeProblem(-1n)).toMatch(/negative/);
    expect(satsRangeProblem(10n ** 25n)).toMatch(/worth more than 21000000 BTC/);
  });

  it('an amount asked for is at least the dust limit: 0.01 USD (20 sat at 50,000 USD) is refused, 546 sat is taken', () => {
    expect(MIN_SATS).toBe(MAX_DUST_THRESHOLD);
    expect(satsRangeProblem(MIN_SATS)).toBeNull();
    const tiny = satsRangeProblem(fiatToSats('0.01', PRICES.USD!));
    expect(tiny).toBe('is worth 0.0000002 BTC, less than 0.00000546 BTC (546 sat), the smallest payment the Bitcoin network relays (dust limit)');
    expect(satsRangeProblem(1n)).toMatch(/0\.00000001 BTC, less than 0\.00000546 BTC/);
    // A conversion asks nobody to pay: only the cap applies to it.
    expect(satsCapProblem(1n)).toBeNull();
    expect(convertAmount('0.01', 'USD', 'BTC', priceOf)).toBe('0.0000002');
  });

  it('every fiat amount within 15 digits priced at any rate is either within the bound or refused, never beyond BIGINT', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 17n - 1n }), fc.bigInt({ min: 1n, max: 10n ** 12n }), (units, rateUnits) => {
        const amount = btcFromSats(units); // 15 integer digits at most, 8 decimals
        const sats = fiatToSats(amount, btcFromSats(rateUnits));
        const problem = satsRangeProblem(sats);
        return problem === null ? sats >= MIN_SATS && sats <= MAX_SATS && sats < 2n ** 63n : sats > MAX_SATS || sats < MIN_SATS;
      }),
    );
  });

  it('exchange (op 6) refuses amounts beyond the bound as a bad amount, a fiat one also when its BTC value is', () => {
    const bad = (amount: string, from: string, to: string) => {
      try {
        convertAmount(amount, from, to, priceOf);
      } catch (err) {
        return err instanceof ConversionError && err.kind === 'bad-amount' ? err.message : `other: ${String(err)}`;
      }
      return 'accepted';
    };
    expect(bad('21000000.00000001', 'BTC', 'USD')).toMatch(/21000000 BTC/);
    expect(bad('1000000000000000', 'USD', 'EUR')).toMatch(/15 digits/);
    // Within 15 digits, but 1,050,000,000,000.01 USD at 50,000 USD is a satoshi more than 21,000,000 BTC.
    expect(bad('1050000000000.01', 'USD', 'BTC')).toMatch(/worth more than 21000000 BTC/);
    expect(bad('1050000000000.01', 'USD', 'JPY')).toMatch(/worth more than 21000000 BTC/);
    // A tiny rate: 1 IRR is 10^6 BTC here, so 22 IRR is beyond the bound.
    expect(bad('22', 'IRR', 'BTC')).toMatch(/worth more than 21000000 BTC/);
    expect(convertAmount('1050000000000', 'USD', 'BTC', priceOf)).toBe('21000000');
    expect(convertAmount('21000000', 'BTC', 'USD', priceOf)).toBe('1050000000000.00');
  });
});
