// BTCPay's storeId-less Greenfield routes: /api/v1/invoices/{invoiceId}…, /api/v1/payment-requests/{id}…,
// DELETE /api/v1/pull-payments/{id} (BTCPay #7313, ad6fa344) and /api/v1/payouts/{payoutId}… (#7433, b0999177).
// Each is an alias of the store route it names: the same options and handler, registered again at the short path.
// A satgate key belongs to one store, so the store is the key's: the alias first checks that the object is that
// store's (unknown and another store's answer alike, BTCPay's 403, as its authorization does when the object
// resolves to no store the key may use), then sets `storeId` and the store route's own checks and handler run.
import type { FastifyInstance, FastifyRequest, RouteOptions, preHandlerAsyncHookHandler } from 'fastify';
import type { GreenfieldIdentity } from './api-keys.ts';
import { identityOf } from './auth.ts';
import { GreenfieldError, missingPermission } from './errors.ts';
import { DomainError } from '../core/domain-errors.ts';
import { POLICIES, type Policy } from './permissions.ts';

/** The path parameter naming the object a storeId-less route resolves its store from. */
export type ObjectParam = 'invoiceId' | 'paymentRequestId' | 'pullPaymentId' | 'payoutId';
/** Whether the object is one of the key's store (false for an unknown id and for another store's alike). */
export type Owns = (who: GreenfieldIdentity, id: string) => Promise<boolean>;

interface Alias {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The store route, as registered. */
  storePath: string;
  /** BTCPay's storeId-less path (Fastify syntax). */
  path: string;
  param: ObjectParam;
  /** The store route's policy, named in the 403. */
  policy: Policy;
  /** Path parameters kept out of the logs (a pull payment's id is the payee's capability). */
  secretParams?: string[];
}

const S = '/api/v1/stores/:storeId';
const inv = (method: Alias['method'], tail: string, policy: Policy): Alias => ({ method, storePath: `${S}/invoices/:invoiceId${tail}`, path: `/api/v1/invoices/:invoiceId${tail}`, param: 'invoiceId', policy });
const req = (method: Alias['method'], tail: string, policy: Policy): Alias => ({ method, storePath: `${S}/payment-requests/:paymentRequestId${tail}`, path: `/api/v1/payment-requests/:paymentRequestId${tail}`, param: 'paymentRequestId', policy });
const pay = (method: Alias['method'], tail: string, policy: Policy): Alias => ({ method, storePath: `${S}/payouts/:payoutId${tail}`, path: `/api/v1/payouts/:payoutId${tail}`, param: 'payoutId', policy });

/** Every storeId-less route satgate serves (BTCPay's others, refunds and payment-method activation, it does not offer). */
export const STORELESS_ALIASES: readonly Alias[] = [
  inv('GET', '', POLICIES.viewInvoices),
  inv('PUT', '', POLICIES.modifyInvoices),
  inv('DELETE', '', POLICIES.modifyInvoices),
  inv('POST', '/unarchive', POLICIES.modifyInvoices),
  inv('POST', '/status', POLICIES.modifyInvoices),
  inv('GET', '/payment-methods', POLICIES.viewInvoices),
  req('GET', '', POLICIES.viewPaymentRequests),
  req('PUT', '', POLICIES.modifyPaymentRequests),
  req('DELETE', '', POLICIES.modifyPaymentRequests),
  req('POST', '/pay', POLICIES.viewPaymentRequests),
  { method: 'DELETE', storePath: `${S}/pull-payments/:pullPaymentId`, path: '/api/v1/pull-payments/:pullPaymentId', param: 'pullPaymentId', policy: POLICIES.archivePullPayments, secretParams: ['pullPaymentId'] },
  pay('GET', '', POLICIES.viewPullPayments),
  pay('POST', '', POLICIES.managePullPayments),
  pay('DELETE', '', POLICIES.managePullPayments),
  pay('POST', '/mark-paid', POLICIES.managePullPayments),
];

/** A params schema without `storeId` (the alias sets it after the key is checked). */
function withoutStoreId(params: unknown): unknown {
  if (params === null || typeof params !== 'object') return params;
  const p = params as { properties?: Record<string, unknown>; required?: string[] };
  if (!p.properties) return params;
  const { storeId: _dropped, ...properties } = p.properties;
  return { ...p, properties, required: p.required?.filter((n) => n !== 'storeId') };
}

/** A route's own config (Fastify adds the route's url and method, which are the alias's own). */
function configOf(route: RouteOptions): Record<string, unknown> {
  const { url: _url, method: _method, ...own } = (route.config ?? {}) as Record<string, unknown>;
  return own;
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * Watches the scope's routes; `register()`, called once the scope's store routes are registered, adds the alias of
 * each of them that has one and whose object `owns` can check. Throws if an alias finds no store route.
 */
export function storelessAliases(scope: FastifyInstance, owns: Partial<Record<ObjectParam, Owns>>): { register(): void } {
  const wanted = STORELESS_ALIASES.filter((a) => owns[a.param] !== undefined);
  const seen = new Map<string, RouteOptions>();
  scope.addHook('onRoute', (route) => {
    for (const method of asArray(route.method)) {
      if (wanted.some((a) => a.method === method && a.storePath === route.url)) seen.set(`${method} ${route.url}`, route);
    }
  });
  return {
    register() {
      for (const alias of wanted) {
        const route = seen.get(`${alias.method} ${alias.storePath}`);
        if (!route) throw new Error(`storeId-less alias ${alias.method} ${alias.path}: no store route ${alias.storePath}`);
        const check = owns[alias.param]!;
        const resolve: preHandlerAsyncHookHandler = async (request: FastifyRequest) => {
          const who = identityOf(request);
          const params = request.params as Record<string, string>;
          if (!(await check(who, params[alias.param] ?? ''))) throw missingPermission(alias.policy);
          params.storeId = who.storeId;
        };
        const schema = route.schema?.params ? { ...route.schema, params: withoutStoreId(route.schema.params) } : route.schema;
        scope.route({
          method: alias.method,
          url: alias.path,
          handler: route.handler,
          ...(schema ? { schema } : {}),
          ...(route.validatorCompiler ? { validatorCompiler: route.validatorCompiler } : {}),
          ...(route.bodyLimit !== undefined ? { bodyLimit: route.bodyLimit } : {}),
          config: { ...configOf(route), ...(alias.secretParams ? { secretParams: alias.secretParams } : {}) },
          preHandler: [resolve, ...asArray(route.preHandler)],
        });
      }
    },
  };
}

/** Whether the lookup finds the object: false on Greenfield's or the domain's "not found". */
export async function found(lookup: () => Promise<unknown>): Promise<boolean> {
  try {
    await lookup();
    return true;
  } catch (err) {
    if (err instanceof GreenfieldError && err.status === 404) return false;
    if (err instanceof DomainError && err.kind === 'not-found') return false;
    throw err;
  }
}
