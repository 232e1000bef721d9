// Errors as Greenfield clients read them (BTCPay's OpenAPI document): a validation failure is 422 with an
// array of `{path, message}`; anything else is `{code, message}` with its HTTP status. Our own APIs keep theirs.
import type { FastifyError, FastifyInstance } from 'fastify';
import { ProblemError, ServiceUnavailableError, WalletApiError } from '../core/errors.ts';

/** One bad field, as Greenfield reports it. */
export interface GreenfieldFieldError {
  path: string;
  message: string;
}

/** A Greenfield failure other than validation: 401, 403, 404, 400, 503. */
export class GreenfieldError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'GreenfieldError';
  }
}

/** A Greenfield validation failure: 422 with every bad field. */
export class GreenfieldValidationError extends Error {
  constructor(readonly errors: GreenfieldFieldError[]) {
    super(errors.map((e) => `${e.path}: ${e.message}`).join('; '));
    this.name = 'GreenfieldValidationError';
  }
}

/** 401: no key, or one that is unknown or revoked. */
export const unauthenticated = (message = 'Authentication is required: Authorization: token <apiKey>') =>
  new GreenfieldError(401, 'unauthenticated', message);

/** 403: the key is valid but lacks the permission. */
export const missingPermission = (policy: string) =>
  new GreenfieldError(403, 'missing-permission', `The API key does not have the permission ${policy} for this store.`);

/** 404 for a store the key may not see or that does not exist: the same answer, so nothing leaks. */
export const storeNotFound = () => new GreenfieldError(404, 'store-not-found', 'The store was not found.');

/** 404 for an invoice (unknown, or of another store). */
export const invoiceNotFound = () => new GreenfieldError(404, 'invoice-not-found', 'The invoice was not found.');

/**
 * Installs the Greenfield error answers on a route scope: our errors as above, schema and body-parsing failures
 * as 422 / 400 in the same shapes, and an unexpected failure as `{code: "internal-error"}` with 500 (logged).
 */
export function useGreenfieldErrors(scope: FastifyInstance): void {
  scope.setErrorHandler((error: FastifyError | Error, request, reply) => {
    reply.header('cache-control', 'no-store');
    if (error instanceof GreenfieldValidationError) return reply.status(422).send(error.errors);
    if (error instanceof GreenfieldError) return reply.status(error.status).send({ code: error.code, message: error.message });
    const fe = error as FastifyError;
    if (fe.validation) {
      const errors = fe.validation.map((v) => ({
        path: (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.') || String((v.params as { missingProperty?: string })?.missingProperty ?? fe.validationContext ?? ''),
        message: v.message ?? 'is invalid',
      }));
      return reply.status(422).send(errors);
    }
    const status = fe.statusCode ?? 500;
    if (status === 413) return reply.status(413).send({ code: 'payload-too-large', message: 'The request body is larger than 1 MiB.' });
    if (status >= 400 && status < 500) return reply.status(status).send({ code: 'bad-request', message: fe.message });
    if (error instanceof ServiceUnavailableError) return reply.status(503).send({ code: 'service-unavailable', message: error.message });
    // The payment engine's own refusals (a currency without a rate, rates down) in Greenfield's shapes.
    if (error instanceof ProblemError) {
      if (error.problem === 'malformed-body') return reply.status(400).send({ code: 'malformed-body', message: error.message });
      if (error.status === 400 || error.status === 422) {
        const errors = error.errors?.map((e) => ({ path: e.field === 'order_currency' ? 'currency' : e.field, message: e.message }));
        return reply.status(422).send(errors && errors.length > 0 ? errors : [{ path: '', message: error.message }]);
      }
      return reply.status(error.status).send({ code: error.problem, message: error.message });
    }
    if (error instanceof WalletApiError) return reply.status(422).send([{ path: 'currency', message: error.message }]);
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ code: 'internal-error', message: 'An unexpected error occurred; it has been logged.' });
  });
}
