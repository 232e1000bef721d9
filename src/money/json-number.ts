/**
 * Turns an exact decimal string into a JSON number for fields the interface types as numbers. Only values
 * whose shortest float form means the very same decimal are allowed, so no digit is ever changed.
 */
export function jsonNumber(decimal: string): number {
  const n = Number(decimal);
  // Fast path (status reads format seven amounts each): when the number's shortest form is the very text
  // given, the two are the same decimal. Everything else is compared digit by digit below.
  if (String(n) === decimal && Number.isFinite(n)) return n;
  if (!Number.isFinite(n) || canonical(String(n)) !== canonical(decimal)) {
    throw new RangeError(`${decimal} cannot be written as an exact JSON number`);
  }
  return n;
}

/** Plain decimal form without exponent, sign of zero, leading or trailing zeros. */
function canonical(text: string): string {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  // No digit at all ("", ".", "-") is no number, not zero.
  if (!m || (m[2] ?? '') + (m[3] ?? '') === '') return `invalid:${text}`;
  const [, sign, intPart = '', fracPart = '', expText] = m;
  let digits = `${intPart}${fracPart}`;
  let point = intPart.length + Number(expText ?? 0);
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const int = digits.slice(0, point).replace(/^0+/, '') || '0';
  const frac = digits.slice(point).replace(/0+$/, '');
  const body = frac ? `${int}.${frac}` : int;
  return body === '0' ? '0' : `${sign}${body}`;
}
