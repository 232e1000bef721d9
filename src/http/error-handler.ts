// The one error handler, the one not-found handler, and the refusals made before Fastify sees a request: each asks
// the face table (error-faces.ts) for the renderer of the request's face and lets it answer.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WALLET_API_CODES } from '../core/errors.ts';
import { ErrorFaces, type FaceRenderer } from './error-faces.ts';

export { ErrorFaces, faceOf, type Face } from './error-faces.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The face table; a face above http/ installs its renderer with `errorFaces.use`. */
    errorFaces: ErrorFaces;
  }
}

/** Installs the one error handler and the unknown-path handler; problem types are URIs under `publicUrl`. */
export function installErrorHandling(app: FastifyInstance, opts: { publicUrl: string; faces?: ErrorFaces }): void {
  const faces = opts.faces ?? new ErrorFaces(opts.publicUrl);
  app.decorate('errorFaces', faces);
  app.setErrorHandler((error: FastifyError, request, reply) => rendererOf(faces, request).error(error, request, reply));
  app.setNotFoundHandler((request, reply) => faces.of(request.url).notFound(request, reply));
}

/** A route's own errorFormat wins; otherwise the URL names the face (an unknown path, a hook before any route). */
function rendererOf(faces: ErrorFaces, request: FastifyRequest): FaceRenderer {
  const format = request.routeOptions?.config?.errorFormat;
  if (format === 'problem') return faces.get('payment');
  if (format) return faces.wallet;
  return faces.of(request.url);
}

/**
 * Fastify's `frameworkErrors`: failures before any route runs (a path that is not valid percent-encoding, a path
 * parameter longer than the router takes) answer in the interface's shape, not Fastify's own JSON.
 */
export function frameworkErrorHandler(faces: ErrorFaces) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const detail =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path segment is longer than any valid value' : 'the path is not valid percent-encoding';
    return faces.of(request.url).malformedUrl(detail, reply);
  };
}

/**
 * Node's `clientError`: requests the HTTP parser refuses before Fastify sees them (headers over 16 KiB, an unknown
 * method, a broken request line, a broken chunked body). The answer is written on the socket in the shape of the
 * face of the request's URL: the request in flight when the body was what broke, else the request line.
 */
export function clientErrorHandler(faces: ErrorFaces) {
  return (error: Error, socket: import('node:net').Socket) => {
    const err = error as NodeJS.ErrnoException & { rawPacket?: unknown };
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    // Node's own: the response of the request whose body the parser was reading (absent before its head is read).
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean; req?: { url?: string } } | null })._httpMessage ?? null;
    if (inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const raw = Buffer.isBuffer(err.rawPacket) ? err.rawPacket : Buffer.alloc(0);
    const line = raw.subarray(0, 2048).toString('latin1').split('\r\n')[0] ?? '';
    const url = inFlight?.req?.url ?? line.split(' ')[1] ?? '';
    const [status, message] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request did not arrive in time']
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'the request headers are larger than 16 KiB']
          : err.code === 'HPE_INVALID_METHOD'
            ? [404, WALLET_API_CODES['999'].message]
            : [400, 'the request is not valid HTTP'];
    const answer = faces.of(url).raw(status, message);
    const text = JSON.stringify(answer.body);
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${answer.status} ${STATUS_TEXT[answer.status] ?? 'Bad Request'}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
          `Content-Type: ${answer.type}\r\nConnection: close\r\n\r\n${text}`,
      );
    }
    socket.destroy();
  };
}

/**
 * Node's `checkExpectation`: a request with an Expect header other than 100-continue, which the server cannot meet.
 * Node alone would answer a bare 417; this answers it in the face's shape.
 */
export function expectationFailedHandler(faces: ErrorFaces) {
  return (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => {
    const answer = faces.of(request.url ?? '').raw(417, `the Expect header ${JSON.stringify(String(request.headers.expect))} cannot be met`);
    response.writeHead(answer.status, { 'content-type': answer.type, connection: 'close' }).end(JSON.stringify(answer.body));
  };
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };
