import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';

const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';

describe.each(testEngines())('GET /metrics on %s', (engine) => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('serves Prometheus text with request counts by route pattern, never by a path holding a key', async () => {
    t = await createTestApp(engine);
    await t.app.inject({ method: 'GET', url: `/wallet_type/${ZPUB}` });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toContain('satgate_http_requests_total{method="GET",route="/wallet_type/:pub",status="200"} 1');
    expect(res.body).toContain('satgate_outbox_pending{kind="webhook"} 0');
    expect(res.body).toContain('process_cpu_user_seconds_total');
    expect(res.body).not.toContain(ZPUB);
  });
});
