import { describe, expect, it } from 'vitest';
import { BTC_DECIMALS, ISO_4217_CODES, isIso4217, minorUnits, orderMinorUnits } from './currencies.ts';

describe('ISO 4217 table', () => {
  it('knows the minor units of zero-, two-, three- and four-decimal currencies', () => {
    expect(minorUnits('JPY')).toBe(0);
    expect(minorUnits('CLP')).toBe(0);
    expect(minorUnits('ISK')).toBe(0);
    expect(minorUnits('KRW')).toBe(0);
    expect(minorUnits('VND')).toBe(0);
    expect(minorUnits('USD')).toBe(2);
    expect(minorUnits('EUR')).toBe(2);
    expect(minorUnits('KWD')).toBe(3);
    expect(minorUnits('BHD')).toBe(3);
    expect(minorUnits('TND')).toBe(3);
    expect(minorUnits('CLF')).toBe(4);
  });

  it('accepts any case in minorUnits but only uppercase in isIso4217', () => {
    expect(minorUnits('usd')).toBe(2);
    expect(isIso4217('USD')).toBe(true);
    expect(isIso4217('usd')).toBe(false);
  });

  it('does not list bitcoin, metals, withdrawn codes or prototype keys', () => {
    for (const code of ['BTC', 'XBT', 'XAU', 'XDR', 'HRK', 'ZWL', 'VEF', '__proto__', 'constructor', 'toString']) {
      expect(isIso4217(code), code).toBe(false);
    }
    expect(() => minorUnits('BTC')).toThrow(/unknown ISO 4217/);
    expect(BTC_DECIMALS).toBe(8);
  });

  it('holds only three-letter uppercase codes with a 0 to 4 exponent', () => {
    expect(ISO_4217_CODES.length).toBeGreaterThan(150);
    for (const code of ISO_4217_CODES) {
      expect(code).toMatch(/^[A-Z]{3}$/);
      expect([0, 2, 3, 4]).toContain(minorUnits(code));
    }
  });
});

describe('decimals of an invoiced amount', () => {
  it('a BTC-denominated order has 8, a SATS one none, a fiat one its ISO 4217 minor units, an unknown code throws', () => {
    expect(orderMinorUnits('BTC')).toBe(8);
    expect(orderMinorUnits('SATS')).toBe(0);
    expect(orderMinorUnits('eur')).toBe(2);
    expect(orderMinorUnits('KWD')).toBe(3);
    expect(() => orderMinorUnits('XYZ')).toThrow(RangeError);
  });
});
