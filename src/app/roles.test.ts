// SATGATE_ROLE on PostgreSQL: a worker process runs the singleton work and serves only operations endpoints;
// an api process serves the API and never takes the lease, even when nobody holds it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { createTestDb, type TestDb } from '../../test/support/test-db.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';

const PG = process.env.TEST_DATABASE_URL;
if (!PG && process.env.CI !== 'true') console.warn('skipping role tests: TEST_DATABASE_URL is not set (they need PostgreSQL)');

describe.skipIf(!PG && process.env.CI !== 'true')('SATGATE_ROLE worker and api on one PostgreSQL database', () => {
  let testDb: TestDb;
  let worker: TestApp;
  let api: TestApp;

  beforeAll(async () => {
    testDb = await createTestDb('postgres');
    const env = { DATABASE_URL: testDb.env.DATABASE_URL!, SATGATE_LEASE_MS: '3000' };
    worker = await createTestApp('postgres', { testDb, env: { ...env, SATGATE_ROLE: 'worker' }, start: true });
    api = await createTestApp('postgres', { testDb: { ...testDb, db: testDb.reopen() }, env: { ...env, SATGATE_ROLE: 'api' }, start: true });
  });
  afterAll(async () => {
    await api?.stop();
    await testDb?.dispose();
  });

  it('the worker holds the lease and answers only /health and /metrics; the api process serves the API as a follower', async () => {
    const wh = (await worker.app.inject({ method: 'GET', url: '/health' })).json();
    expect(wh.singleton, JSON.stringify(wh.singleton)).toMatchObject({ role: 'worker', state: 'holder' });
    expect((await worker.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/^satgate_singleton_holder 1$/m);
    expect((await worker.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey } })).statusCode).toBe(404);

    const ah = (await api.app.inject({ method: 'GET', url: '/health' })).json();
    expect(ah.singleton, JSON.stringify(ah.singleton)).toMatchObject({ role: 'api', state: 'follower', holder: wh.singleton.process });
    const added = (await api.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey } })).json();
    expect(added.return).toBe('0');
  });

  it('when the worker stops, the api process does not take the lease', async () => {
    await worker.stop();
    await new Promise((r) => setTimeout(r, 1_500));
    const ah = (await api.app.inject({ method: 'GET', url: '/health' })).json();
    expect(ah.singleton, JSON.stringify(ah.singleton)).toMatchObject({ role: 'api', state: 'follower', holder: null, ok: false });
    expect((await api.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/^satgate_singleton_holder 0$/m);
  });
});
