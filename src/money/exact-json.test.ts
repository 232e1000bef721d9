import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isJsonObject, JsonNumber, JsonSyntaxError, type JsonValue, numericText, parseExactJson } from './exact-json.ts';

/** Turns exact numbers back into JS numbers, to compare structure with JSON.parse. */
function loosen(v: JsonValue): unknown {
  if (v instanceof JsonNumber) return JSON.parse(v.text);
  if (Array.isArray(v)) return v.map(loosen);
  if (isJsonObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, loosen(x)]));
  return v;
}

describe('parseExactJson', () => {
  it('keeps number literals as their source text', () => {
    const v = parseExactJson('{"bitcoin":{"usd":50000.12,"jpy":7400000,"tiny":6.5e-05,"big":1E+21,"f":0.30000000000000004}}');
    expect(isJsonObject(v)).toBe(true);
    const prices = (v as Record<string, JsonValue>)['bitcoin'] as Record<string, JsonValue>;
    expect(numericText(prices['usd'])).toBe('50000.12');
    expect(numericText(prices['jpy'])).toBe('7400000');
    expect(numericText(prices['tiny'])).toBe('0.000065');
    expect(numericText(prices['big'])).toBe('1000000000000000000000');
    expect(numericText(prices['f'])).toBe('0.30000000000000004');
  });

  it('keeps digits a float would lose', () => {
    const v = parseExactJson('[12345678901234567890.123456789]') as JsonValue[];
    expect((v[0] as JsonNumber).toDecimal()).toBe('12345678901234567890.123456789');
  });

  it('reads strings, escapes, literals, nesting and whitespace like JSON.parse', () => {
    const text = ' {"a" : [true, false, null, "x\\n\\u00e9\\ud83d\\ude00\\"\\\\\\/"], "b": {}, "c": [] , "d": -0.5e2 } ';
    expect(loosen(parseExactJson(text))).toEqual(JSON.parse(text));
  });

  it('agrees with JSON.parse on arbitrary JSON documents', () => {
    fc.assert(fc.property(fc.json(), (text) => {
      expect(loosen(parseExactJson(text))).toEqual(JSON.parse(text));
    }), { numRuns: 300 });
  });

  it('treats "__proto__" as an ordinary key', () => {
    const v = parseExactJson('{"__proto__":{"polluted":true}}') as Record<string, JsonValue>;
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it.each([
    [''], ['{'], ['{"a":1,}'], ['[1,]'], ['01'], ['1.'], ['.5'], ['+1'], ['-'], ['NaN'], ['Infinity'],
    ['{"a" 1}'], ["{'a':1}"], ['"abc'], ['"a\\x"'], ['"\u0001"'], ['[1] [2]'], ['tru'], ['1e'], ['{"a":1}x'],
  ])('rejects %j with a syntax error', (text) => {
    expect(() => parseExactJson(text)).toThrow(JsonSyntaxError);
  });

  it('refuses a number whose exponent is beyond 400 (it has no exact decimal to read), and takes one within', () => {
    for (const text of ['1e999', '{"a":-1E+401}', '[1e-999]', '1e99999999999999999999']) expect(() => parseExactJson(text), text).toThrow(/number out of range/);
    expect((parseExactJson('[1e400]') as JsonNumber[])[0]!.toDecimal()).toBe(`1${'0'.repeat(400)}`);
  });

  it('rejects absurd nesting instead of overflowing the stack', () => {
    expect(() => parseExactJson('['.repeat(10_000) + ']'.repeat(10_000))).toThrow(/deeply/);
  });
});

describe('numericText', () => {
  it('accepts JSON numbers and strings holding a number literal only', () => {
    expect(numericText(new JsonNumber('1.50'))).toBe('1.5');
    expect(numericText('50000.10000')).toBe('50000.1');
    expect(numericText('abc')).toBeUndefined();
    expect(numericText('1,000')).toBeUndefined();
    expect(numericText('')).toBeUndefined();
    expect(numericText(null)).toBeUndefined();
    expect(numericText(true)).toBeUndefined();
  });
});
