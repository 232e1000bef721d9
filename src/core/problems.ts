// Every payment API problem (RFC 9457) in one place: its name, HTTP status and title. The `type` of an answer is
// `{public URL}/problems/<name>`, documented in docs/payment-api.md ("Problem types"); problems.test.ts checks each is there.
// Every answer names its problem, so a client can branch on the type without parsing titles (issue 8: no about:blank).

/** The payment API problems, by name. */
export const PROBLEMS = {
  'invalid-request': { status: 400, title: 'Bad Request' },
  'malformed-body': { status: 400, title: 'Bad Request' },
  'malformed-url': { status: 400, title: 'Bad Request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  'not-found': { status: 404, title: 'Not Found' },
  'no-such-operation': { status: 404, title: 'Not Found' },
  'idempotency-key-in-use': { status: 409, title: 'Conflict' },
  'payment-invalid': { status: 410, title: 'Gone' },
  'payload-too-large': { status: 413, title: 'Payload Too Large' },
  'headers-too-large': { status: 431, title: 'Request Header Fields Too Large' },
  'idempotency-key-reused': { status: 422, title: 'Unprocessable Content' },
  'internal-error': { status: 500, title: 'Internal Server Error' },
  'service-unavailable': { status: 503, title: 'Service Unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

/** A payment API problem name. */
export type ProblemName = keyof typeof PROBLEMS;

/** The `type` URI of a problem: `{publicUrl}/problems/<name>`. */
export function problemType(name: ProblemName, publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/problems/${name}`;
}
