import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { addressRisk, checkUrlAllowed, safePost, SafePostError, type Resolver } from './ssrf-guard.ts';

describe('addressRisk classification', () => {
  // [address, expected: 'public' | 'private' (allowed with allowPrivate) | 'never']
  const table: Array<[string, 'public' | 'private' | 'never']> = [
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['1.1.1.1', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['223.255.255.255', 'public'],
    ['127.0.0.1', 'private'],
    ['127.255.255.254', 'private'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['169.254.169.254', 'never'],
    ['100.100.100.200', 'never'],
    ['0.0.0.0', 'never'],
    ['0.1.2.3', 'never'],
    ['255.255.255.255', 'never'],
    ['224.0.0.1', 'never'],
    ['239.255.255.250', 'never'],
    ['240.0.0.1', 'never'],
    ['192.0.2.10', 'never'],
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['::1', 'private'],
    ['::', 'never'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'private'],
    ['fe80::1%eth0', 'private'],
    ['febf:ffff::1', 'private'],
    ['ff02::1', 'never'],
    ['fd00:ec2::254', 'never'],
    ['2001:db8::1', 'never'],
    ['::ffff:127.0.0.1', 'private'],
    ['::ffff:7f00:1', 'private'],
    ['::ffff:169.254.169.254', 'never'],
    ['::ffff:8.8.8.8', 'public'],
    ['::ffff:0:0', 'never'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:7f00:1::', 'private'],
    ['2002:0808:0808::1', 'public'],
    ['::127.0.0.1', 'never'],
    ['not-an-ip', 'never'],
  ];
  it.each(table)('%s is %s', (ip, expected) => {
    const risk = addressRisk(ip);
    const verdict = risk === null ? 'public' : risk.privateOk ? 'private' : 'never';
    expect(verdict).toBe(expected);
  });
});

describe('checkUrlAllowed', () => {
  const fakeDns =
    (answers: Record<string, string[]>): Resolver =>
    async (host) => {
      const list = answers[host];
      if (!list) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };

  it('a public host is allowed and reports the checked address', async () => {
    const resolve = fakeDns({ 'shop.example': ['93.184.216.34', '2606:2800:220:1::1'] });
    expect(await checkUrlAllowed('https://shop.example/hook', { resolve })).toEqual({ ok: true, address: '93.184.216.34', family: 4 });
  });

  it('a host with any internal address is refused', async () => {
    const resolve = fakeDns({ 'mixed.example': ['93.184.216.34', '10.0.0.7'] });
    const r = await checkUrlAllowed('https://mixed.example/hook', { resolve });
    expect(r).toMatchObject({ ok: false, code: 'address' });
    expect(r.ok ? '' : r.reason).toContain('10.0.0.7');
  });

  it('only http and https are allowed', async () => {
    for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com/', 'javascript:alert(1)']) {
      expect(await checkUrlAllowed(url)).toMatchObject({ ok: false, code: 'scheme' });
    }
    expect(await checkUrlAllowed('not a url')).toMatchObject({ ok: false, code: 'url' });
  });

  it('IP literals in any spelling are checked without DNS', async () => {
    const resolve: Resolver = async () => {
      throw new Error('DNS must not be used for literals');
    };
    for (const url of ['http://127.0.0.1/', 'http://2130706433/', 'http://0x7f.1/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]:8080/', 'http://169.254.169.254/latest/meta-data/', 'http://0.0.0.0/']) {
      expect(await checkUrlAllowed(url, { resolve }), url).toMatchObject({ ok: false, code: 'address' });
    }
    expect(await checkUrlAllowed('http://8.8.8.8/', { resolve })).toEqual({ ok: true, address: '8.8.8.8', family: 4 });
  });

  it('metadata host names are refused even when private addresses are allowed', async () => {
    for (const url of ['http://metadata.google.internal/computeMetadata/v1/', 'http://METADATA.google.internal./', 'http://metadata/']) {
      expect(await checkUrlAllowed(url, { allowPrivate: true }), url).toMatchObject({ ok: false, code: 'host' });
    }
    expect(await checkUrlAllowed('http://169.254.169.254/', { allowPrivate: true })).toMatchObject({ ok: false });
  });

  it('allowPrivate admits loopback and private addresses', async () => {
    expect(await checkUrlAllowed('http://127.0.0.1:3000/', { allowPrivate: true })).toMatchObject({ ok: true, address: '127.0.0.1' });
    expect(await checkUrlAllowed('http://[fd00::5]/', { allowPrivate: true })).toMatchObject({ ok: true, family: 6 });
  });

  it('every refusal of an internal target names SATGATE_ALLOW_PRIVATE_WEBHOOKS, and whether setting it would help', async () => {
    const reason = async (url: string, allowPrivate = false) => {
      const r = await checkUrlAllowed(url, { allowPrivate });
      return r.ok ? '' : r.reason;
    };
    for (const url of ['http://127.0.0.1:3000/hook', 'http://[::1]/', 'http://10.0.0.7/', 'http://192.168.1.20/']) {
      expect(await reason(url), url).toContain('(set SATGATE_ALLOW_PRIVATE_WEBHOOKS=1 to allow loopback and private targets');
    }
    for (const url of ['http://169.254.169.254/latest', 'http://0.0.0.0/', 'http://metadata.google.internal/']) {
      expect(await reason(url, true), url).toContain('(refused even with SATGATE_ALLOW_PRIVATE_WEBHOOKS=1)');
    }
  });

  it('localhost is resolved by the system and refused', async () => {
    expect(await checkUrlAllowed('http://localhost:8080/')).toMatchObject({ ok: false, code: 'address' });
  });

  it('an unresolvable host is a DNS failure', async () => {
    expect(await checkUrlAllowed('http://nowhere.example/', { resolve: fakeDns({}) })).toMatchObject({ ok: false, code: 'dns' });
  });
});

describe('safePost against a real local server', () => {
  const seen: Array<{ path: string; host: string | undefined; body: string; type: string | undefined }> = [];
  let server: http.Server;
  let port = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', host: req.headers.host, body: Buffer.concat(chunks).toString(), type: req.headers['content-type'] });
        if (req.url === '/hook') res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
        else if (req.url === '/redirect') res.writeHead(302, { location: '/hook' }).end();
        else if (req.url === '/big') res.writeHead(500).end('x'.repeat(5000));
        // '/hang' never answers
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const json = { 'content-type': 'application/json' };

  it('delivers a POST when private addresses are allowed', async () => {
    const before = seen.length;
    const r = await safePost(`http://127.0.0.1:${port}/hook`, '{"event":"payment"}', json, { allowPrivate: true });
    expect(r).toMatchObject({ status: 200, ok: true, bodySnippet: 'thanks' });
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(seen.slice(before)).toEqual([{ path: '/hook', host: `127.0.0.1:${port}`, body: '{"event":"payment"}', type: 'application/json' }]);
  });

  it('refuses the same URL without allowPrivate and sends nothing', async () => {
    const before = seen.length;
    const err = await safePost(`http://127.0.0.1:${port}/hook`, '{}', json).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SafePostError);
    expect((err as SafePostError).kind).toBe('refused');
    expect(seen.length).toBe(before);
  });

  it('connects to the checked address while keeping the host name in the Host header', async () => {
    const before = seen.length;
    // hook.invalid cannot resolve for real: the request only works through the pinned address.
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const r = await safePost(`http://hook.invalid:${port}/hook`, 'x', {}, { allowPrivate: true, resolve });
    expect(r.status).toBe(200);
    expect(seen.slice(before)[0]?.host).toBe(`hook.invalid:${port}`);
  });

  it('does not follow a redirect', async () => {
    const before = seen.length;
    const r = await safePost(`http://127.0.0.1:${port}/redirect`, '{}', json, { allowPrivate: true });
    expect(r).toMatchObject({ status: 302, ok: false });
    expect(seen.slice(before).map((s) => s.path)).toEqual(['/redirect']);
  });

  it('keeps only the first KiB of the response body', async () => {
    const r = await safePost(`http://127.0.0.1:${port}/big`, '{}', json, { allowPrivate: true });
    expect(r.status).toBe(500);
    expect(r.ok).toBe(false);
    expect(r.bodySnippet).toBe('x'.repeat(1024));
  });

  it('gives up after the timeout', async () => {
    const started = Date.now();
    const err = await safePost(`http://127.0.0.1:${port}/hang`, '{}', json, { allowPrivate: true, timeoutMs: 300 }).catch((e: unknown) => e);
    expect((err as SafePostError).kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports a refused connection clearly', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const err = await safePost(`http://127.0.0.1:${freePort}/`, '{}', json, { allowPrivate: true }).catch((e: unknown) => e);
    expect((err as SafePostError).kind).toBe('connection');
    expect((err as Error).message).toContain('ECONNREFUSED');
  });
});

describe('safePost over TLS', () => {
  it('sends the host name as TLS server name to the pinned address and verifies the certificate', async () => {
    // A self-signed certificate for hook.invalid (EC P-256, valid 100 years), kept as a fixture so the suite needs
    // no openssl binary: `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 36500 -subj /CN=hook.invalid`.
    {
      const names: string[] = [];
      const key = readFileSync(new URL('../../test/fixtures/tls/key.pem', import.meta.url));
      const cert = readFileSync(new URL('../../test/fixtures/tls/cert.pem', import.meta.url));
      const server = https.createServer({
        key,
        cert,
        SNICallback: (name, cb) => {
          names.push(name);
          cb(null, tls.createSecureContext({ key, cert }));
        },
      });
      server.on('tlsClientError', () => {});
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as AddressInfo).port;
      const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
      const err = await safePost(`https://hook.invalid:${port}/hook`, '{}', {}, { allowPrivate: true, resolve }).catch((e: unknown) => e);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      // The self-signed certificate is rejected: verification stays on.
      expect((err as SafePostError).kind).toBe('connection');
      expect((err as Error).message).toMatch(/SELF_SIGNED|self.signed/i);
      expect(names).toEqual(['hook.invalid']);
    }
  });
});
