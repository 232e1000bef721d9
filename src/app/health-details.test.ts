// GET /health tells anyone whether satgate and each component is ok; the details (which node at which host and
// port, the last error, the data directory) only a request from this machine sees: the operator, `satgate status`.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { VERSION } from '../core/version.ts';

const NODE = 'http://user:secret@10.20.30.40:18443';

describe.each(testEngines())('/health details on %s', (engine) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const boot = (env: Record<string, string> = {}) => createTestApp(engine, { env, chains: { test: { rpcUrl: NODE, network: 'regtest' } } });
  const health = (remoteAddress: string, headers: Record<string, string> = {}) =>
    t!.app.inject({ method: 'GET', url: '/health', remoteAddress, headers });

  it('a request from another machine sees the status and each component ok, never the node host and port', async () => {
    t = await boot();
    const res = await health('203.0.113.9');
    expect([200, 503]).toContain(res.statusCode);
    const body = res.json() as Record<string, unknown>;
    expect(body).toMatchObject({ status: expect.stringMatching(/^(ok|degraded|unhealthy)$/), version: VERSION, database: { ok: true } });
    for (const [name, value] of Object.entries(body)) {
      if (name === 'status' || name === 'version') continue;
      expect(Object.keys(value as object), name).toEqual(['ok']);
    }
    expect(body.chain_test).toEqual({ ok: expect.any(Boolean) });
    expect(res.body).not.toContain('10.20.30.40');
    expect(res.body).not.toContain('18443');
  });

  it('a request from this machine sees the details, as before', async () => {
    t = await boot();
    const res = await health('127.0.0.1');
    expect(res.json()).toMatchObject({ database: { ok: true, engine }, chain_test: { network: 'regtest', source: 'rpc' } });
    expect(res.body).toContain('10.20.30.40:18443');
    expect((await health('::1')).body).toContain('10.20.30.40:18443');
  });

  it('a request relayed from loopback by a proxy that is not trusted sees no details; through a trusted one, its client decides', async () => {
    t = await boot();
    expect((await health('127.0.0.1', { 'x-forwarded-for': '127.0.0.1' })).body).not.toContain('10.20.30.40');
    expect((await health('127.0.0.1', { forwarded: 'for=127.0.0.1' })).body).not.toContain('10.20.30.40');
    await t.close();
    t = await boot({ SATGATE_TRUST_PROXY: 'loopback' });
    expect((await health('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' })).body).not.toContain('10.20.30.40');
    expect((await health('127.0.0.1', { 'x-forwarded-for': '127.0.0.1' })).body).toContain('10.20.30.40:18443');
  });
});
