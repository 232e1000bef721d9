// Store teams' matrix on both engines: every role of a wallet's members x every state-changing route of the
// console, the dashboard API and Greenfield key creation, read from the app's route table (so a new route
// without an entry in src/teams/route-actions.ts fails here), gets exactly what the permission table says:
// 403 in the face's shape where the role may not, anything but 403 where it may; 0 escalations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { routeTable } from '../../test/support/route-table.ts';
import { TeamMember as Member } from '../../test/support/team-member.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { associateByOperator } from '../dashboard/accounts.ts';
import { POLICIES } from '../greenfield/permissions.ts';
import { may, mayGrant, ROLES, type Role } from './permissions.ts';
import { changesState, ROUTE_ACTIONS } from './route-actions.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };
const ORIGIN = 'http://console.example';

/** Routes of the three faces: the console, the dashboard API (its /dashboard/ paths and the session operations at the root), key creation. */
const DASHBOARD_ROOT = ['/send_otp', '/check_otp', '/get_profile', '/update_profile', '/get_accounts', '/logout', '/refund_request', '/refunds', '/refunds/psbt', '/refunds/signed'];
const ofFaces = (key: string) => {
  const url = key.slice(key.indexOf(' ') + 1);
  return url.startsWith('/console/') || url.startsWith('/dashboard/') || DASHBOARD_ROOT.includes(url) || url.startsWith('/api-keys/authorize');
};


