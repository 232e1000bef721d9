import { describe, expect, it } from 'vitest';
import { jsonNumber } from './json-number.ts';
import { exactNumber } from './canonical-json.ts';

describe('exact JSON numbers', () => {
  it('a decimal whose shortest number form is the same text becomes that number', () => {
    expect(jsonNumber('25')).toBe(25);
    expect(jsonNumber('0.0005')).toBe(0.0005);
    expect(jsonNumber('-12.5')).toBe(-12.5);
  });

  it('a decimal spelled with trailing zeros or an exponent is still the same number', () => {
    expect(jsonNumber('67432.10')).toBe(67432.1);
    expect(jsonNumber('25.00')).toBe(25);
    expect(jsonNumber('1e+21')).toBe(1e21);
    expect(jsonNumber('0')).toBe(0);
  });

  it('a decimal with more digits than a double holds is refused, and stays a string in a record', () => {
    expect(() => jsonNumber('0.123456789012345678')).toThrow(RangeError);
    expect(() => jsonNumber('12345678901234567890.5')).toThrow(RangeError);
    expect(exactNumber('0.123456789012345678')).toBe('0.123456789012345678');
    expect(exactNumber('21000000.00000001')).toBe(21000000.00000001);
  });

  it('text that is not a plain decimal is never turned into a number', () => {
    expect(() => jsonNumber(' 5')).toThrow(RangeError);
    expect(() => jsonNumber('Infinity')).toThrow(RangeError);
    expect(() => jsonNumber('.')).toThrow(RangeError);
    expect(() => jsonNumber('0x10')).toThrow(RangeError);
    expect(() => jsonNumber('')).toThrow(RangeError);
  });
});
