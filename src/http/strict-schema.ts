// Validation without coercion for a route scope: a string is a string, an integer an integer (a wrong type
// is refused, never converted). TypeBox's own compiler checks the same TypeBox schemas OpenAPI documents.
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType as E, type ValueError } from '@sinclair/typebox/errors';
import type { SchemaFailure } from './schema-wording.ts';

const compiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = TypeCompiler.Compile(schema);
  return (data: unknown) => {
    // A POST without a body (Fastify gives null or undefined) is read as an empty object: required fields are then reported by name.
    const value = (data === undefined || data === null) && httpPart === 'body' ? {} : data;
    if (check.Check(value)) return { value };
    const errors = [...check.Errors(value)].slice(0, 10).map(failureOf);
    return { error: errors as unknown as Error };
  };
};

/** Makes every route registered in `scope` validate strictly (no type coercion). */
export function useStrictSchemas(scope: FastifyInstance): void {
  scope.setValidatorCompiler(compiler);
}

const TYPE_OF: Partial<Record<E, string>> = {
  [E.String]: 'string', [E.Integer]: 'integer', [E.Number]: 'number', [E.Boolean]: 'boolean',
  [E.Object]: 'object', [E.Array]: 'array', [E.Null]: 'null',
};

/** A TypeBox error in Ajv's keywords, so every face words it with the one shared wording (schema-wording.ts). */
function failureOf(e: ValueError): SchemaFailure {
  const s = e.schema as Record<string, unknown>;
  const at = (keyword: string, params: Record<string, unknown> = {}): SchemaFailure => ({ instancePath: e.path, message: e.message.toLowerCase(), keyword, params });
  const type = TYPE_OF[e.type];
  if (type !== undefined) return at('type', { type });
  switch (e.type) {
    // TypeBox puts the property in the path already.
    case E.ObjectAdditionalProperties: return at('additionalProperties');
    case E.ObjectRequiredProperty: return at('required');
    case E.StringPattern: return at('pattern', { pattern: s.pattern });
    case E.StringFormat: return at('format', { format: s.format });
    case E.StringMinLength: return at('minLength', { limit: s.minLength });
    case E.StringMaxLength: return at('maxLength', { limit: s.maxLength });
    case E.IntegerMinimum: case E.NumberMinimum: return at('minimum', { limit: s.minimum });
    case E.IntegerMaximum: case E.NumberMaximum: return at('maximum', { limit: s.maximum });
    case E.IntegerExclusiveMinimum: case E.NumberExclusiveMinimum: return at('exclusiveMinimum', { limit: s.exclusiveMinimum });
    case E.IntegerExclusiveMaximum: case E.NumberExclusiveMaximum: return at('exclusiveMaximum', { limit: s.exclusiveMaximum });
    case E.ArrayMinItems: return at('minItems', { limit: s.minItems });
    case E.ArrayMaxItems: return at('maxItems', { limit: s.maxItems });
    case E.Literal: return at('const', { allowedValue: s.const });
    case E.Union: {
      // A union of literals is an enumeration: name its values.
      const values = Array.isArray(s.anyOf) ? (s.anyOf as Record<string, unknown>[]).map((b) => b.const) : [];
      return values.length > 0 && values.every((v) => v !== undefined) ? at('enum', { allowedValues: values }) : at('anyOf');
    }
    default: return at(String(E[e.type] ?? 'invalid'));
  }
}
