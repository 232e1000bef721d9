// POST /oauth/token: the client credentials grant of RFC 6749 section 4.4, with section 5 answers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthClients } from './oauth.ts';

type TokenError = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type';

function fail(reply: FastifyReply, status: number, error: TokenError, description: string, basic = false) {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  if (status === 401) reply.header('www-authenticate', basic ? 'Basic realm="satgate", charset="UTF-8"' : 'Basic realm="satgate"');
  return reply.status(status).type('application/json').send({ error, error_description: description });
}

/** Client credentials from `Authorization: Basic` (RFC 6749 2.3.1: form-encoded id and secret). */
function basicCredentials(header: string | undefined): { id: string; secret: string } | 'malformed' | undefined {
  if (!header || !/^Basic\s/i.test(header)) return undefined;
  const decoded = Buffer.from(header.replace(/^Basic\s+/i, '').trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return 'malformed';
  const unescape = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
}

/** Registers the token endpoint. */
export async function oauthRoutes(app: FastifyInstance, oauth: OAuthClients): Promise<void> {
  app.post(
    '/oauth/token',
    {
      schema: {
        summary: 'OAuth 2.0 access token (client credentials grant) for payment API v1 operation 26',
        tags: ['payment API v1'],
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
      },
      // Malformed bodies answer in RFC 6749 form too, not in the wallet API envelope.
      errorHandler: (error, _request, reply) => {
        const status = (error as { statusCode?: number }).statusCode ?? 500;
        if (status >= 500) throw error;
        return fail(reply, status === 413 || status === 415 ? status : 400, 'invalid_request', error.message);
      },
    },
    async (request: FastifyRequest, reply) => {
      const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
      const field = (name: string): string | undefined => {
        const v = body[name];
        return typeof v === 'string' ? v : undefined;
      };
      for (const name of ['grant_type', 'client_id', 'client_secret', 'scope']) {
        if (body[name] !== undefined && typeof body[name] !== 'string') return fail(reply, 400, 'invalid_request', `${name} must be given once, as a string`);
      }
      const basic = basicCredentials(request.headers.authorization);
      if (basic === 'malformed') return fail(reply, 401, 'invalid_client', 'the Basic credentials are malformed', true);
      const bodyId = field('client_id');
      const bodySecret = field('client_secret');
      if (basic && (bodyId !== undefined || bodySecret !== undefined)) {
        return fail(reply, 400, 'invalid_request', 'use one client authentication method: HTTP Basic or client_id/client_secret, not both');
      }
      const grant = field('grant_type');
      if (grant === undefined || grant === '') return fail(reply, 400, 'invalid_request', 'grant_type is required');
      if (grant !== 'client_credentials') return fail(reply, 400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
      const id = basic?.id ?? bodyId;
      const secret = basic?.secret ?? bodySecret;
      if (!id || !secret) return fail(reply, 401, 'invalid_client', 'client authentication is required (HTTP Basic, or client_id and client_secret)');
      const token = await oauth.issueToken(id, secret);
      if (!token) return fail(reply, 401, 'invalid_client', 'client authentication failed', basic !== undefined);
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return { access_token: token.access_token, token_type: 'Bearer', expires_in: token.expires_in };
    },
  );
}
