// Exact JSON trees in and out: a canonical form gives idempotency its body hash, and numbers leave as JSON
// numbers only when that is exact (an order amount of 19.99 is never a binary float).
import { createHash } from 'node:crypto';
import { JsonNumber, type JsonValue } from './exact-json.ts';
import { jsonNumber } from './json-number.ts';

/** JSON text of an exact tree: keys sorted, numbers as their exact shortest decimal. */
export function canonicalJson(value: JsonValue): string {
  if (value instanceof JsonNumber) return value.toDecimal();
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k]!)}`).join(',')}}`;
}

/** SHA-256 hex of the canonical form: equal for bodies that differ only in key order, spacing or number spelling. */
export function bodyHash(value: JsonValue): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}

/** A decimal as a JSON number when that is exact, else as a string (never a changed digit). */
export function exactNumber(decimal: string): number | string {
  try {
    return jsonNumber(decimal);
  } catch {
    return decimal;
  }
}

/** Converts an exact tree to plain JSON values for a response; numbers via {@link exactNumber}. */
export function toPlain(value: JsonValue): unknown {
  if (value instanceof JsonNumber) return exactNumber(value.toDecimal());
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toPlain);
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) out[k] = toPlain(v);
  return out;
}
