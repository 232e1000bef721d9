import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { EarlyListener } from './early-listener.ts';

const opened: EarlyListener[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((e) => e.close()));
});

async function listening(): Promise<{ early: EarlyListener; url: string }> {
  const early = new EarlyListener('9.9.9');
  opened.push(early);
  await early.listen('127.0.0.1', 0);
  return { early, url: `http://127.0.0.1:${(early.server.address() as AddressInfo).port}` };
}

describe("satgate start's early listener", () => {
  it('answers /health "starting" with the phase, and every other path a 503 to retry, before the app is ready', async () => {
    const { early, url } = await listening();
    early.phase = 'migrating the database';
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('1');
    expect(await health.json()).toEqual({ status: 'starting', version: '9.9.9', startup: 'migrating the database' });
    const other = await fetch(`${url}/api/v1/payment/abc?x=1`, { method: 'POST', body: '{}' });
    expect(other.status).toBe(503);
    expect(other.headers.get('retry-after')).toBe('1');
    expect(await other.text()).toContain('starting');
  });

  it('hands every request to the app built on its server once the app is ready, on the same port', async () => {
    const { early, url } = await listening();
    const app = Fastify({ serverFactory: early.serverFactory });
    app.get('/health', async () => ({ status: 'ok' }));
    expect((await fetch(`${url}/health`)).status).toBe(503);
    await app.ready();
    early.open();
    const res = await fetch(`${url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${url}/nowhere`)).status).toBe(404);
    await app.close();
  });

  it('refuses to open for an app that was not built on it', async () => {
    const { early } = await listening();
    expect(() => early.open()).toThrow(/serverFactory/);
  });

  it('fails with the listen error on a port in use, and holds nothing', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as AddressInfo).port;
    const early = new EarlyListener('9.9.9');
    await expect(early.listen('127.0.0.1', port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(early.server.listening).toBe(false);
    await new Promise((r) => taken.close(r));
  });
});
