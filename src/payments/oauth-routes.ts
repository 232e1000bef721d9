// POST /oauth/token: the client credentials grant of RFC 6749 section 4.4, with section 5 answers.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { basicCredentials, sendTokenError as fail, tokenErrorHandler } from '../http/oauth-bearer.ts';
import type { OAuthClients } from './oauth.ts';

/** Registers the token endpoint. */
export async function oauthRoutes(app: FastifyInstance, oauth: OAuthClients): Promise<void> {
  app.post(
    '/oauth/token',
    {
      schema: {
        summary: 'OAuth 2.0 access token (client credentials grant) for creating payment requests (POST /api/v1/payment/request)',
        tags: ['payment API v1'],
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
      },
      // Malformed bodies answer in RFC 6749 form too, not in the wallet API envelope.
      errorHandler: tokenErrorHandler,
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
