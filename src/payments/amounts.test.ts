import { describe, it, expect } from 'vitest';
import { btcToSats, divRound, formatScaled, parseDecimal, requiredSats, satsToBtc, satsValue } from './amounts.ts';

describe('amounts', () => {
  it('parses plain decimals and refuses anything else', () => {
    expect(parseDecimal('19.990')).toEqual({ units: 19990n, scale: 3 });
    expect(parseDecimal('7')).toEqual({ units: 7n, scale: 0 });
    for (const bad of ['', '-1', '1e3', '.5', '5.', ' 1', '1,5', 'NaN', '0x10']) {
      expect(() => parseDecimal(bad), bad).toThrow(RangeError);
    }
  });

  it('rounds quotients down, up and half-up', () => {
    expect([divRound(7n, 2n, 'down'), divRound(7n, 2n, 'up'), divRound(7n, 2n, 'half-up')]).toEqual([3n, 4n, 4n]);
    expect([divRound(13n, 10n, 'down'), divRound(13n, 10n, 'up'), divRound(13n, 10n, 'half-up')]).toEqual([1n, 2n, 1n]);
    expect(divRound(8n, 4n, 'up')).toBe(2n);
    expect(() => divRound(1n, 0n, 'up')).toThrow(RangeError);
  });

  it('formats fixed-point amounts with every decimal', () => {
    expect(formatScaled(5n, 2)).toBe('0.05');
    expect(formatScaled(12345n, 2)).toBe('123.45');
    expect(formatScaled(0n, 3)).toBe('0.000');
    expect(formatScaled(42n, 0)).toBe('42');
  });

  it('writes satoshis as BTC without trailing zeros or exponent', () => {
    expect(satsToBtc(1n)).toBe('0.00000001');
    expect(satsToBtc(50_000n)).toBe('0.0005');
    expect(satsToBtc(100_000_000n)).toBe('1');
    expect(satsToBtc(2_100_000_000_000_000n)).toBe('21000000');
    expect(satsToBtc(0n)).toBe('0');
  });

  it('reads BTC decimals back to satoshis and refuses sub-satoshi precision', () => {
    expect(btcToSats('0.00000001')).toBe(1n);
    expect(btcToSats('1.5')).toBe(150_000_000n);
    expect(btcToSats('0.000000010')).toBe(1n);
    expect(() => btcToSats('0.000000001')).toThrow(RangeError);
  });

  it('rounds the crypto amount up to the satoshi', () => {
    expect(requiredSats('100.00', '50000.00')).toBe(200_000n);
    expect(requiredSats('10', '30000')).toBe(33_334n);
    expect(requiredSats('0.01', '99999.99')).toBe(11n); // 10.0000001 sats
    expect(() => requiredSats('1', '0')).toThrow(RangeError);
  });

  it('values satoshis in the order currency, half-up', () => {
    expect(satsValue(1n, '500000', 2)).toBe('0.01');
    expect(satsValue(200_000n, '50000.00', 2)).toBe('100.00');
    expect(satsValue(33_334n, '30000', 2)).toBe('10.00');
  });
});
