// Request bodies of the payment API read exactly: JSON numbers stay decimal text (an order amount of
// 19.99 is never a binary float), and a canonical form gives idempotency its body hash.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../core/errors.ts';
import { JsonNumber, JsonSyntaxError, parseExactJson, type JsonValue } from '../rates/exact-json.ts';
import { jsonNumber } from '../core/json-number.ts';

/** Replaces the scope's JSON parser with the exact one; bodies arrive as `JsonValue` trees. */
export function useExactJsonBodies(app: FastifyInstance, bodyLimit: number): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    try {
      done(null, parseExactJson(String(body)));
    } catch (err) {
      const detail = err instanceof JsonSyntaxError ? `The body is not valid JSON: ${err.message}.` : 'The body is not valid JSON.';
      done(new ProblemError(400, 'Bad Request', detail), undefined);
    }
  });
}

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
