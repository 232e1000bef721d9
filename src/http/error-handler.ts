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
        : sendCode(reply, format, '201', 400, 'Wrong or missing argument: request body is larger than 1 MiB');
    }
    if (status >= 400 && status < 500) {
      // Malformed JSON, wrong content type and the like: the client's mistake, said plainly. The wallet API keeps
      // DESIGN.md's table (201 is HTTP 400) whatever status Fastify chose (415, 400).
      return format === 'problem'
        ? sendProblem(reply, 'malformed-body', error.message, undefined, status)
        : sendCode(reply, format, '201', 400, `Wrong or missing argument: ${error.message}`);
    }
    request.log.error({ err: error }, 'unhandled error');
    return format === 'problem'
      ? sendProblem(reply, 'internal-error', 'An unexpected error occurred; it has been logged.')
      : sendCode(reply, format, '998', 500, WALLET_API_CODES['998'].message);
  });

  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/oauth/')) {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return reply.status(404).type('application/json').send({
        error: 'invalid_request',
        error_description: `no endpoint at ${request.method} ${request.url.split('?')[0]}; the token endpoint is POST /oauth/token`,
      });
    }
    if (isGreenfieldPath(request.url)) {
      return reply.status(404).header('cache-control', 'no-store').type('application/json').send({ code: 'not-found', message: `No operation at ${request.method} ${request.url.split('?')[0]}.` });
    }
    if (request.url.startsWith('/api/')) {
      return sendProblem(reply, 'no-such-operation', `No operation at ${request.method} ${request.url.split('?')[0]}.`);
    }
    return sendCode(reply, 'envelope', '999', 404, WALLET_API_CODES['999'].message);
  });
}

function formatOf(request: FastifyRequest): ErrorFormat {
  const configured = request.routeOptions?.config?.errorFormat;
  if (configured) return configured;
  return formatOfPath(request.url);
}

/**
 * The BTCPay Greenfield API's paths (src/greenfield): a client there reads `{code, message}`, also for a method
 * no route has or a URL no route could take, so those answers leave problem details for the payment API alone.
 */
export function isGreenfieldPath(url: string): boolean {
  return /^\/api\/v1\/(stores|api-keys|server)(\/|\?|$)/.test(url);
}

/** The error format of a path no route has claimed yet: the payment API under /api/, else the wallet envelope. */
function formatOfPath(url: string): ErrorFormat {
  return url.startsWith('/api/') ? 'problem' : 'envelope';
}

/**
 * Fastify's `frameworkErrors`: failures before any route runs (a path that is not valid percent-encoding, a path
 * parameter longer than the router takes) answer in the interface's shape, not Fastify's own JSON.
 */
export function frameworkErrorHandler(opts: { publicUrl: string }) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const detail =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path segment is longer than any valid value' : 'the path is not valid percent-encoding';
    if (request.url.startsWith('/oauth/')) return writeTokenError(reply, detail);
    if (isGreenfieldPath(request.url)) {
      return reply.status(400).header('cache-control', 'no-store').type('application/json').send({ code: 'malformed-url', message: `The URL is malformed: ${detail}.` });
    }
    if (formatOfPath(request.url) === 'problem') {
      return writeProblem(reply, 'malformed-url', problemType('malformed-url', opts.publicUrl), `The URL is malformed: ${detail}.`);
    }
    return sendCode(reply, 'envelope', '201', 400, `Wrong or missing argument: ${detail}`);
  };
}

function writeTokenError(reply: FastifyReply, description: string) {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  return reply.status(400).type('application/json').send({ error: 'invalid_request', error_description: description });
}

/**
 * Node's `clientError`: requests the HTTP parser refuses before Fastify sees them (headers over 16 KiB, an unknown
 * method, a broken request line). The answer is written on the socket in the shape of the part of the interface
 * the request line names: problem details under /api/, RFC 6749 under /oauth/, the wallet envelope elsewhere.
 */
export function clientErrorHandler(opts: { publicUrl: string }) {
  return (error: Error, socket: import('node:net').Socket) => {
    const err = error as NodeJS.ErrnoException & { rawPacket?: unknown };
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const raw = Buffer.isBuffer(err.rawPacket) ? err.rawPacket : Buffer.alloc(0);
    const line = raw.subarray(0, 2048).toString('latin1').split('\r\n')[0] ?? '';
    const path = line.split(' ')[1] ?? '';
    let status: number;
    let type = 'application/json';
    let body: Record<string, unknown>;
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      status = 408;
      body = { return: '201', status: 'Wrong or missing argument: the request did not arrive in time' };
    } else if (err.code === 'HPE_HEADER_OVERFLOW') {
      status = 431;
      body = { return: '201', status: 'Wrong or missing argument: the request headers are larger than 16 KiB' };
    } else if (err.code === 'HPE_INVALID_METHOD') {
      status = 404;
      body = { return: '999', status: WALLET_API_CODES['999'].message };
    } else {
      status = 400;
      body = { return: '201', status: 'Wrong or missing argument: the request is not valid HTTP' };
    }
    if (isGreenfieldPath(path)) {
      const code = status === 431 ? 'headers-too-large' : status === 404 ? 'not-found' : status === 408 ? 'request-timeout' : 'bad-request';
      body = { code, message: String(body.status).replace(/^Wrong or missing argument: /, '') };
    } else if (path.startsWith('/api/')) {
      const name: ProblemName = status === 431 ? 'headers-too-large' : status === 404 ? 'no-such-operation' : 'malformed-body';
      type = 'application/problem+json';
      body = { type: problemType(name, opts.publicUrl), title: PROBLEMS[name].title, status: status === 408 ? 408 : PROBLEMS[name].status, detail: String(body.status).replace(/^Wrong or missing argument: /, '') };
      status = body.status as number;
    } else if (path.startsWith('/oauth/')) {
      body = { error: 'invalid_request', error_description: String(body.status).replace(/^Wrong or missing argument: /, '') };
      status = status === 431 ? 431 : 400;
    } else if (status !== 408) {
      // DESIGN.md's table: 201 is HTTP 400 and 999 is 404, whatever the parser objected to.
      status = body.return === '999' ? 404 : 400;
    }
    const text = JSON.stringify(body);
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Bad Request'}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
          `Content-Type: ${type}\r\nConnection: close\r\n\r\n${text}`,
      );
    }
    socket.destroy();
  };
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

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
