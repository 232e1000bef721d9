// Validation without coercion for a route scope: a string is a string, an integer an integer (a wrong type
// is refused, never converted). TypeBox's own compiler checks the same TypeBox schemas OpenAPI documents.
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

const compiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = TypeCompiler.Compile(schema);
  return (data: unknown) => {
    // A POST without a body (Fastify gives null or undefined) is read as an empty object: required fields are then reported by name.
    const value = (data === undefined || data === null) && httpPart === 'body' ? {} : data;
    if (check.Check(value)) return { value };
    const errors = [...check.Errors(value)].slice(0, 10).map((e) => ({
      instancePath: e.path,
      message: e.message.toLowerCase(),
      keyword: 'type',
      params: {},
    }));
    return { error: errors as unknown as Error };
  };
};

/** Makes every route registered in `scope` validate strictly (no type coercion). */
export function useStrictSchemas(scope: FastifyInstance): void {
  scope.setValidatorCompiler(compiler);
}
