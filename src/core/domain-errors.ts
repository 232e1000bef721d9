// The one catalogue of refusals domain code raises. A domain error says what went wrong (its kind) and, in its
// message, why, in words a merchant or developer can act on; it knows nothing of HTTP, status codes or body shapes.
// Each API face maps every kind to its own answer (`Record<DomainErrorKind, …>`, so the compiler names a face that
// lacks a new kind): the wallet API envelope (http/wallet-face.ts), payment API problems (http/problem-face.ts),
// Greenfield (greenfield/errors.ts), the console's pages (console/error-page.ts).

/** Every kind of refusal, with what it means. */
export const DOMAIN_ERRORS = {
  invalid: 'a wrong or missing argument, said in the message',
  'invalid-fields': 'a request with invalid fields, each one listed',
  'malformed-body': 'a body that is not what the operation reads (not JSON, not an object)',
  'invalid-currency': 'a currency that is not a currency code at all',
  'unsupported-currency': 'a well-formed currency that is not priced here',
  'history-out-of-range': 'no stored rate for that currency or date',
  'invalid-key': 'an extended public key that is not valid or not acceptable',
  'invalid-email': 'an e-mail address that is not valid',
  'not-found': 'nothing of that kind with that id (or it belongs to someone else)',
  'profile-not-found': 'no dashboard profile for that e-mail address',
  'token-required': 'no session token was given',
  'token-invalid': 'the session or partner token is not valid',
  'token-expired': 'the session has expired',
  'code-not-asked': 'no one-time code was asked for',
  'code-spent': 'the one-time code can no longer be used; a new one must be asked for',
  'code-wrong': 'a wrong one-time code; it may be typed again',
  unauthenticated: 'no valid bearer credentials',
  forbidden: 'the caller may not do this',
  gone: 'the thing exists but is no longer usable',
  conflict: 'a request with the same idempotency key is still being answered',
  'key-reused': 'an idempotency key reused for a different request',
  'rate-limited': 'too many requests; `retryAfterSeconds` says when to try again',
  unavailable: 'a service this needs is not configured or is down',
} as const satisfies Record<string, string>;

/** A kind of refusal. */
export type DomainErrorKind = keyof typeof DOMAIN_ERRORS;

/** One bad field of a request. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** A refusal from the catalogue; `fields` lists the bad fields of an `invalid-fields` refusal. */
export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly fields?: FieldProblem[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Too many requests: try again in `retryAfterSeconds`. */
export class RateLimitedError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    what: string,
  ) {
    super('rate-limited', `Too many requests: at most ${what}; try again in ${retryAfterSeconds} s`);
  }
}

/** Raised by operations that need a service the operator has not configured or that is down. */
export class ServiceUnavailableError extends DomainError {
  constructor(message: string) {
    super('unavailable', message);
  }
}

/** A refusal of what the caller asked (any domain error but an unavailable service). */
export function isRefusal(err: unknown): err is DomainError {
  return err instanceof DomainError && err.kind !== 'unavailable';
}
