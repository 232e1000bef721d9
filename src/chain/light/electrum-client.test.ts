// The Electrum client over TLS against the Electrum test server: a self-signed home-server certificate is
// accepted only when pinned by its SHA-256 fingerprint, and refused otherwise (no silent "accept anything").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { startRegtestNode, type RegtestNode } from '../../../test/support/regtest-node.ts';
import { startElectrumTestServer, type ElectrumTestServer } from '../../../test/support/electrum-test-server.ts';
import { ElectrumBackend } from './electrum-backend.ts';
import { parseElectrumUrl } from './electrum-client.ts';
import { parseProxyUrl } from './socks-proxy.ts';
import { startSocks5TestProxy } from '../../../test/support/socks5-test-proxy.ts';

const fixture = (name: string) => readFileSync(new URL(`../../../test/support/fixtures/${name}`, import.meta.url), 'utf8');
const cert = fixture('electrum-test-cert.pem');
const key = fixture('electrum-test-key.pem');
const fingerprint = new X509Certificate(cert).fingerprint256.replace(/:/g, '');

describe('the Electrum client over TLS', () => {
  let node: RegtestNode;
  let server: ElectrumTestServer;

  beforeAll(async () => {
    node = await startRegtestNode({ blocks: 5 });
    server = await startElectrumTestServer(node, { tls: { key, cert } });
  });
  afterAll(async () => {
    await server?.close();
    await node?.stop();
  });

  const backend = (url: string) => new ElectrumBackend({ endpoint: parseElectrumUrl(url), budget: { ratePerSecond: 100, burst: 100, backoffMs: 10, maxBackoffMs: 20 } });

  it('talks to a self-signed server whose certificate fingerprint is pinned', async () => {
    const b = backend(`ssl://127.0.0.1:${server.port}?fingerprint=${fingerprint}`);
    try {
      expect(await b.tipHeight()).toBe(5);
      expect((await b.headers(0, 3)).length).toBe(3);
    } finally {
      await b.close();
    }
  });

  it('refuses the same server without a pin (the CAs do not vouch for it) and with another pin', async () => {
    const unpinned = backend(`ssl://127.0.0.1:${server.port}`);
    await expect(unpinned.tipHeight()).rejects.toThrow(/self[- ]signed|certificate/i);
    await unpinned.close();
    const wrong = backend(`ssl://127.0.0.1:${server.port}?fingerprint=${'AB'.repeat(32)}`);
    await expect(wrong.tipHeight()).rejects.toThrow(/fingerprint/);
    await wrong.close();
  });

  it('reaches a server through a SOCKS5 proxy that resolves the name itself (as Tor does for .onion)', async () => {
    const proxy = await startSocks5TestProxy((host) => (host === 'electrumexample.onion' ? '127.0.0.1' : host));
    const b = new ElectrumBackend({
      endpoint: parseElectrumUrl(`ssl://electrumexample.onion:${server.port}?fingerprint=${fingerprint}`),
      proxy: parseProxyUrl(`socks5h://127.0.0.1:${proxy.port}`),
    });
    try {
      expect(await b.tipHeight()).toBe(5);
      expect(proxy.connects).toEqual([`electrumexample.onion:${server.port}`]);
    } finally {
      await b.close();
      await proxy.close();
    }
  });

  it('reads Electrum URLs strictly', () => {
    expect(parseElectrumUrl('ssl://electrum.local:50002')).toEqual({ tls: true, host: 'electrum.local', port: 50002, fingerprint: null });
    expect(parseElectrumUrl('tcp://[::1]:50001')).toMatchObject({ tls: false, host: '::1' });
    expect(() => parseElectrumUrl('http://host:50001')).toThrow(/tcp:\/\/ or ssl:\/\//);
    expect(() => parseElectrumUrl('ssl://host')).toThrow(/port/);
    expect(() => parseElectrumUrl('tcp://host:1?fingerprint=' + 'AB'.repeat(32))).toThrow(/needs ssl/);
    expect(() => parseElectrumUrl('ssl://host:1?fingerprint=abc')).toThrow(/64 hex/);
  });
});
