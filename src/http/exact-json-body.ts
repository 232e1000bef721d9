// Request bodies of the payment API read exactly: JSON numbers stay decimal text (an order amount of
// 19.99 is never a binary float). The tree is then checked by the route's own exact validator.
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import { JsonSyntaxError, parseExactJson } from '../money/exact-json.ts';

/** Replaces the scope's JSON parser with the exact one; bodies arrive as `JsonValue` trees. */
export function useExactJsonBodies(app: FastifyInstance, bodyLimit: number): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    try {
      done(null, parseExactJson(String(body)));
    } catch (err) {
      const detail = err instanceof JsonSyntaxError ? `The body is not valid JSON: ${err.message}.` : 'The body is not valid JSON.';
      done(new DomainError('malformed-body', detail), undefined);
    }
  });
}
