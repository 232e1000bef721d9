// The dashboard authentication hook against real sessions in a real database, on a bare Fastify app.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { installErrorHandling } from './error-handler.ts';
import { dashboardAuth, requireDashboardSession } from './dashboard-auth.ts';
import { Sessions } from '../dashboard/sessions.ts';

describe.each(testEngines())('the dashboard authentication hook on %s', (engine) => {
  let testDb: TestDb;
  let app: FastifyInstance;
  let now = Date.UTC(2026, 10, 21, 12, 0, 0);
  let token: string;
  let sessionId: bigint;

  beforeEach(async () => {
    testDb = await createTestDb(engine);
    const sessions = new Sessions(testDb.db, () => now);
    const profile = await testDb.db.kysely
      .insertInto('profiles')
      .values({ email: 'merchant@shop.example', firstname: null, lastname: null, mobile: null, country: null, created_at: BigInt(now), updated_at: BigInt(now) })
      .returning('id')
      .executeTakeFirstOrThrow();
    ({ token } = await testDb.db.kysely.transaction().execute((trx) => sessions.open(trx, profile.id, 7200, '127.0.0.1')));
    sessionId = (await testDb.db.kysely.selectFrom('dashboard_sessions').select('id').executeTakeFirstOrThrow()).id;
    app = Fastify();
    installErrorHandling(app, { publicUrl: 'http://127.0.0.1:8080' });
    await app.register(async (scope) => {
      scope.addHook('preValidation', dashboardAuth(scope, sessions));
      scope.get('/whoami', async (request) => ({ email: requireDashboardSession(request).email }));
      scope.post('/whoami', async (request) => ({ email: requireDashboardSession(request).email }));
      scope.post('/logout', async (request) => {
        await sessions.end(requireDashboardSession(request).sessionId);
        return { ok: true };
      });
    });
    await app.register(async (scope) => {
      const fromCookie = (request: { headers: Record<string, unknown> }) => /(?:^|; )sid=([^;]+)/.exec(String(request.headers.cookie ?? ''))?.[1] ?? null;
      scope.addHook('preValidation', dashboardAuth(scope, sessions, { fallbackToken: fromCookie }));
      scope.get('/cookie', async (request) => ({ email: requireDashboardSession(request).email }));
    });
    await app.register(async (scope) => {
      scope.addHook('preValidation', dashboardAuth(scope, sessions, { optional: true }));
      scope.get('/maybe', async (request) => ({ email: request.dashboardSession?.email ?? null }));
      scope.get('/must', async (request) => ({ email: requireDashboardSession(request).email }));
    });
    await app.ready();
  });
  afterEach(async () => {
    await app.close();
    await testDb.dispose();
  });

  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

  it('accepts the bare token, a Bearer token and auth_token in the body, and sets the caller', async () => {
    for (const authorization of [token, `Bearer ${token}`, `bearer ${token}`]) {
      const res = await get('/whoami', { authorization });
      expect(res.json(), authorization).toEqual({ email: 'merchant@shop.example' });
    }
    const body = await app.inject({ method: 'POST', url: '/whoami', payload: { auth_token: token } });
    expect(body.json()).toEqual({ email: 'merchant@shop.example' });
  });

  it('answers 302 without a token, 303 for an unknown one, 304 once expired, 303 after logout', async () => {
    const missing = await get('/whoami');
    expect([missing.statusCode, missing.json().return]).toEqual([401, '302']);
    const unknown = await get('/whoami', { authorization: `${token}x` });
    expect([unknown.statusCode, unknown.json().return]).toEqual([401, '303']);
    now += 7200 * 1000;
    const expired = await get('/whoami', { authorization: token });
    expect([expired.statusCode, expired.json().return]).toEqual([401, '304']);
    now -= 1000;
    expect((await get('/whoami', { authorization: token })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/logout', headers: { authorization: token } })).statusCode).toBe(200);
    const ended = await get('/whoami', { authorization: token });
    expect(ended.json().return).toBe('303');
    expect(sessionId).toBeTypeOf('bigint');
  });

  it('takes the token from a fallback source (a cookie) when the header and body carry none', async () => {
    expect((await get('/cookie', { cookie: `theme=dark; sid=${token}` })).json()).toEqual({ email: 'merchant@shop.example' });
    expect((await get('/cookie', { cookie: 'sid=wrong' })).json().return).toBe('303');
    expect((await get('/cookie')).json().return).toBe('302');
  });

  it("opening a session drops the profile's sessions that ended or expired over a day ago", async () => {
    const sessions = new Sessions(testDb.db, () => now);
    const profileId = (await testDb.db.kysely.selectFrom('profiles').select('id').executeTakeFirstOrThrow()).id;
    now += 7200 * 1000 + 86_400_000 + 1;
    const { token: fresh } = await testDb.db.kysely.transaction().execute((trx) => sessions.open(trx, profileId, 60, null));
    const rows = await testDb.db.kysely.selectFrom('dashboard_sessions').select('id').execute();
    expect(rows.map((r) => r.id)).not.toContain(sessionId);
    expect(rows).toHaveLength(1);
    expect((await get('/whoami', { authorization: fresh })).statusCode).toBe(200);
  });

  it('refuses a non-string auth_token and two different tokens', async () => {
    const wrongType = await app.inject({ method: 'POST', url: '/whoami', payload: { auth_token: 12 } });
    expect(wrongType.json().return).toBe('201');
    const two = await app.inject({ method: 'POST', url: '/whoami', headers: { authorization: token }, payload: { auth_token: 'other' } });
    expect(two.json().return).toBe('201');
  });

  it('in optional mode lets anonymous requests through and reports a bad token only when a caller is required', async () => {
    expect((await get('/maybe')).json()).toEqual({ email: null });
    expect((await get('/maybe', { authorization: token })).json()).toEqual({ email: 'merchant@shop.example' });
    expect((await get('/must')).json().return).toBe('302');
    expect((await get('/must', { authorization: 'nope' })).json().return).toBe('303');
  });
});
