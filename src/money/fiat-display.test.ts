import { describe, expect, it } from 'vitest';
import { fiatForDisplay, padFraction } from './fiat-display.ts';

describe('fiat amounts as a person reads them', () => {
  it('shows each currency with its ISO 4217 minor units', () => {
    expect(fiatForDisplay('49.9', 'EUR')).toBe('49.90');
    expect(fiatForDisplay('25', 'USD')).toBe('25.00');
    expect(fiatForDisplay('1500', 'JPY')).toBe('1500');
    expect(fiatForDisplay('1.5', 'KWD')).toBe('1.500');
    expect(fiatForDisplay('0', 'usd')).toBe('0.00');
  });

  it('never rounds away digits the amount has', () => {
    expect(fiatForDisplay('49.999', 'EUR')).toBe('49.999');
    expect(fiatForDisplay('1500.5', 'JPY')).toBe('1500.5');
  });

  it('leaves an unknown code or a text that is not a plain decimal as it is', () => {
    expect(fiatForDisplay('0.0005', 'BTC')).toBe('0.0005');
    expect(fiatForDisplay('', 'EUR')).toBe('');
    expect(fiatForDisplay('1e3', 'EUR')).toBe('1e3');
    expect(padFraction('-2.5', 2)).toBe('-2.50');
    expect(padFraction('7.', 2)).toBe('7.00');
  });
});
