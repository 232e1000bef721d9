import { describe, expect, it } from 'vitest';
import { isoUtc } from './clock.ts';

describe('ISO 8601 UTC dates', () => {
  it('drops the milliseconds, keeps the Z', () => {
    expect(isoUtc(Date.UTC(2026, 10, 21, 12, 0, 0, 999))).toBe('2026-11-21T12:00:00Z');
    expect(isoUtc(0)).toBe('1970-01-01T00:00:00Z');
  });

  it('a six-digit year keeps its sign and loses only the milliseconds', () => {
    expect(isoUtc(Date.UTC(10000, 0, 1, 0, 0, 0, 5))).toBe('+010000-01-01T00:00:00Z');
  });

  it('a time that is not a date is an error, not a string', () => {
    expect(() => isoUtc(Number.NaN)).toThrow(RangeError);
  });
});
