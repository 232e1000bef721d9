import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDecimals, compareDecimals, decimalFromNumberLiteral, decimalToString, divideDecimals, divideRounded,
  isDecimal, multiplyDecimals, normalizeDecimal, parseDecimal, roundDecimal, unitsToString,
} from './decimal.ts';

const decimalArb = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 12 }))
  .map(([units, scale]) => decimalToString({ units, scale }));

describe('parseDecimal', () => {
  it('reads plain non-negative decimals exactly', () => {
    expect(parseDecimal('0')).toEqual({ units: 0n, scale: 0 });
    expect(parseDecimal('12.30')).toEqual({ units: 1230n, scale: 2 });
    expect(parseDecimal('0.000000000000000001')).toEqual({ units: 1n, scale: 18 });
  });

  it.each([
    [''], ['+1'], ['-1'], ['1e5'], ['1E5'], ['NaN'], ['Infinity'], ['.5'], ['5.'], ['01'], ['00.5'],
    [' 1'], ['1 '], ['1,5'], ['0x10'], ['１'], ['1..2'], ['1.2.3'],
  ])('rejects %j', (text) => {
    expect(() => parseDecimal(text)).toThrow();
    expect(isDecimal(text)).toBe(false);
  });

  it('rejects too many digits on either side of the point', () => {
    expect(() => parseDecimal('1'.repeat(25))).toThrow(/digits/);
    expect(() => parseDecimal(`0.${'1'.repeat(19)}`)).toThrow(/digits/);
    expect(() => parseDecimal('12.345', { maxFractionDigits: 2 })).toThrow(/more than 2 digits after/);
    expect(() => parseDecimal('9'.repeat(10_000))).toThrow(/too many digits/);
  });

  it('keeps the scale it was written at and refuses anything else with a RangeError', () => {
    expect(parseDecimal('19.990')).toEqual({ units: 19990n, scale: 3 });
    expect(parseDecimal('7')).toEqual({ units: 7n, scale: 0 });
    for (const bad of ['', '-1', '1e3', '.5', '5.', ' 1', '1,5', 'NaN', '0x10']) {
      expect(() => parseDecimal(bad), bad).toThrow(RangeError);
    }
  });

  it('accepts zero padding only when asked, without counting it as digits', () => {
    const padded = { allowLeadingZeros: true };
    expect(parseDecimal('00012.34500', padded)).toEqual({ units: 1234500n, scale: 5 });
    expect(parseDecimal('000', padded)).toEqual({ units: 0n, scale: 0 });
    expect(parseDecimal('00.5', padded)).toEqual({ units: 5n, scale: 1 });
    expect(parseDecimal(`${'0'.repeat(30)}1`, { ...padded, maxIntegerDigits: 1, maxFractionDigits: 0 })).toEqual({ units: 1n, scale: 0 });
    expect(normalizeDecimal('00012.34500', padded)).toBe('12.345');
    for (const bad of ['', '+01', '-01', '.5', '005.', '0x10', '01e3', ' 01']) {
      expect(() => parseDecimal(bad, padded), bad).toThrow(RangeError);
    }
    expect(() => parseDecimal('012')).toThrow(RangeError);
    expect(() => parseDecimal('0012', { ...padded, maxIntegerDigits: 1 })).toThrow(/more than 1 digits before/);
  });

  it('writes back exactly what it read', () => {
    fc.assert(fc.property(decimalArb, (text) => decimalToString(parseDecimal(text)) === text));
  });
});

describe('arithmetic', () => {
  it('adds without float artefacts', () => {
    expect(addDecimals('0.1', '0.2')).toBe('0.3');
    expect(multiplyDecimals('1.1', '1.1')).toBe('1.21');
    expect(multiplyDecimals('0.07', '100')).toBe('7');
  });

  it('compares exactly across scales', () => {
    expect(compareDecimals('1.10', '1.1')).toBe(0);
    expect(compareDecimals('0.30000000000000004', '0.3')).toBe(1);
    expect(compareDecimals('2', '10')).toBe(-1);
  });

  it('rounds half-up, up and down as asked', () => {
    expect(roundDecimal('2.345', 2)).toBe('2.35');
    expect(roundDecimal('2.344999', 2)).toBe('2.34');
    expect(roundDecimal('2.341', 2, 'up')).toBe('2.35');
    expect(roundDecimal('2.349', 2, 'down')).toBe('2.34');
    expect(roundDecimal('0.5', 0)).toBe('1');
    expect(roundDecimal('7', 3)).toBe('7.000');
    expect(divideRounded(5n, 2n, 'half-up')).toBe(3n);
    expect(divideRounded(5n, 2n, 'down')).toBe(2n);
    expect(divideRounded(4n, 2n, 'up')).toBe(2n);
  });

  it('rounds quotients down, up and half-up, and refuses a zero divisor with a RangeError', () => {
    expect([divideRounded(7n, 2n, 'down'), divideRounded(7n, 2n, 'up'), divideRounded(7n, 2n, 'half-up')]).toEqual([3n, 4n, 4n]);
    expect([divideRounded(13n, 10n, 'down'), divideRounded(13n, 10n, 'up'), divideRounded(13n, 10n, 'half-up')]).toEqual([1n, 2n, 1n]);
    expect(divideRounded(8n, 4n, 'up')).toBe(2n);
    expect(() => divideRounded(1n, 0n, 'up')).toThrow(RangeError);
  });

  it('writes scaled units with every decimal', () => {
    expect(unitsToString(5n, 2)).toBe('0.05');
    expect(unitsToString(12345n, 2)).toBe('123.45');
    expect(unitsToString(0n, 3)).toBe('0.000');
    expect(unitsToString(42n, 0)).toBe('42');
  });

  it('divides to a fixed scale', () => {
    expect(divideDecimals('1', '3', 4)).toBe('0.3333');
    expect(divideDecimals('2', '3', 4)).toBe('0.6667');
    expect(divideDecimals('2', '3', 4, 'down')).toBe('0.6666');
    expect(() => divideDecimals('1', '0', 2)).toThrow(/zero/);
  });

  it('normalizes by trimming trailing zeros', () => {
    expect(normalizeDecimal('12.300')).toBe('12.3');
    expect(normalizeDecimal('5.00')).toBe('5');
    expect(normalizeDecimal('0.0')).toBe('0');
  });

  it('sums agree with bigint arithmetic on the scaled integers', () => {
    fc.assert(fc.property(decimalArb, decimalArb, (a, b) => {
      const sum = addDecimals(a, b);
      expect(sum).toMatch(/^\d+(\.\d*[1-9])?$/);
      return compareDecimals(sum, a) >= 0 && compareDecimals(addDecimals(a, b), addDecimals(b, a)) === 0;
    }));
  });
});

describe('decimalFromNumberLiteral', () => {
  it('expands exponents exactly', () => {
    expect(decimalFromNumberLiteral('5e4')).toBe('50000');
    expect(decimalFromNumberLiteral('1.5E-3')).toBe('0.0015');
    expect(decimalFromNumberLiteral('-2.50')).toBe('-2.5');
    expect(decimalFromNumberLiteral('-0')).toBe('0');
    expect(decimalFromNumberLiteral('50000.12')).toBe('50000.12');
    expect(decimalFromNumberLiteral('1.0')).toBe('1');
    expect(decimalFromNumberLiteral('0.30000000000000004')).toBe('0.30000000000000004');
  });

  it('rejects what JSON would not accept, and absurd exponents', () => {
    for (const bad of ['+1', '.5', '01', '1e', 'NaN', '1e999999']) expect(() => decimalFromNumberLiteral(bad), bad).toThrow();
  });
});
