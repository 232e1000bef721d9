import { PROBLEMS, type ProblemName } from './problems.ts';
import type { FieldProblem } from './domain-errors.ts';

export { ServiceUnavailableError, type FieldProblem } from './domain-errors.ts';

/**
 * Every wallet API result code of INTERFACE.md section 7 with its HTTP status (DESIGN.md section 7).
 * This is the one place codes are defined; domain code throws a DomainError (core/domain-errors.ts), which the
 * wallet API face (http/wallet-face.ts) answers with one of these codes.
 */
export const WALLET_API_CODES = {
  '0': { http: 200, message: 'OK' },
  '101': { http: 400, message: 'Currency is not valid' },
  '102': { http: 400, message: 'Public key is not valid' },
  '103': { http: 400, message: 'Currency is not supported' },
  '106': { http: 400, message: 'Currency not supported or date out of range' },
  '201': { http: 400, message: 'Wrong or missing argument' },
  '301': { http: 404, message: 'Profile not found' },
  '302': { http: 401, message: 'Token required' },
  '303': { http: 401, message: 'Token invalid' },
  '304': { http: 401, message: 'Token expired' },
  '305': { http: 401, message: 'No OTP was asked for this profile' },
  '306': { http: 401, message: 'Wrong OTP, ask for an OTP again' },
  '307': { http: 401, message: 'Wrong OTP' },
  '308': { http: 400, message: 'Invalid e-mail address' },
  '309': { http: 400, message: 'E-mail address already used' },
  '997': { http: 500, message: 'Unknown error' },
  '998': { http: 500, message: 'System error' },
  '999': { http: 404, message: 'Invalid command' },
} as const satisfies Record<string, { http: number; message: string }>;

/** A wallet API result code. */
export type WalletApiCode = keyof typeof WALLET_API_CODES;

/**
 * A wallet API answer as a value: a code with its HTTP status and message (`detail` replaces the generic one).
 * Domain code throws a DomainError instead; nothing in src/ constructs this (the catalogue's tests do).
 */
export class WalletApiError extends Error {
  readonly httpStatus: number;
  constructor(
    readonly code: Exclude<WalletApiCode, '0'>,
    detail?: string,
  ) {
    super(detail ?? WALLET_API_CODES[code].message);
    this.name = 'WalletApiError';
    this.httpStatus = WALLET_API_CODES[code].http;
  }
}

/**
 * A payment API v1 answer as a value, RFC 9457 problem details with status and title from {@link PROBLEMS}.
 * Domain code throws a DomainError instead; nothing in src/ constructs this (the catalogue's tests do).
 */
export class ProblemError extends Error {
  readonly status: number;
  readonly title: string;
  constructor(
    readonly problem: ProblemName,
    detail?: string,
    readonly errors?: FieldProblem[],
  ) {
    super(detail ?? PROBLEMS[problem].title);
    this.name = 'ProblemError';
    this.status = PROBLEMS[problem].status;
    this.title = PROBLEMS[problem].title;
  }
}

/**
 * Base of the domain errors that carry a machine-readable reason beside the message (an invalid address, key,
 * payload, or a refused webhook target): callers branch on `reason`, people read `message`.
 */
export class ReasonError<Reason extends string> extends Error {
  constructor(
    readonly reason: Reason,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
