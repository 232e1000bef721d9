// An amount a client sends: a JSON number, or a string holding a plain decimal ("49.90"). Both are read exactly,
// from the JSON text, never through a binary float; every face that takes a decimal amount reads it here, so the
// payment API and /payment_form take the same spellings and refuse the same ones.
import { decimalFromNumberLiteral } from './decimal.ts';
import { JsonNumber, type JsonValue } from './exact-json.ts';

/** A plain decimal string: digits, optionally a point and digits; no sign, exponent, spaces or leading zeros. */
const PLAIN_DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** What a client may send as an amount, said the same way by every face. */
export const AMOUNT_SPELLING = 'a JSON number or a string of a plain decimal like "49.90"';

/**
 * The exact decimal of an amount as sent (a negative JSON number keeps its sign, so the caller can say "must be
 * positive"), or why it is no amount.
 */
export function readAmountInput(v: JsonValue | undefined): { decimal: string } | { problem: string } {
  if (v instanceof JsonNumber) {
    try {
      return { decimal: v.toDecimal() };
    } catch {
      return { problem: 'must be a number within range' };
    }
  }
  if (typeof v === 'string') {
    if (PLAIN_DECIMAL.test(v)) return { decimal: decimalFromNumberLiteral(v) };
    return { problem: `must be a decimal number like 49.90: ${AMOUNT_SPELLING} (digits, optionally a point and digits; no sign, exponent, spaces or leading zeros)` };
  }
  return { problem: `must be a number (${AMOUNT_SPELLING})` };
}
