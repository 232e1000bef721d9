// Store teams' matrix for Greenfield on both engines: every state-changing Greenfield route (read from the app's
// route table, so a new one without a declared policy in src/teams/route-actions.ts fails here) x every role. Each
// role's member holds a key created with every policy (while an Owner, the creator recorded as the authorization
// page records it), then their role is set: GreenfieldKeys.verify reduces the key on every use, and each route
// answers Greenfield's 403 exactly where the permission table refuses the role the route's policy; 0 escalations.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { authed, login } from '../../test/support/dashboard.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { gf } from '../../test/support/greenfield.ts';
import { routeTable } from '../../test/support/route-table.ts';
import { encodeAddress } from '../bitcoin/address.ts';
import { associateByOperator } from '../dashboard/accounts.ts';
import { isKnownPolicy, POLICIES } from '../greenfield/permissions.ts';
import { GREENFIELD_ACTIONS, may, ROLES, type Role } from './permissions.ts';
import { changesState, GREENFIELD_ROUTE_POLICIES } from './route-actions.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };
const EVERY_POLICY = Object.values(POLICIES);
/** A fresh regtest address (a store's payouts each need their own destination). */
const destination = () => encodeAddress(Uint8Array.from([0x00, 0x14, ...randomBytes(20)]), 'regtest');

/** Greenfield's routes: /api/v1, except the payment API's own (/api/v1/payment/…, its keys are not members'). */
const isGreenfield = (key: string) => {
  const url = key.slice(key.indexOf(' ') + 1);
  return url.startsWith('/api/v1/') && !url.startsWith('/api/v1/payment/');
};

/** Whether a role may take a route guarded by the policy: every action of the policy is the role's (the permission table). */
const allowed = (role: Role, policy: string) => policy === 'own' || GREENFIELD_ACTIONS[policy]!.every((a) => may(role, a));

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

