// Strict readers for partner and withdrawal request fields: a wrong type is an error, never coerced or trimmed.
import { DomainError } from '../core/domain-errors.ts';

/** A request's fields: the JSON body, or (for GET) the body merged with the query. */
export type Fields = Record<string, unknown>;

/** A required string field of 1 to `max` characters (no surrounding spaces). */
export function requiredString(fields: Fields, name: string, max = 200): string {
  const v = fields[name];
  if (v === undefined || v === null || v === '') throw new DomainError('invalid', `Wrong or missing argument: ${name} is required`);
  return checkString(v, name, max);
}

/** An optional string field; undefined when absent. */
export function optionalString(fields: Fields, name: string, max = 200): string | undefined {
  const v = fields[name];
  if (v === undefined) return undefined;
  return checkString(v, name, max);
}

function checkString(v: unknown, name: string, max: number): string {
  if (typeof v !== 'string') throw new DomainError('invalid', `Wrong or missing argument: ${name} must be a string`);
  if (v.length > max) throw new DomainError('invalid', `Wrong or missing argument: ${name} is longer than ${max} characters`);
  if (v.trim() !== v) throw new DomainError('invalid', `Wrong or missing argument: ${name} has leading or trailing spaces`);
  return v;
}

/** An optional JSON object field (not an array, not null); undefined when absent. */
export function optionalObject(fields: Fields, name: string): Record<string, unknown> | undefined {
  const v = fields[name];
  if (v === undefined) return undefined;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new DomainError('invalid', `Wrong or missing argument: ${name} must be a JSON object`);
  }
  return v as Record<string, unknown>;
}

/** A required JSON object field. */
export function requiredObject(fields: Fields, name: string): Record<string, unknown> {
  const v = optionalObject(fields, name);
  if (v === undefined) throw new DomainError('invalid', `Wrong or missing argument: ${name} is required`);
  return v;
}

/** Refuses fields the operation does not know, so a misspelt one is never silently ignored. */
export function onlyKnown(fields: Fields, known: readonly string[]): void {
  const extra = Object.keys(fields).filter((k) => !known.includes(k));
  if (extra.length > 0) throw new DomainError('invalid', `Wrong or missing argument: unknown field(s) ${extra.join(', ')}`);
}
