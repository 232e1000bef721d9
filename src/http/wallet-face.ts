// The wallet API face (the root: wallet, dashboard, partner and withdrawal operations, the hosted pages): the
// envelope `{return, status}` (`{result, status}` on routes whose errorFormat is 'result') with a code of
// INTERFACE.md section 7 and its HTTP status from DESIGN.md's table (core/errors.ts).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, RateLimitedError, type DomainErrorKind } from '../core/domain-errors.ts';
import { WALLET_API_CODES, type WalletApiCode } from '../core/errors.ts';
import type { ProblemName } from '../core/problems.ts';
import { PROBLEM_OF } from './problem-face.ts';
import { clientErrorWording, routeOperationOf, sendCode, toFieldProblems, writeProblem } from './error-answers.ts';
import type { FaceRenderer } from './error-faces.ts';
import { nulBodyField } from './no-nul.ts';

/**
 * Body fields whose content has a code of its own: a NUL character there (refused before the route reads it, since
 * PostgreSQL cannot store it) is answered with that code, as any other character that makes the value invalid.
 */
const CONTENT_CODE_OF_FIELD: Readonly<Record<string, { code: Exclude<WalletApiCode, '0'>; operations: readonly string[] }>> = {
  pub: { code: '102', operations: ['POST /add_pub'] },
};

/**
 * Each domain error's wallet API code. The payment API's own refusals have no code here: met on a wallet route
 * they are answered as the payment API's problem ('problem'), as they always were.
 */
export const WALLET_CODE_OF: Record<DomainErrorKind, Exclude<WalletApiCode, '0'> | 'problem'> = {
  invalid: '201',
  'invalid-fields': 'problem',
  'malformed-body': 'problem',
  'invalid-currency': '101',
  'unsupported-currency': '103',
  'history-out-of-range': '106',
  'invalid-key': '102',
  'invalid-email': '308',
  'not-found': '999',
  'profile-not-found': '301',
  'token-required': '302',
  'token-invalid': '303',
  'token-expired': '304',
  'code-not-asked': '305',
  'code-spent': '306',
  'code-wrong': '307',
  unauthenticated: 'problem',
  forbidden: 'problem',
  gone: 'problem',
  conflict: 'problem',
  'key-reused': 'problem',
  // DESIGN.md: too many requests is 201 with a clear status, on HTTP 429 with Retry-After.
  'rate-limited': '201',
  unavailable: '998',
};

/** The wallet API's answer to a domain error: its code and HTTP status, or null for a payment API refusal. */
export function walletAnswerOf(err: DomainError): { code: Exclude<WalletApiCode, '0'>; http: number } | null {
  const code = WALLET_CODE_OF[err.kind];
  if (code === 'problem') return null;
  const http = err.kind === 'rate-limited' ? 429 : err.kind === 'unavailable' ? 503 : WALLET_API_CODES[code].http;
  return { code, http };
}

/** Writes a domain error as the wallet envelope under `key` (a payment API refusal as its problem). */
export function sendDomainEnvelope(reply: FastifyReply, request: FastifyRequest, err: DomainError, key: 'return' | 'result', publicUrl: string) {
  const answer = walletAnswerOf(err);
  if (answer === null) return writeProblem(reply, PROBLEM_OF[err.kind] as ProblemName, publicUrl, err.message, err.fields);
  if (err.kind === 'unavailable') request.log.warn({ err: err.message }, 'service unavailable');
  if (err instanceof RateLimitedError) reply.header('retry-after', String(err.retryAfterSeconds));
  return sendCode(reply, key, answer.code, answer.http, err.message);
}

/** The wallet API face. */
export function walletFace(publicUrl: string): FaceRenderer {
  return {
    error(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      const key = request.routeOptions?.config?.errorFormat === 'result' ? 'result' : 'return';
      if (error instanceof DomainError) return sendDomainEnvelope(reply, request, error, key, publicUrl);
      if (error.validation) {
        const operation = routeOperationOf(request);
        const field = nulBodyField(error);
        const own = field !== null ? CONTENT_CODE_OF_FIELD[field] : undefined;
        if (own && own.operations.includes(operation)) {
          return sendCode(reply, key, own.code, WALLET_API_CODES[own.code].http, `${WALLET_API_CODES[own.code].message}: ${field} contains the NUL character`);
        }
        const detail = toFieldProblems(error.validation, error.validationContext, operation).map((e) => `${e.field} ${e.message}`).join('; ');
        return sendCode(reply, key, '201', 400, `Wrong or missing argument: ${detail}`);
      }
      const status = error.statusCode ?? 500;
      if (status === 413 || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return sendCode(reply, key, '201', 400, 'Wrong or missing argument: request body is larger than 1 MiB');
      }
      // Malformed JSON, wrong content type and the like: the client's mistake, said plainly, with DESIGN.md's
      // table (201 is HTTP 400) whatever status Fastify chose (415, 400).
      if (status >= 400 && status < 500) return sendCode(reply, key, '201', 400, `Wrong or missing argument: ${clientErrorWording(error, request) ?? error.message}`);
      request.log.error({ err: error }, 'unhandled error');
      return sendCode(reply, key, '998', 500, WALLET_API_CODES['998'].message);
    },
    notFound: (_request, reply) => sendCode(reply, 'return', '999', 404, WALLET_API_CODES['999'].message),
    malformedUrl: (detail, reply) => sendCode(reply, 'return', '201', 400, `Wrong or missing argument: ${detail}`),
    raw(status, message) {
      const json = 'application/json';
      // DESIGN.md's table: 201 is HTTP 400 and 999 is 404, whatever the parser objected to (a timeout stays 408).
      if (status === 404) return { status, type: json, body: { return: '999', status: WALLET_API_CODES['999'].message } };
      return { status: status === 408 || status === 417 ? status : 400, type: json, body: { return: '201', status: `Wrong or missing argument: ${message}` } };
    },
  };
}
