// The one Greenfield authentication hook: `Authorization: token <key>` (BTCPay's own scheme) or `Bearer <key>`,
// and the per-route permission check. A key for another store gets the same 404 as an unknown store.
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { GreenfieldIdentity, GreenfieldKeys } from './api-keys.ts';
import { grants, type Policy } from './permissions.ts';
import { missingPermission, storeNotFound, unauthenticated } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by {@link greenfieldAuth} on Greenfield routes. */
    greenfield?: GreenfieldIdentity;
  }
}

/** The key of an `Authorization` header: `token <key>` or `Bearer <key>` (scheme case-insensitive). */
export function keyOfHeader(header: string | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const m = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(header.trim());
  return m?.[1];
}

/** The hook: a valid, unrevoked key sets `request.greenfield`; anything else is 401. */
export function greenfieldAuth(keys: GreenfieldKeys): preHandlerAsyncHookHandler {
  return async (request) => {
    const key = keyOfHeader(request.headers.authorization);
    if (key === undefined) throw unauthenticated();
    const identity = await keys.verify(key);
    if (!identity) throw unauthenticated('The API key is not valid (unknown or revoked).');
    request.greenfield = identity;
  };
}

/** The identity of a route behind {@link greenfieldAuth}. */
export function identityOf(request: FastifyRequest): GreenfieldIdentity {
  if (!request.greenfield) throw new Error('route is not behind the greenfieldAuth hook');
  return request.greenfield;
}

/**
 * The store check of a route with `{storeId}`: another store's id is 404 (as unknown); then the permission,
 * 403 when missing. Answers the identity.
 */
export function requireStorePermission(request: FastifyRequest, storeId: string, policy: Policy): GreenfieldIdentity {
  const identity = identityOf(request);
  if (identity.storeId !== storeId) throw storeNotFound();
  if (!grants(identity.permissions, policy, storeId)) throw missingPermission(policy);
  return identity;
}

/** A `preHandler` doing {@link requireStorePermission} with the route's `storeId` parameter. */
export function storePermission(policy: Policy): preHandlerAsyncHookHandler {
  return async (request) => {
    const storeId = (request.params as { storeId?: string }).storeId ?? '';
    requireStorePermission(request, storeId, policy);
  };
}
