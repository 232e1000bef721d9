// The payment API v1 face (/api/ but Greenfield's paths, and routes whose errorFormat is 'problem'): RFC 9457
// problem details, each naming its problem (core/problems.ts).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type DomainErrorKind } from '../core/domain-errors.ts';
import { PROBLEMS, problemType, type ProblemName } from '../core/problems.ts';
import { clientErrorWording, operationOf, routeOperationOf, toFieldProblems, writeProblem } from './error-answers.ts';
import type { FaceRenderer } from './error-faces.ts';
import { sendDomainEnvelope } from './wallet-face.ts';

/**
 * Each domain error's problem. The wallet API's own refusals have no problem here: met on a payment API route
 * they are answered in the wallet envelope ('envelope'), as they always were.
 */
export const PROBLEM_OF: Record<DomainErrorKind, ProblemName | 'envelope'> = {
  invalid: 'envelope',
  'invalid-fields': 'invalid-request',
  'malformed-body': 'malformed-body',
  'invalid-currency': 'envelope',
  'unsupported-currency': 'envelope',
  'history-out-of-range': 'envelope',
  'invalid-key': 'envelope',
  'invalid-email': 'envelope',
  'not-found': 'not-found',
  'profile-not-found': 'envelope',
  'token-required': 'envelope',
  'token-invalid': 'envelope',
  'token-expired': 'envelope',
  'code-not-asked': 'envelope',
  'code-spent': 'envelope',
  'code-wrong': 'envelope',
  unauthenticated: 'unauthorized',
  forbidden: 'forbidden',
  gone: 'payment-invalid',
  conflict: 'idempotency-key-in-use',
  'key-reused': 'idempotency-key-reused',
  'rate-limited': 'envelope',
  unavailable: 'service-unavailable',
};

/** The payment API face; problem types are URIs under `publicUrl`. */
export function problemFace(publicUrl: string): FaceRenderer {
  const send = (reply: FastifyReply, name: ProblemName, detail?: string, errors?: DomainError['fields'], status?: number) =>
    writeProblem(reply, name, publicUrl, detail, errors, status);
  return {
    error(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      if (error instanceof DomainError) {
        const name = PROBLEM_OF[error.kind];
        if (name === 'envelope') return sendDomainEnvelope(reply, request, error, 'return', publicUrl);
        if (error.kind === 'unavailable') request.log.warn({ err: error.message }, 'service unavailable');
        return send(reply, name, error.message, error.fields);
      }
      if (error.validation) {
        return send(reply, 'invalid-request', 'The request has invalid fields.', toFieldProblems(error.validation, error.validationContext, routeOperationOf(request)));
      }
      const status = error.statusCode ?? 500;
      if (status === 413 || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return send(reply, 'payload-too-large', 'The request body is larger than 1 MiB.');
      // Malformed JSON, wrong content type and the like: the client's mistake, said plainly, with Fastify's status.
      if (status >= 400 && status < 500) {
        const worded = clientErrorWording(error, request);
        return send(reply, 'malformed-body', worded === null ? error.message : `${worded[0]!.toUpperCase()}${worded.slice(1)}.`, undefined, status);
      }
      request.log.error({ err: error }, 'unhandled error');
      return send(reply, 'internal-error', 'An unexpected error occurred; it has been logged.');
    },
    notFound: (request, reply) => send(reply, 'no-such-operation', `No operation at ${operationOf(request)}.`),
    malformedUrl: (detail, reply) => send(reply, 'malformed-url', `The URL is malformed: ${detail}.`),
    raw(status, message) {
      const name: ProblemName = status === 431 ? 'headers-too-large' : status === 404 ? 'no-such-operation' : 'malformed-body';
      const shown = status === 408 || status === 417 ? status : PROBLEMS[name].status;
      return { status: shown, type: 'application/problem+json', body: { type: problemType(name, publicUrl), title: PROBLEMS[name].title, status: shown, detail: message } };
    },
  };
}
