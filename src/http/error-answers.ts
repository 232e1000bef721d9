// The bodies the faces write, and what they read from a framework error. Only the face renderers use these.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FieldProblem } from '../core/domain-errors.ts';
import { PROBLEMS, problemType, type ProblemName } from '../core/problems.ts';
import { fieldOfFailure, schemaMessage, withoutUnionBranches, type SchemaFailure } from './schema-wording.ts';

/** A wallet API envelope: `{return|result: code, status}`. */
export function sendCode(reply: FastifyReply, key: 'return' | 'result', code: string, http: number, status: string) {
  return reply.status(http).type('application/json').send({ [key]: code, status });
}

/** Writes an RFC 9457 problem details body; `status` overrides the problem's own for client errors Fastify reports (415). */
export function writeProblem(reply: FastifyReply, name: ProblemName, publicUrl: string, detail?: string, errors?: FieldProblem[], statusOverride?: number) {
  const { title } = PROBLEMS[name];
  const status = statusOverride ?? PROBLEMS[name].status;
  const body: Record<string, unknown> = { type: problemType(name, publicUrl), title, status };
  if (detail) body.detail = detail;
  if (errors && errors.length > 0) body.errors = errors;
  return reply.status(status).type('application/problem+json').send(body);
}

/** An RFC 6749 error answer (`invalid_request`), never cached. */
export function writeTokenError(reply: FastifyReply, description: string, status = 400) {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  return reply.status(status).type('application/json').send({ error: 'invalid_request', error_description: description });
}

/**
 * A schema validation failure as a field and what it must be, in plain words (schema-wording.ts); `operation`
 * (`METHOD /path`) is named when the field is not one of the operation's.
 */
export function toFieldProblem(v: SchemaFailure, context?: string, operation?: string): FieldProblem {
  const field = fieldOfFailure(v, context);
  return { field, message: schemaMessage(v, field, operation) };
}

/** Every failure of a validation as field problems, one per refused union (schema-wording.ts). */
export function toFieldProblems(failures: readonly SchemaFailure[], context?: string, operation?: string): FieldProblem[] {
  return withoutUnionBranches(failures).map((v) => toFieldProblem(v, context, operation));
}

/**
 * What a client error Fastify raised before validation says, for the faces to word their answer: a body in a type
 * other than JSON is told what to send. Null for the rest, which keep Fastify's message.
 */
export function clientErrorWording(
  error: { code?: string; message: string },
  request: FastifyRequest,
  accepted = 'JSON, with Content-Type: application/json',
): string | null {
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    // The media type alone, cut short: parameters and a long header are the caller's own, not worth repeating.
    const sent = String(request.headers['content-type'] ?? '').split(';')[0]?.trim().slice(0, 80) || 'no content type';
    return `the body is sent as ${sent}; send it as ${accepted}`;
  }
  if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'the body is empty though Content-Type says application/json; send a JSON object';
  return null;
}

/** `METHOD /path` of a request, without its query. */
export const operationOf = (request: FastifyRequest) => `${request.method} ${request.url.split('?')[0]}`;

/** `METHOD /route` of a matched route as the interface names it (`GET /balance/:address`), no value from the URL. */
export const routeOperationOf = (request: FastifyRequest) => `${request.method} ${request.routeOptions?.url ?? request.url.split('?')[0]}`;
