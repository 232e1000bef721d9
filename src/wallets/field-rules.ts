import { DomainError } from '../core/domain-errors.ts';
import { isCurrencyCode } from '../money/currencies.ts';

/** True for a plausible e-mail address (one @, a dotted domain, no spaces anywhere), at most 254 characters. */
export function isEmail(value: string): boolean {
  const v = value;
  return v.length <= 254 && /^[^\s@<>()",;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/.test(v);
}

/** True for an absolute http or https URL of at most 2048 characters, without surrounding whitespace. */
export function isHttpUrl(value: string): boolean {
  const v = value;
  // new URL() would silently drop leading and trailing spaces and control characters: not ours to fix up.
  if (v.length > 2048 || v !== v.trim() || /[\u0000-\u001f\u007f]/.test(v)) return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * A local or order currency as given by a caller: a malformed code answers 101 (not valid), a well-formed one
 * without a current rate, BTC included (a bitcoin amount is not a local currency), 103 (not supported).
 * Returns the code uppercase.
 */
export function checkLocalCurrency(value: string, isSupported: (code: string) => boolean, field = 'local_currency'): string {
  if (!isCurrencyCode(value)) throw new DomainError('invalid-currency', `Currency is not valid: ${field} ${JSON.stringify(value)} is not a three-letter code`);
  const code = value.toUpperCase();
  if (code === 'BTC' || !isSupported(code)) {
    throw new DomainError('unsupported-currency', `Currency is not supported: ${field} ${JSON.stringify(value)} has no exchange rate here (see /currencies)`);
  }
  return code;
}
