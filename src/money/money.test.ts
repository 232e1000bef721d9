import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minorUnits } from './currencies.ts';
import { compareDecimals, decimalToString, multiplyDecimals, normalizeDecimal, parseDecimal } from './decimal.ts';
import {
  ConversionError, btcFromSats, convertAmount, fiatToFiat, fiatToSats, parseFiatAmount, satsFromBtc, satsToFiat,
} from './money.ts';

const CURRENCIES = ['JPY', 'USD', 'KWD', 'CLF', 'ISK', 'BHD'] as const;
const rateArb = fc
  .tuple(fc.bigInt({ min: 1n, max: 10n ** 15n }), fc.integer({ min: 0, max: 8 }))
  .map(([units, scale]) => decimalToString({ units, scale }))
  .filter((r) => compareDecimals(r, '0.01') >= 0);
const amountArb = (currency: string) =>
  fc.bigInt({ min: 0n, max: 10n ** 12n }).map((units) => decimalToString({ units, scale: minorUnits(currency) }));
const currencyAndAmount = fc.constantFrom(...CURRENCIES).chain((c) => fc.tuple(fc.constant(c), amountArb(c)));
const PLAIN = /^-?\d+(\.\d+)?$/;

describe('bitcoin and satoshis', () => {
  it('writes satoshis as trimmed or fixed bitcoin', () => {
    expect(btcFromSats(200_000n)).toBe('0.002');
    expect(btcFromSats(200_000n, true)).toBe('0.00200000');
    expect(btcFromSats(0n)).toBe('0');
    expect(btcFromSats(1n)).toBe('0.00000001');
    expect(btcFromSats(100_000_000n)).toBe('1');
    expect(btcFromSats(2_100_000_000_000_000n)).toBe('21000000');
  });

  it('reads bitcoin into satoshis and refuses sub-satoshi precision', () => {
    expect(satsFromBtc('0.002')).toBe(200_000n);
    expect(satsFromBtc('1')).toBe(100_000_000n);
    expect(satsFromBtc('0.00000001')).toBe(1n);
    expect(() => satsFromBtc('0.000000001')).toThrow(/8 digits/);
    expect(() => satsFromBtc('1e-8')).toThrow();
    expect(() => satsFromBtc('-1')).toThrow();
  });

  it('writes satoshis as BTC without trailing zeros or exponent', () => {
    expect(btcFromSats(1n)).toBe('0.00000001');
    expect(btcFromSats(50_000n)).toBe('0.0005');
    expect(btcFromSats(100_000_000n)).toBe('1');
    expect(btcFromSats(2_100_000_000_000_000n)).toBe('21000000');
    expect(btcFromSats(0n)).toBe('0');
  });

  it('reads BTC back to satoshis, zeros past the satoshi once normalized, and refuses sub-satoshi precision with a RangeError', () => {
    expect(satsFromBtc('0.00000001')).toBe(1n);
    expect(satsFromBtc('1.5')).toBe(150_000_000n);
    expect(satsFromBtc(normalizeDecimal('0.000000010'))).toBe(1n);
    expect(() => satsFromBtc('0.000000001')).toThrow(RangeError);
  });

  it('round-trips any satoshi amount through its bitcoin text, never in exponent form', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }), (sats) => {
      const text = btcFromSats(sats);
      expect(text).toMatch(PLAIN);
      return satsFromBtc(text) === sats && satsFromBtc(btcFromSats(sats, true)) === sats;
    }));
  });
});

describe('fiat amounts', () => {
  it('are held to the currency minor unit and written at it', () => {
    expect(parseFiatAmount('12.3', 'USD')).toBe('12.30');
    expect(parseFiatAmount('1500', 'jpy')).toBe('1500');
    expect(parseFiatAmount('1.5', 'KWD')).toBe('1.500');
    expect(() => parseFiatAmount('1.5', 'JPY')).toThrow();
    expect(() => parseFiatAmount('12.345', 'USD')).toThrow();
    expect(() => parseFiatAmount('1', 'BTC')).toThrow(/unknown/);
  });
});

describe('fiatToSats rounds up to the satoshi', () => {
  it('on crafted edge cases', () => {
    expect(fiatToSats('0.01', '50000')).toBe(20n); // exactly 20 sats
    expect(fiatToSats('0.01', '30000')).toBe(34n); // 33.33… rounds up
    expect(fiatToSats('100', '100000000')).toBe(100n);
    expect(fiatToSats('100.01', '100000000')).toBe(101n); // 100.01 sats → 101
    expect(fiatToSats('0', '50000')).toBe(0n);
    expect(fiatToSats('1', '0.01')).toBe(10_000_000_000n);
    expect(fiatToSats('19.99', '97234.565')).toBe(20_559n); // 20558.3… → 20559
    expect(() => fiatToSats('1', '0')).toThrow(/positive/);
    expect(() => fiatToSats('1', '1e5')).toThrow();
  });

  it('on order amounts and rates written with trailing zeros', () => {
    expect(fiatToSats('100.00', '50000.00')).toBe(200_000n);
    expect(fiatToSats('10', '30000')).toBe(33_334n);
    expect(fiatToSats('0.01', '99999.99')).toBe(11n); // 10.0000001 sats
    expect(() => fiatToSats('1', '0')).toThrow(RangeError);
  });

  it('never gives the merchant less than asked after a round trip, and is the least such amount', () => {
    fc.assert(fc.property(currencyAndAmount, rateArb, ([currency, amount], rate) => {
      const sats = fiatToSats(amount, rate);
      const back = satsToFiat(sats, rate, currency);
      expect(compareDecimals(back, amount)).toBeGreaterThanOrEqual(0);
      // Exact value of the satoshis is at least the amount, and one satoshi fewer is short of it.
      expect(compareDecimals(multiplyDecimals(btcFromSats(sats), rate), amount)).toBeGreaterThanOrEqual(0);
      if (sats > 0n) expect(compareDecimals(multiplyDecimals(btcFromSats(sats - 1n), rate), amount)).toBe(-1);
    }), { numRuns: 500 });
  });
});

