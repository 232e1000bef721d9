// JSON text whose numbers are plain decimals. JSON.stringify writes a number as JavaScript prints it, which is in
// exponent notation below 1e-6 and from 1e21 on (a received 0.00000099 BTC would read 9.9e-7); the interface's amounts
// are decimals a person or a shop's code reads, so they leave here written out. Node 20 has no JSON.rawJSON, so the
// text JSON.stringify made is rewritten: only number tokens outside strings, each to the same value exactly.
import { decimalFromNumberLiteral } from './decimal.ts';

/** A number with an exponent somewhere in the text (maybe inside a string: then the scan below finds none). */
const MAYBE_EXPONENT = /[0-9][eE][+-]?[0-9]/;

/** `JSON.stringify(value)` with every number written as a plain decimal (2e-7 as 0.0000002, 1e21 in full). */
export function plainJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined || !MAYBE_EXPONENT.test(text) ? text : plainNumbers(text);
}

/** Rewrites the number tokens of valid JSON text that have an exponent as plain decimals; strings are left alone. */
export function plainNumbers(text: string): string {
  let out = '';
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, past escaped characters.
      i += 1;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i += 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && /[0-9eE.+-]/.test(text[end]!)) end += 1;
      const token = text.slice(i, end);
      if (/[eE]/.test(token)) {
        out += text.slice(from, i) + decimalFromNumberLiteral(token);
        from = end;
      }
      i = end;
    } else {
      i += 1;
    }
  }
  return out + text.slice(from);
}
