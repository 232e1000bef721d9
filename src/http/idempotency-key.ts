// The `Idempotency-Key` request header, read once for every creation route that offers safe retries.
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by {@link idempotencyKey}: the header's value, or undefined when absent. */
    idempotencyKey?: string;
  }
}

/** A `preHandler` hook: 1 to 255 visible ASCII characters, given once; anything else is a 400 naming the header. */
export const idempotencyKey: preHandlerAsyncHookHandler = async (request: FastifyRequest) => {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return;
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY.test(header)) {
    throw new DomainError('invalid-fields', 'The Idempotency-Key header is invalid.', [
      { field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters, given once' },
    ]);
  }
  request.idempotencyKey = header;
};
