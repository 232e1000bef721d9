// Errors as Greenfield clients read them (BTCPay's OpenAPI document): a validation failure is 422 with an
// array of `{path, message}`; anything else is `{code, message}` with its HTTP status. Our own APIs keep theirs.
// This is the Greenfield face's renderer (http/error-faces.ts): every domain error's answer is in GREENFIELD_ANSWER_OF.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type DomainErrorKind } from '../core/domain-errors.ts';
import { operationOf, toFieldProblem } from '../http/error-answers.ts';
import type { FaceRenderer } from '../http/error-faces.ts';

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

interface Answer {
  status: number;
  body: unknown;
}

const coded = (status: number, code: string) => (err: DomainError): Answer => ({ status, body: { code, message: err.message } });
/** Greenfield's names of the payment engine's fields. */
const GREENFIELD_PATH: Record<string, string> = { order_currency: 'currency', order_amount: 'amount' };
const fieldList = (err: DomainError): Answer => {
  const errors = err.fields?.map((e) => ({ path: GREENFIELD_PATH[e.field] ?? e.field, message: e.message }));
  return { status: 422, body: errors && errors.length > 0 ? errors : [{ path: '', message: err.message }] };
};
// The wallet API's refusals reach Greenfield only from pricing (a currency without a rate): the invoice's currency.
const asCurrency = (err: DomainError): Answer => ({ status: 422, body: [{ path: 'currency', message: err.message }] });

/** Each domain error's Greenfield answer. */
export const GREENFIELD_ANSWER_OF: Record<DomainErrorKind, (err: DomainError) => Answer> = {
  invalid: asCurrency,
  'invalid-fields': fieldList,
  'malformed-body': coded(400, 'malformed-body'),
  'invalid-currency': asCurrency,
  'unsupported-currency': asCurrency,
  'history-out-of-range': asCurrency,
  'invalid-key': asCurrency,
  'invalid-email': asCurrency,
  'not-found': coded(404, 'not-found'),
  'profile-not-found': asCurrency,
  'token-required': asCurrency,
  'token-invalid': asCurrency,
  'token-expired': asCurrency,
  'code-not-asked': asCurrency,
  'code-spent': asCurrency,
  'code-wrong': asCurrency,
  unauthenticated: coded(401, 'unauthorized'),
  forbidden: coded(403, 'forbidden'),
  gone: coded(410, 'payment-invalid'),
  conflict: coded(409, 'idempotency-key-in-use'),
  'key-reused': fieldList,
  'rate-limited': asCurrency,
  unavailable: coded(503, 'service-unavailable'),
};

/** An error thrown by a Greenfield route (or a hook before it): our errors, schema and body-parsing failures. */
function routeError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
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
  if (error instanceof DomainError) {
    const answer = GREENFIELD_ANSWER_OF[error.kind](error);
    return reply.status(answer.status).send(answer.body);
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.status(500).send({ code: 'internal-error', message: 'An unexpected error occurred; it has been logged.' });
}

/** An error on a Greenfield path with no route (an unknown path's hooks). */
function pathError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('cache-control', 'no-store').type('application/json');
  if (error.validation) {
    return reply.status(422).send(error.validation.map((v) => ({ path: toFieldProblem(v, error.validationContext).field, message: v.message ?? 'is invalid' })));
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return reply.status(413).send({ code: 'payload-too-large', message: 'The request body is larger than 1 MiB.' });
  if (status >= 400 && status < 500) return reply.status(status).send({ code: 'bad-request', message: error.message });
  if (error instanceof DomainError && error.kind === 'unavailable') return reply.status(503).send({ code: 'service-unavailable', message: error.message });
  request.log.error({ err: error }, 'unhandled error');
  return reply.status(500).send({ code: 'internal-error', message: 'An unexpected error occurred; it has been logged.' });
}

/** The Greenfield face. */
export const greenfieldFace: FaceRenderer = {
  error: (error, request, reply) => (request.is404 ? pathError(error, request, reply) : routeError(error, request, reply)),
  notFound: (request, reply) =>
    reply.status(404).header('cache-control', 'no-store').type('application/json').send({ code: 'not-found', message: `No operation at ${operationOf(request)}.` }),
  malformedUrl: (detail, reply) =>
    reply.status(400).header('cache-control', 'no-store').type('application/json').send({ code: 'malformed-url', message: `The URL is malformed: ${detail}.` }),
  raw(status, message) {
    const code = { 404: 'not-found', 408: 'request-timeout', 417: 'expectation-failed', 431: 'headers-too-large' }[status] ?? 'bad-request';
    return { status, type: 'application/json', body: { code, message } };
  },
};

/** Makes Greenfield's renderer answer every error on Greenfield's paths (called by each Greenfield route plugin). */
export function useGreenfieldErrors(scope: FastifyInstance): void {
  scope.errorFaces.use('greenfield', greenfieldFace);
}
