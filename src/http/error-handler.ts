import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError, ServiceUnavailableError, WalletApiError, WALLET_API_CODES, type FieldProblem } from '../core/errors.ts';
import { PROBLEMS, problemType, type ProblemName } from '../core/problems.ts';
import type { ErrorFormat } from './envelope.ts';

/** Installs the one error handler and the unknown-path handler (code 999); problem types are URIs under `publicUrl`. */
export function installErrorHandling(app: FastifyInstance, opts: { publicUrl: string }): void {
  const sendProblem = (reply: FastifyReply, name: ProblemName, detail?: string, errors?: FieldProblem[], status?: number) =>
    writeProblem(reply, name, problemType(name, opts.publicUrl), detail, errors, status);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const format = formatOf(request);
    if (error instanceof WalletApiError) {
      const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
      if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
      return sendCode(reply, format, error.code, error.httpStatus, error.message);
    }
    if (error instanceof ProblemError) {
      return sendProblem(reply, error.problem, error.message, error.errors);
    }
    if (error instanceof ServiceUnavailableError) {
      request.log.warn({ err: error.message }, 'service unavailable');
      return format === 'problem'
        ? sendProblem(reply, 'service-unavailable', error.message)
        : sendCode(reply, format, '998', 503, error.message);
    }
    if (error.validation) {
      const errors = error.validation.map((v) => toFieldProblem(v, error.validationContext));
      if (format === 'problem') return sendProblem(reply, 'invalid-request', 'The request has invalid fields.', errors);
      const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
      return sendCode(reply, format, '201', 400, `Wrong or missing argument: ${detail}`);
    }
    const status = error.statusCode ?? 500;
    if (status === 413 || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return format === 'problem'
        ? sendProblem(reply, 'payload-too-large', 'The request body is larger than 1 MiB.')
        : sendCode(reply, format, '201', 413, 'Wrong or missing argument: request body is larger than 1 MiB');
    }
    if (status >= 400 && status < 500) {
      // Malformed JSON, wrong content type and the like: the client's mistake, said plainly.
      return format === 'problem'
        ? sendProblem(reply, 'malformed-body', error.message, undefined, status)
        : sendCode(reply, format, '201', status, `Wrong or missing argument: ${error.message}`);
    }
    request.log.error({ err: error }, 'unhandled error');
    return format === 'problem'
      ? sendProblem(reply, 'internal-error', 'An unexpected error occurred; it has been logged.')
      : sendCode(reply, format, '998', 500, WALLET_API_CODES['998'].message);
  });

  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/api/')) {
      return sendProblem(reply, 'no-such-operation', `No operation at ${request.method} ${request.url.split('?')[0]}.`);
    }
    return sendCode(reply, 'envelope', '999', 404, WALLET_API_CODES['999'].message);
  });
}

function formatOf(request: FastifyRequest): ErrorFormat {
  const configured = request.routeOptions?.config?.errorFormat;
  if (configured) return configured;
  return request.url.startsWith('/api/') ? 'problem' : 'envelope';
}

function sendCode(reply: FastifyReply, format: ErrorFormat, code: string, http: number, status: string) {
  const key = format === 'result' ? 'result' : 'return';
  return reply.status(http).type('application/json').send({ [key]: code, status });
}

/** Writes an RFC 9457 problem details body; `status` overrides the problem's own for client errors Fastify reports (415). */
function writeProblem(reply: FastifyReply, name: ProblemName, type: string, detail?: string, errors?: FieldProblem[], statusOverride?: number) {
  const { title } = PROBLEMS[name];
  const status = statusOverride ?? PROBLEMS[name].status;
  const body: Record<string, unknown> = { type, title, status };
  if (detail) body.detail = detail;
  if (errors && errors.length > 0) body.errors = errors;
  return reply.status(status).type('application/problem+json').send(body);
}

function toFieldProblem(
  v: { instancePath?: string; message?: string; params?: Record<string, unknown>; keyword?: string },
  context?: string,
): FieldProblem {
  let path = (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  if (v.keyword === 'required' && typeof v.params?.missingProperty === 'string') {
    path = path ? `${path}.${v.params.missingProperty}` : v.params.missingProperty;
  } else if (v.keyword === 'additionalProperties' && typeof v.params?.additionalProperty === 'string') {
    path = path ? `${path}.${v.params.additionalProperty}` : v.params.additionalProperty;
  }
  const field = path || context || 'request';
  return { field, message: v.message ?? 'is invalid' };
}
