// The OAuth 2.0 face (/oauth/, RFC 6749): a client's mistake is `{error: "invalid_request", error_description}`,
// never cached; anything else is answered as at the root.
import type { FaceRenderer } from './error-faces.ts';
import { clientErrorWording, operationOf, writeTokenError } from './error-answers.ts';
import { TOKEN_BODY_TYPES } from './oauth-bearer.ts';

/** The OAuth face; `root` answers what RFC 6749 has no shape for (a domain error, a failure of ours). */
export function oauthFace(root: FaceRenderer): FaceRenderer {
  return {
    error(error, request, reply) {
      const status = error.statusCode ?? 500;
      if (status < 500) {
        const worded = clientErrorWording(error, request, TOKEN_BODY_TYPES);
        return writeTokenError(reply, worded ?? error.message, status === 413 || status === 415 ? status : 400);
      }
      return root.error(error, request, reply);
    },
    notFound(request, reply) {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return reply.status(404).type('application/json').send({
        error: 'invalid_request',
        error_description: `no endpoint at ${operationOf(request)}; the token endpoint is POST /oauth/token`,
      });
    },
    malformedUrl: (detail, reply) => writeTokenError(reply, detail),
    raw: (status, message) => ({ status: status === 431 ? 431 : 400, type: 'application/json', body: { error: 'invalid_request', error_description: message } }),
  };
}
