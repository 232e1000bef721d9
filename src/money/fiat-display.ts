// How a fiat amount is shown to a person (pages, e-mails, the console): with its currency's ISO 4217 minor units,
// "49.90 EUR", "1500 JPY". Digits beyond them are kept, never rounded away: a display must not change an amount.
import { isIso4217, minorUnits } from './currencies.ts';

/** `amount` (a plain decimal string) padded to `code`'s minor units; unknown codes and non-decimals unchanged. */
export function fiatForDisplay(amount: string, code: string): string {
  return isIso4217(code.toUpperCase()) ? padFraction(amount, minorUnits(code)) : amount;
}

/** Pads the fraction of a plain decimal string to at least `digits` digits; anything else is returned as is. */
export function padFraction(amount: string, digits: number): string {
  const m = /^(-?\d+)(?:\.(\d*))?$/.exec(amount);
  if (!m) return amount;
  const fraction = m[2] ?? '';
  if (fraction.length >= digits) return amount;
  return `${m[1]}.${fraction.padEnd(digits, '0')}`;
}