describe('satsToFiat rounds half-up to the minor unit', () => {
  it('on crafted edge cases', () => {
    expect(satsToFiat(500n, '1000', 'USD')).toBe('0.01'); // exactly 0.005
    expect(satsToFiat(499n, '1000', 'USD')).toBe('0.00'); // 0.00499
    expect(satsToFiat(10n, '5000000', 'JPY')).toBe('1'); // exactly 0.5 yen
    expect(satsToFiat(9n, '5000000', 'JPY')).toBe('0'); // 0.45 yen
    expect(satsToFiat(5n, '10000', 'KWD')).toBe('0.001'); // exactly 0.0005
    expect(satsToFiat(4n, '10000', 'KWD')).toBe('0.000');
    expect(satsToFiat(100_000_000n, '50000', 'USD')).toBe('50000.00');
    expect(satsToFiat(0n, '50000', 'USD')).toBe('0.00');
    expect(() => satsToFiat(-1n, '50000', 'USD')).toThrow(/negative/);
  });

  it('values satoshis in the order currency, half-up', () => {
    expect(satsToFiat(1n, '500000', 'USD')).toBe('0.01');
    expect(satsToFiat(200_000n, '50000.00', 'USD')).toBe('100.00');
    expect(satsToFiat(33_334n, '30000', 'USD')).toBe('10.00');
  });

  it('always writes exactly the minor-unit decimals, with no float artefacts', () => {
    fc.assert(fc.property(fc.constantFrom(...CURRENCIES), fc.bigInt({ min: 0n, max: 10n ** 16n }), rateArb, (currency, sats, rate) => {
      const text = satsToFiat(sats, rate, currency);
      const m = minorUnits(currency);
      expect(text).toMatch(m === 0 ? /^\d+$/ : new RegExp(`^\\d+\\.\\d{${m}}$`));
      // Within half a minor unit of the exact value.
      const exact = multiplyDecimals(btcFromSats(sats), rate);
      const half = decimalToString({ units: 5n, scale: m + 1 });
      const diff = compareDecimals(text, exact) >= 0 ? subtract(text, exact) : subtract(exact, text);
      expect(compareDecimals(diff, half)).toBeLessThanOrEqual(0);
      if (compareDecimals(diff, half) === 0) expect(compareDecimals(text, exact)).toBe(1); // ties go up
    }), { numRuns: 500 });
  });
});

describe('fiatToFiat', () => {
  it('goes through BTC and rounds half-up to the target minor unit', () => {
    expect(fiatToFiat('100', '50000', '46000', 'EUR')).toBe('92.00');
    expect(fiatToFiat('1', '3', '1', 'USD')).toBe('0.33');
    expect(fiatToFiat('2', '3', '1', 'USD')).toBe('0.67');
    expect(fiatToFiat('0.10', '1', '3', 'USD')).toBe('0.30'); // not 0.30000000000000004
    expect(fiatToFiat('1', '200', '1', 'USD')).toBe('0.01'); // exactly 0.005 rounds up
    expect(fiatToFiat('100', '97234.565', '15235123.5', 'JPY')).toBe('15668');
    expect(fiatToFiat('100', '15235123.5', '29990.1234', 'KWD')).toBe('0.197');
  });
});

describe('convertAmount', () => {
  const prices: Record<string, string> = { USD: '50000', EUR: '46000.50', JPY: '7400000' };
  const priceOf = (c: string) => prices[c];

  it('converts in every direction, any case', () => {
    expect(convertAmount('1', 'btc', 'usd', priceOf)).toBe('50000.00');
    expect(convertAmount('0.00000001', 'BTC', 'JPY', priceOf)).toBe('0');
    expect(convertAmount('100', 'usd', 'btc', priceOf)).toBe('0.002');
    expect(convertAmount('10', 'USD', 'EUR', priceOf)).toBe('9.20');
    expect(convertAmount('10', 'usd', 'USD', priceOf)).toBe('10.00');
    expect(convertAmount('0.5', 'BTC', 'btc', priceOf)).toBe('0.5');
    expect(convertAmount('1', 'JPY', 'BTC', priceOf)).toBe('0.00000014'); // 13.5 sats rounds up
  });

  it('says why it cannot convert', () => {
    const kind = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err instanceof ConversionError ? err.kind : 'other';
      }
      return 'none';
    };
    expect(kind(() => convertAmount('1', 'XYZ', 'USD', priceOf))).toBe('unknown-currency');
    expect(kind(() => convertAmount('1', 'USD', 'GBP', priceOf))).toBe('no-rate');
    expect(kind(() => convertAmount('1e3', 'USD', 'EUR', priceOf))).toBe('bad-amount');
    expect(kind(() => convertAmount('0.000000001', 'BTC', 'USD', priceOf))).toBe('bad-amount');
  });
});

function subtract(a: string, b: string): string {
  const x = parseDecimal(a, { maxFractionDigits: 40, maxIntegerDigits: 40 });
  const y = parseDecimal(b, { maxFractionDigits: 40, maxIntegerDigits: 40 });
  const s = Math.max(x.scale, y.scale);
  return decimalToString({ units: x.units * 10n ** BigInt(s - x.scale) - y.units * 10n ** BigInt(s - y.scale), scale: s });
}