describe.each(testEngines())('store teams on %s', (engine) => {
  let t: TestApp;
  let apiId: string;
  const members = new Map<Role, Member>();

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), SATGATE_PUBLIC_URL: ORIGIN }, chains: DEAD_NODE, start: true });
    apiId = await addSandboxWallet(t.app, { account_name: 'Team Shop', notification_email: 'owner@example.com', local_currency: 'usd' });
    await associateByOperator(t.ctx.db, apiId, 'owner@example.com', Date.now());
    const owner = await new Member(t.app, 'owner@example.com', ORIGIN, '127.0.0.1').signIn(t.ctx.db);
    members.set('Owner', owner);
    for (const role of ROLES.filter((r) => r !== 'Owner')) {
      const m = await new Member(t.app, `${role.toLowerCase()}@example.com`, ORIGIN, '127.0.0.1').signIn(t.ctx.db);
      const added = await owner.api('POST', `/dashboard/wallets/${apiId}/members`, { email: m.email, role });
      expect(added.statusCode, added.body).toBe(200);
      members.set(role, m);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('has an entry in the permission table for every state-changing route of the console, the dashboard API and key creation', () => {
    const table = routeTable(t.app).filter(ofFaces);
    expect(table).toContain('POST /console/wallets/:api_id');
    const missing = table.filter((key) => changesState(key.slice(0, key.indexOf(' '))) && !(key in ROUTE_ACTIONS));
    expect(missing).toEqual([]);
    // …and every entry names a route that exists.
    expect(Object.keys(ROUTE_ACTIONS).filter((key) => !table.includes(key))).toEqual([]);
  });

  it('lists the members with their roles for the Owner, and existing owners became Owners', async () => {
    const res = await members.get('Owner')!.api('GET', `/dashboard/wallets/${apiId}/members`);
    const list = (res.json() as { members: { email: string; role: string }[] }).members;
    expect(list.map((m) => [m.email, m.role])).toEqual(ROLES.map((r) => [`${r.toLowerCase()}@example.com`, r]));
  });

  /** A request to a guarded route with a valid input naming the team's wallet (or an order/point of sale that does not exist). */
  const call = (m: Member, key: string) => {
    const [method, pattern] = key.split(' ') as [string, string];
    const url = pattern.replace(':api_id', apiId).replace(':kind', 'payment').replace(':id', '987654');
    if (pattern.startsWith('/console/')) {
      if (method === 'GET') return m.request('GET', `${url}?api_id=${apiId}&from=2026-01-01&to=2026-02-01`);
      return m.request('POST', url, { csrf: m.csrf, api_id: apiId, pos_id: 'no-such-pos', tx_id: 'none', op: 'none' });
    }
    if (method === 'GET') return m.api('GET', `${url}?from=2026-01-01&to=2026-02-01`);
    const body =
      pattern.endsWith('/members') || pattern.endsWith('/change') || pattern.endsWith('/invitations')
        ? { email: 'nobody@example.com', role: 'Guest' }
        : pattern.endsWith('/redeliver')
          ? { event_id: 'none' }
          : pattern.endsWith('/revoke')
            ? { invitation: '987654' }
            : {};
    return m.api('POST', url, body);
  };

  it('answers every role on every guarded route exactly as the permission table says (403 where it may not, never 403 where it may)', async () => {
    const escalations: string[] = [];
    const overRefusals: string[] = [];
    const answers = new Map<number, number>();
    for (const [key, rule] of Object.entries(ROUTE_ACTIONS)) {
      if (rule.action === null || rule.wallet === 'store') continue;
      for (const role of ROLES) {
        const res = await call(members.get(role)!, key);
        expect(res.statusCode, `${role} ${key}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
        const allowed = may(role, rule.action);
        answers.set(res.statusCode, (answers.get(res.statusCode) ?? 0) + 1);
        if (!allowed && res.statusCode !== 403) escalations.push(`${role} ${key} -> ${res.statusCode}`);
        if (allowed && res.statusCode === 403) overRefusals.push(`${role} ${key} -> 403 ${res.body.slice(0, 200)}`);
        if (!allowed && key.startsWith('POST /console')) expect(res.body).toContain('Refused');
        if (!allowed && key.includes(' /dashboard/')) expect(res.headers['content-type']).toMatch(/json/);
      }
    }
    expect(escalations).toEqual([]);
    expect(overRefusals).toEqual([]);
    // Both kinds of answer were met: the refusals the table asks for, and the routes running for the roles that may.
    const denied = Object.values(ROUTE_ACTIONS).filter((r) => r.action !== null && r.wallet !== 'store').flatMap((r) => ROLES.filter((role) => !may(role, r.action!)));
    expect(answers.get(403)).toBe(denied.length);
    expect([...answers.keys()].filter((s) => s !== 403).length).toBeGreaterThan(1);
  }, 120_000);

  it('lets a member create Greenfield keys only with permissions within their role', async () => {
    const escalations: string[] = [];
    const overRefusals: string[] = [];
    for (const role of ROLES) {
      const m = members.get(role)!;
      const cookie = `satgate_gf_authorize=${m.token}`;
      for (const policy of Object.values(POLICIES)) {
        const ask = { applicationName: 'Matrix', permissions: policy };
        const page = await m.request('GET', `/api-keys/authorize?${new URLSearchParams(ask).toString()}`, undefined, cookie);
        const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
        const res = await m.request('POST', '/api-keys/authorize/decide', { ...ask, csrf, storeId: apiId, decision: 'approve' }, cookie);
        const allowed = mayGrant(role, policy);
        if (!allowed && res.statusCode !== 403) escalations.push(`${role} ${policy} -> ${res.statusCode}`);
        if (allowed && res.statusCode !== 200) overRefusals.push(`${role} ${policy} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (!allowed) expect(res.body).toContain('Refused');
      }
    }
    expect(escalations).toEqual([]);
    expect(overRefusals).toEqual([]);
  }, 120_000);

  it("lets an Owner add, re-role and remove a member on the console's Members page, and the member then sees the wallet", async () => {
    const owner = members.get('Owner')!;
    const late = await new Member(t.app, 'late@example.com', ORIGIN, '127.0.0.1').signIn(t.ctx.db);
    const url = `/console/wallets/${apiId}/members`;
    expect((await owner.request('GET', `/console/wallets/${apiId}`)).body).toContain(`href="${url}"`);
    const added = await owner.request('POST', url, { csrf: owner.csrf, op: 'add', email: late.email, role: 'Cashier' });
    expect(added.statusCode, added.body).toBe(303);
    expect((await owner.request('GET', added.headers.location as string)).body).toContain('Members saved.');
    expect((await late.request('GET', '/console/wallets')).body).toContain(apiId);
    expect((await late.request('GET', url)).statusCode).toBe(403);
    expect((await owner.request('POST', url, { csrf: owner.csrf, op: 'add', email: 'never@example.com', role: 'Guest' })).statusCode).toBe(404);
    expect((await owner.request('POST', url, { csrf: owner.csrf, op: 'change', email: late.email, role: 'owner' })).statusCode).toBe(400);
    expect((await owner.request('POST', url, { csrf: owner.csrf, op: 'change', email: late.email, role: 'Accountant' })).statusCode).toBe(303);
    expect((await owner.api('GET', `/dashboard/wallets/${apiId}/members`)).body).toContain('"email":"late@example.com","role":"Accountant","added_by":"owner@example.com"');
    expect((await owner.request('POST', url, { csrf: owner.csrf, op: 'remove', email: late.email })).statusCode).toBe(303);
    // Removed: signed out at once (their sessions ended with the membership).
    expect((await late.request('GET', `/console/wallets/${apiId}`)).headers.location).toBe('/console/login');
  });

  it('keeps at least one Owner: the last Owner can be neither demoted nor removed, and a second Owner makes it possible', async () => {
    const owner = members.get('Owner')!;
    const demote = await owner.api('POST', `/dashboard/wallets/${apiId}/members/change`, { email: owner.email, role: 'Guest' });
    expect(demote.statusCode).toBe(400);
    expect(demote.json()).toMatchObject({ status: expect.stringMatching(/at least one Owner/) });
    const remove = await owner.request('POST', `/console/wallets/${apiId}/members`, { csrf: owner.csrf, op: 'remove', email: owner.email });
    expect(remove.statusCode).toBe(400);
    expect(remove.body).toContain('at least one Owner');
    const guest = members.get('Guest')!;
    expect((await owner.api('POST', `/dashboard/wallets/${apiId}/members/change`, { email: guest.email, role: 'Owner' })).statusCode).toBe(200);
    expect((await owner.api('POST', `/dashboard/wallets/${apiId}/members/change`, { email: guest.email, role: null })).statusCode).toBe(200);
    // Removed: signed out at once, and no longer a member (the wallet is no longer among theirs).
    expect((await guest.api('GET', `/dashboard/wallets/${apiId}`)).statusCode).toBe(401);
    expect((await owner.api('GET', `/dashboard/wallets/${apiId}/members`)).body).not.toContain(guest.email);
    expect(await t.ctx.dashboard.profileWallets((await t.ctx.db.kysely.selectFrom('profiles').select('id').where('email', '=', guest.email).executeTakeFirstOrThrow()).id)).toEqual([]);
  });
});
