import type { FastifyInstance } from 'fastify';

/**
 * HTTP/1.1 needs a Host header (RFC 9112 section 3.2). Node alone refuses a request without one with a bare 400
 * before the app sees it; the server lets it through (`requireHostHeader: false`, app.ts) so that this hook refuses
 * it instead, and the error handlers answer in the shape of the part of the interface its URL names.
 */
export function refuseMissingHost(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs for every request, and an async hook costs a promise and a turn.
  app.addHook('onRequest', (request, _reply, done) => {
    const raw = request.raw;
    if (raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1 && !request.headers.host) {
      done(Object.assign(new Error('an HTTP/1.1 request needs a Host header'), { statusCode: 400 }));
      return;
    }
    done();
  });
}
