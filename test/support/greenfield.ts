// Helpers for Greenfield tests: a key for a store (as `satgate greenfield key create` makes it) and requests with it.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/app/context.ts';
import { WOOCOMMERCE_POLICIES } from '../../src/greenfield/permissions.ts';

/** Creates a key for the store (a wallet's API ID) with the given policies (default: the WooCommerce plugin's). */
export async function greenfieldKey(ctx: AppContext, storeId: string, policies: readonly string[] = WOOCOMMERCE_POLICIES): Promise<string> {
  const wallet = await ctx.wallets.repo.findByApiId(storeId);
  if (!wallet) throw new Error(`no wallet ${storeId}`);
  const created = await ctx.greenfield.keys.create({ walletId: wallet.id, storeId }, policies, 'test key');
  return created.apiKey;
}

/** A Greenfield request with `Authorization: token <key>`; `body` may be raw JSON text. */
export function gf(app: FastifyInstance, key: string | null, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, scheme = 'token') {
  return app.inject({
    method,
    url,
    headers: {
      ...(key !== null ? { authorization: `${scheme} ${key}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}
