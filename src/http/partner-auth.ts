// Authentication of partner operations and withdrawals, one hook per scheme (DESIGN.md section 8):
// the partner key, the merchant key and the withdrawal key. Each hook checks the key through a verifier
// the capability supplies and sets the authenticated caller on the request; routes only read it.
// A wrong key, an unknown ID and another partner's merchant all get the same answer, so nothing leaks
// whether an ID exists.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import { fieldsOf } from './request-fields.ts';

/** Who the hooks authenticated on this request. */
export interface Callers {
  partner?: unknown;
  merchant?: unknown;
  withdrawal?: unknown;
}

declare module 'fastify' {
  interface FastifyRequest {
    callers?: Callers;
  }
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

function stringField(request: FastifyRequest, name: string): string | undefined {
  const v = fieldsOf(request).values[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw new DomainError('invalid', `Wrong or missing argument: ${name} must be a string`);
  return v;
}

function set(request: FastifyRequest, which: keyof Callers, value: unknown): void {
  request.callers = { ...request.callers, [which]: value };
}

/** The partner key: `partner_auth_key` in the fields, or the `Authorization` header (bare or `Bearer <key>`). */
export function partnerKeyAuth<P>(verify: (key: string) => Promise<P | undefined>): Hook {
  return async (request) => {
    const header = request.headers.authorization;
    const fromHeader = typeof header === 'string' && header.trim() !== '' ? header.trim().replace(/^Bearer\s+/i, '') : undefined;
    const key = stringField(request, 'partner_auth_key') ?? fromHeader;
    if (!key) throw new DomainError('token-required', 'Token required: partner_auth_key (the key the operator issued to the partner)');
    const partner = await verify(key);
    if (partner === undefined) throw new DomainError('token-invalid', 'Token invalid: partner_auth_key is not a valid partner key');
    set(request, 'partner', partner);
  };
}

/**
 * A merchant key (`merchant_auth_key`, or `withdrawal_auth_key` with `keyField`) for the wallet named by
 * `idField`; the verifier also receives the partner authenticated before, if any. With `optional`, a request
 * without the key field passes unauthenticated (POST /withdrawal with only `withdrawal_id` is a status read).
 */
export function merchantKeyAuth<M>(
  opts: { idField: string; keyField: string; optional?: boolean; as?: keyof Callers },
  verify: (id: string, key: string, partner: unknown) => Promise<M | undefined>,
): Hook {
  return async (request) => {
    const key = stringField(request, opts.keyField);
    const id = stringField(request, opts.idField);
    if (!key && opts.optional) return;
    if (!id) throw new DomainError('invalid', `Wrong or missing argument: ${opts.idField} is required`);
    if (!key) throw new DomainError('token-required', `Token required: ${opts.keyField}`);
    const caller = await verify(id, key, request.callers?.partner);
    if (caller === undefined) {
      throw new DomainError('token-invalid', `Token invalid: ${opts.idField} and ${opts.keyField} do not match`);
    }
    set(request, opts.as ?? 'merchant', caller);
  };
}

/** The caller a hook set; throws (a bug, not a user's mistake) when the route has no such hook. */
export function callerOf<T>(request: FastifyRequest, which: keyof Callers): T {
  const c = request.callers?.[which];
  if (c === undefined) throw new Error(`no ${which} caller: the route lacks its authentication hook`);
  return c as T;
}
