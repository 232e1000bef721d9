import type { FastifyInstance } from 'fastify';

/**
 * Refuses any request whose path parameters, query or body hold the NUL character (U+0000), in a value or a key.
 * No field of the interface can contain it, and PostgreSQL cannot store it in text (it answers "invalid byte
 * sequence", a 500), so it is a client error before any route reads it. Raised as a validation error, so each part
 * of the interface answers it in its own shape (201, invalid-request, invalid_request).
 */
export const NUL_MESSAGE = 'must not contain the NUL character';

/**
 * The body field a NUL character was found in, when that is what a validation error says (null otherwise), so that
 * a face can answer it as that field's own refusal (a key with a NUL is a key that is not valid).
 */
export function nulBodyField(error: { validation?: readonly { instancePath?: string; keyword?: string }[]; validationContext?: string }): string | null {
  const only = error.validation?.length === 1 ? error.validation[0] : undefined;
  if (!only || only.keyword !== 'nul' || error.validationContext !== 'body') return null;
  const m = /^\/([^/]+)$/.exec(only.instancePath ?? '');
  return m ? m[1]! : null;
}

export function refuseNulCharacters(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs for every request, and an async hook costs a promise and a turn.
  app.addHook('preValidation', (request, _reply, done) => {
    for (const [part, value] of [['params', request.params], ['querystring', request.query], ['body', request.body]] as const) {
      const at = findNul(value, '');
      if (at !== null) {
        const err = new Error(`${part}${at}: ${NUL_MESSAGE}`) as Error & {
          statusCode: number;
          validation: { instancePath: string; message: string; keyword: 'nul' }[];
          validationContext: string;
        };
        err.statusCode = 400;
        err.validation = [{ instancePath: at, message: NUL_MESSAGE, keyword: 'nul' }];
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
