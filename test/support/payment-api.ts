// Helpers for payment API v1 tests: a sandbox wallet, an OAuth client and token, and operation 26.
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { generateNewWallet } from '../../src/bitcoin/new-wallet.ts';
import type { AppContext } from '../../src/app/context.ts';

/** Registers a sandbox wallet (tpub/vpub) through add_pub and returns its API ID. */
export async function addSandboxWallet(app: FastifyInstance, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey, ...fields } });
  const body = res.json() as { return: string; api_id: string };
  expect(body.return, res.body).toBe('0');
  return body.api_id;
}

/** Creates an OAuth client bound to the API IDs, as `satgate client create` does. */
export async function createClient(ctx: AppContext, apiIds: string[]) {
  return ctx.payments.oauth.createClient(apiIds, ctx.masterKey);
}

/** A bearer token for the client (form body authentication). */
export async function tokenFor(app: FastifyInstance, client: { client_id: string; client_secret: string }): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
  });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { access_token: string }).access_token;
}

/** A valid custom payment request body for the API ID (sandbox: testBTC). */
export function customRequest(apiId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'custom',
    api_id: apiId,
    crypto_currency: apiId.startsWith('test_') ? 'testBTC' : 'BTC',
    order_currency: 'USD',
    order_amount: 25,
    payer_id: 'payer@example.com',
    payer_ip: '203.0.113.7',
    ...over,
  };
}

/** Sends operation 26 with a bearer token; `body` may be raw JSON text. */
export function postPayment(app: FastifyInstance, token: string | null, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/payment/request',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
