import type { FastifyInstance } from 'fastify';

/**
 * Refuses any request whose path parameters, query or body hold the NUL character (U+0000), in a value or a key.
 * No field of the interface can contain it, and PostgreSQL cannot store it in text (it answers "invalid byte
 * sequence", a 500), so it is a client error before any route reads it. Raised as a validation error, so each part
 * of the interface answers it in its own shape (201, invalid-request, invalid_request).
 */
export function refuseNulCharacters(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs for every request, and an async hook costs a promise and a turn.
  app.addHook('preValidation', (request, _reply, done) => {
    for (const [part, value] of [['params', request.params], ['querystring', request.query], ['body', request.body]] as const) {
      const at = findNul(value, '');
      if (at !== null) {
        const err = new Error(`${part}${at}: must not contain the NUL character`) as Error & {
          statusCode: number;
          validation: { instancePath: string; message: string }[];
          validationContext: string;
        };
        err.statusCode = 400;
        err.validation = [{ instancePath: at, message: 'must not contain the NUL character' }];
        err.validationContext = part;
        done(err);
        return;
      }
    }
    done();
  });
}

function findNul(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '/' : null;
  if (depth > 64 || value === null || typeof value !== 'object') return null;
  for (const [k, v] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    if (typeof k === 'string' && k.includes('\u0000')) return `${path}/${k.replace(/\u0000/g, '\\u0000')}`;
    const found = findNul(v, `${path}/${String(k)}`, depth + 1);
    if (found !== null) return found;
  }
  return null;
}