describe.each(testEngines())('Greenfield routes x store team roles on %s', (engine) => {
  let t: TestApp;
  let storeId: string;
  let ownerKey: string;
  let ownerToken: string;
  const keys = new Map<Role, string>();
  const table = () => routeTable(t.app).filter((key) => isGreenfield(key) && changesState(key.slice(0, key.indexOf(' '))));

  /** A key with every policy, created by the member while an Owner, as the authorization page records its creator. */
  const memberKey = async (email: string): Promise<string> => {
    const profile = await t.ctx.db.kysely.selectFrom('profiles').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const wallet = (await t.ctx.wallets.repo.findByApiId(storeId))!;
    return (await t.ctx.greenfield.keys.create({ walletId: wallet.id, storeId }, EVERY_POLICY, 'Matrix', `profile-${profile.id}`)).apiKey;
  };
  const setRole = async (email: string, role: Role) => {
    const res = await authed(t.app, ownerToken, 'POST', `/dashboard/wallets/${storeId}/members/change`, { email, role });
    expect(res.statusCode, res.body).toBe(200);
  };

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }) }, chains: DEAD_NODE, start: true });
    storeId = await addSandboxWallet(t.app, { account_name: 'Team Shop', notification_email: 'owner@example.com', local_currency: 'usd' });
    await associateByOperator(t.ctx.db, storeId, 'owner@example.com', Date.now());
    ownerToken = await login(t.app, t.ctx.db, 'owner@example.com');
    ownerKey = await memberKey('owner@example.com');
    keys.set('Owner', ownerKey);
    for (const role of ROLES.filter((r) => r !== 'Owner')) {
      const email = `gf-${role.toLowerCase()}@example.com`;
      await login(t.app, t.ctx.db, email);
      const added = await authed(t.app, ownerToken, 'POST', `/dashboard/wallets/${storeId}/members`, { email, role: 'Owner' });
      expect(added.statusCode, added.body).toBe(200);
      keys.set(role, await memberKey(email));
      await setRole(email, role);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('has a declared policy for every state-changing Greenfield route, and every declaration names a route and a known policy', () => {
    const routes = table();
    expect(routes).toContain('POST /api/v1/stores/:storeId/invoices');
    expect(routes.filter((key) => !(key in GREENFIELD_ROUTE_POLICIES))).toEqual([]);
    expect(Object.keys(GREENFIELD_ROUTE_POLICIES).filter((key) => !routes.includes(key))).toEqual([]);
    expect(Object.entries(GREENFIELD_ROUTE_POLICIES).filter(([, p]) => p !== 'own' && p !== 'public' && !isKnownPolicy(p))).toEqual([]);
  });

  // The objects a route names, made fresh for it with the Owner's key (a storeId-less route resolves its store from
  // a real object; an unknown one is refused to every key alike).
  const owner = (method: Method, url: string, body?: unknown) => gf(t.app, ownerKey, method, url, body);
  const made = async (res: LightMyRequestResponse | Promise<LightMyRequestResponse>, field = 'id'): Promise<string> => {
    const r = await res;
    expect(r.statusCode, r.body).toBe(200);
    return (r.json() as Record<string, string>)[field]!;
  };
  const S = () => `/api/v1/stores/${storeId}`;
  const makers: Record<string, () => Promise<string>> = {
    invoiceId: () => made(owner('POST', `${S()}/invoices`, { amount: '5', currency: 'USD' })),
    paymentRequestId: () => made(owner('POST', `${S()}/payment-requests`, { amount: '10', currency: 'USD', title: 'Matrix' })),
    pullPaymentId: () => made(owner('POST', `${S()}/pull-payments`, { name: 'Matrix', amount: '0.001', currency: 'BTC' })),
    payoutId: async () => {
      const pullPaymentId = await makers.pullPaymentId!();
      return made(owner('POST', `${S()}/payouts`, { destination: destination(), amount: '0.0001', pullPaymentId }));
    },
    webhookId: () => made(owner('POST', `${S()}/webhooks`, { url: 'https://hooks.example.com/matrix' })),
    appId: () => made(owner('POST', `${S()}/apps/pos`, { appName: 'Matrix POS', defaultView: 'Light' })),
  };

  /** The route's path with its objects, and a body that passes validation where that is cheap. */
  const request = async (key: string): Promise<{ method: Method; url: string; body: unknown }> => {
    const [method, pattern] = key.split(' ') as [Method, string];
    let url = pattern.replace(':storeId', storeId).replace(':pm/:code', 'OnChain/BTC').replace(':pm', 'BTC-CHAIN');
    for (const param of url.match(/:[A-Za-z]+/g) ?? []) {
      const maker = makers[param.slice(1)];
      url = url.replace(param, maker ? await maker() : 'x987654');
    }
    const body: unknown =
      method === 'DELETE' ? undefined
      : pattern.endsWith('/pay') ? {}
      : pattern.endsWith('/invoices') ? { amount: '5', currency: 'USD' }
      : pattern.endsWith('/status') ? { status: 'Invalid' }
      : pattern.endsWith('/payment-requests') || pattern.includes('/payment-requests/') ? { amount: '10', currency: 'USD', title: 'Matrix' }
      : pattern.endsWith('/pull-payments') ? { name: 'Matrix', amount: '0.001', currency: 'BTC' }
      : pattern.endsWith('/payouts') ? { destination: destination(), amount: '0.0001', pullPaymentId: await makers.pullPaymentId!() }
      : pattern.endsWith('/signed') ? { transaction: '00' }
      : pattern.includes('/webhooks') && !pattern.endsWith('/redeliver') ? { url: 'https://hooks.example.com/matrix' }
      : pattern.includes('/apps/pos') ? { appName: 'Matrix POS', defaultView: 'Light' }
      : pattern.endsWith('/reports') ? { viewName: 'Payments' }
      : pattern.includes('/invoices/') ? { metadata: { orderId: 'matrix' } }
      : {};
    return { method, url, body };
  };

  it("answers each role's key on every state-changing Greenfield route exactly as the permission table says (403 where it may not, never 403 where it may)", async () => {
    const escalations: string[] = [];
    const overRefusals: string[] = [];
    const answers = new Map<number, number>();
    let denied = 0;
    for (const key of table()) {
      const policy = GREENFIELD_ROUTE_POLICIES[key]!;
      if (policy === 'public' || policy === 'own') continue;
      const { method, url, body } = await request(key);
      // The refused roles first: their calls change nothing, and the object is still there for the others.
      for (const role of [...ROLES].sort((a, b) => Number(allowed(a, policy)) - Number(allowed(b, policy)))) {
        const res = await gf(t.app, keys.get(role)!, method, url, body);
        expect(res.statusCode, `${role} ${key}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
        answers.set(res.statusCode, (answers.get(res.statusCode) ?? 0) + 1);
        if (!allowed(role, policy)) {
          denied += 1;
          if (res.statusCode !== 403) escalations.push(`${role} ${key} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
          else expect(res.json(), `${role} ${key}`).toMatchObject({ code: 'missing-permission' });
        } else if (res.statusCode === 403) overRefusals.push(`${role} ${key} -> 403 ${res.body.slice(0, 200)}`);
      }
    }
    expect(escalations).toEqual([]);
    expect(overRefusals).toEqual([]);
    expect(answers.get(403)).toBe(denied);
    expect(denied).toBeGreaterThan(0);
    expect([...answers.keys()].filter((s) => s !== 403).length).toBeGreaterThan(1);
  }, 180_000);

  it('lets every role revoke its own key (DELETE /api/v1/api-keys/current), which then stops working', async () => {
    for (const role of ROLES) {
      const email = role === 'Owner' ? 'owner@example.com' : `gf-${role.toLowerCase()}@example.com`;
      if (role !== 'Owner') await setRole(email, 'Owner');
      const key = await memberKey(email);
      if (role !== 'Owner') await setRole(email, role);
      expect((await gf(t.app, key, 'DELETE', '/api/v1/api-keys/current')).statusCode, role).toBe(200);
      expect((await gf(t.app, key, 'GET', '/api/v1/api-keys/current')).statusCode, role).toBe(401);
    }
  });
});
