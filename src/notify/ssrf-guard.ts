// Outbound calls to merchant-supplied URLs (webhooks) must not reach the service's own
// network: loopback, private ranges, link-local and cloud metadata endpoints. The host is
// resolved once, every address is checked, and the connection goes to the checked address
// (a pinned `lookup`), so a DNS answer that changes between check and connect cannot matter.

import { promises as dns, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ReasonError } from '../core/errors.ts';

/** Why an address is refused; `privateOk` ones are allowed with `allowPrivate` (development, LAN merchants). */
export interface AddressRisk {
  reason: string;
  privateOk: boolean;
}

type Range = [prefix: bigint, bits: number, reason: string, privateOk: boolean];

const v4 = (a: string): bigint => a.split('.').reduce((n, o) => (n << 8n) | BigInt(o), 0n);

// Most specific entries first: the first match wins.
const V4_RANGES: Range[] = (
  [
    ['169.254.169.254', 32, 'cloud metadata address', false],
    ['100.100.100.200', 32, 'cloud metadata address', false],
    ['255.255.255.255', 32, 'broadcast address', false],
    ['0.0.0.0', 8, 'unspecified ("this network") address', false],
    ['10.0.0.0', 8, 'private address', true],
    ['100.64.0.0', 10, 'carrier-grade NAT address', true],
    ['127.0.0.0', 8, 'loopback address', true],
    ['169.254.0.0', 16, 'link-local address', true],
    ['172.16.0.0', 12, 'private address', true],
    ['192.0.0.0', 24, 'IETF protocol assignment', false],
    ['192.0.2.0', 24, 'documentation address', false],
    ['192.88.99.0', 24, 'deprecated 6to4 relay address', false],
    ['192.168.0.0', 16, 'private address', true],
    ['198.18.0.0', 15, 'benchmarking address', true],
    ['198.51.100.0', 24, 'documentation address', false],
    ['203.0.113.0', 24, 'documentation address', false],
    ['224.0.0.0', 4, 'multicast address', false],
    ['240.0.0.0', 4, 'reserved address', false],
  ] as const
).map(([a, bits, reason, ok]) => [v4(a), bits, reason, ok]);

/** Parses an IPv6 literal (with optional zone and dotted IPv4 tail) into a 128-bit integer. */
function parseV6(text: string): bigint {
  const addr = text.replace(/%.*$/, '');
  let tail: bigint[] = [];
  let body = addr;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(addr);
  if (dotted) {
    const n = v4(dotted[1]!);
    tail = [n >> 16n, n & 0xffffn];
    body = addr.slice(0, -dotted[1]!.length);
    if (body.endsWith(':') && !body.endsWith('::')) body = body.slice(0, -1);
  }
  const groups = (s: string): bigint[] => (s === '' ? [] : s.split(':').map((g) => BigInt(`0x${g}`)));
  const [head, rest] = body.split('::') as [string, string | undefined];
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const fill = 8 - left.length - right.length - tail.length;
  const all = [...left, ...Array<bigint>(rest === undefined ? 0 : fill).fill(0n), ...right, ...tail];
  return all.reduce((n, g) => (n << 16n) | g, 0n);
}

const v6 = (a: string): bigint => parseV6(a);
const V6_RANGES: Range[] = (
  [
    ['fd00:ec2::254', 128, 'cloud metadata address', false],
    ['::', 128, 'unspecified address', false],
    ['::1', 128, 'loopback address', true],
    ['64:ff9b:1::', 48, 'local-use NAT64 address', true],
    ['100::', 64, 'discard-only address', false],
    ['2001:db8::', 32, 'documentation address', false],
    ['fc00::', 7, 'unique local (private) address', true],
    ['fe80::', 10, 'link-local address', true],
    ['fec0::', 10, 'site-local (private) address', true],
    ['ff00::', 8, 'multicast address', false],
  ] as const
).map(([a, bits, reason, ok]) => [v6(a), bits, reason, ok]);

function match(value: bigint, width: number, ranges: Range[]): AddressRisk | null {
  for (const [prefix, bits, reason, privateOk] of ranges) {
    const shift = BigInt(width - bits);
    if (value >> shift === prefix >> shift) return { reason, privateOk };
  }
  return null;
}

function v4Risk(n: bigint): AddressRisk | null {
  return match(n, 32, V4_RANGES);
}

function v4Text(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => ((n >> s) & 0xffn).toString()).join('.');
}

/** Classifies an IP literal: null when it is a public address, else why it is refused. */
export function addressRisk(ip: string): AddressRisk | null {
  const family = isIP(ip.replace(/%.*$/, ''));
  if (family === 4) return v4Risk(v4(ip));
  if (family !== 6) return { reason: 'not an IP address', privateOk: false };
  const n = parseV6(ip);
  const embedded = (v: bigint, what: string): AddressRisk | null => {
    const risk = v4Risk(v);
    return risk && { reason: `${what} of ${v4Text(v)}: ${risk.reason}`, privateOk: risk.privateOk };
  };
  if (n >> 32n === 0xffffn) return embedded(n & 0xffffffffn, 'IPv4-mapped address');
  if (n >> 32n === 0x64ff9b0000000000000000n) return embedded(n & 0xffffffffn, 'NAT64 address');
  if (n >> 112n === 0x2002n) return embedded((n >> 80n) & 0xffffffffn, '6to4 address');
  const risk = match(n, 128, V6_RANGES);
  if (risk) return risk;
  if (n >> 32n === 0n) return { reason: 'deprecated IPv4-compatible address', privateOk: false };
  return null;
}

const METADATA_HOSTS = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
]);

export type Resolver = (host: string) => Promise<LookupAddress[]>;

export interface GuardOptions {
  allowPrivate?: boolean;
  /** DNS resolution; default `dns.promises.lookup(host, { all: true })`. Tests substitute it. */
  resolve?: Resolver;
}

export type UrlCheck =
  | { ok: true; address: string; family: 4 | 6 }
  | { ok: false; reason: string; code: 'url' | 'scheme' | 'host' | 'address' | 'dns' };

// Every refusal of an internal target names the setting, so the operator knows whether it would help.
const ALLOW_HINT = ' (set SATGATE_ALLOW_PRIVATE_WEBHOOKS=1 to allow loopback and private targets, such as a shop on this machine)';
const NEVER = ' (refused even with SATGATE_ALLOW_PRIVATE_WEBHOOKS=1)';

const systemResolve: Resolver = (host) => dns.lookup(host, { all: true, verbatim: true });

/** Decides whether `url` may be called: http(s) only, and no resolved address is internal. */
export async function checkUrlAllowed(url: string | URL, options: GuardOptions = {}): Promise<UrlCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, code: 'url', reason: 'not a valid URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, code: 'scheme', reason: `scheme ${parsed.protocol} is not allowed (http and https only)` };
  }
  const host = hostOf(parsed);
  if (host === '') return { ok: false, code: 'host', reason: 'URL has no host' };
  if (METADATA_HOSTS.has(host)) return { ok: false, code: 'host', reason: `${host} is a cloud metadata host${NEVER}` };

  let addresses: LookupAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await (options.resolve ?? systemResolve)(host);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? String(e);
      return { ok: false, code: 'dns', reason: `cannot resolve ${host}: ${code}` };
    }
    if (addresses.length === 0) return { ok: false, code: 'dns', reason: `${host} has no addresses` };
  }
  for (const a of addresses) {
    const risk = addressRisk(a.address);
    if (risk && !(risk.privateOk && options.allowPrivate)) {
      return { ok: false, code: 'address', reason: `${host} resolves to ${a.address}, a ${risk.reason}${risk.privateOk ? ALLOW_HINT : NEVER}` };
    }
  }
  const first = addresses[0]!;
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** The URL's host without IPv6 brackets or a trailing dot, lower case. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
}

export type SafePostErrorKind = 'refused' | 'dns' | 'timeout' | 'connection';

/** A webhook call that did not produce an HTTP response. */
export class SafePostError extends ReasonError<SafePostErrorKind> {
  /** The reason, under the name callers of the guard use. */
  get kind(): SafePostErrorKind {
    return this.reason;
  }
}

export interface SafePostOptions extends GuardOptions {
  /** Whole-call limit (resolution, connection, response head and snippet); default 10 000 ms. */
  timeoutMs?: number;
}

export interface SafePostResult {
  status: number;
  /** True for 2xx; a 3xx is not followed and counts as a failure. */
  ok: boolean;
  /** First 1 KiB of the response body, decoded as UTF-8. */
  bodySnippet: string;
  durationMs: number;
}

const SNIPPET_BYTES = 1024;

/** POSTs `body` to `url` after the SSRF check, connecting only to the checked address; never follows redirects. */
export async function safePost(
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string>,
  options: SafePostOptions = {},
): Promise<SafePostResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const started = performance.now();
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new SafePostError('timeout', `no response from ${url} within ${timeoutMs} ms`));
      abort.abort(); // closes the socket; the race has already settled
    }, timeoutMs);
  });
  try {
    const check = await Promise.race([checkUrlAllowed(url, options), deadline]);
    if (!check.ok) throw new SafePostError(check.code === 'dns' ? 'dns' : 'refused', check.reason);
    const sending = send(new URL(url), body, headers, check.address, check.family, started, abort.signal);
    return await Promise.race([sending, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function send(
  url: URL,
  body: string | Uint8Array,
  headers: Record<string, string>,
  address: string,
  family: 4 | 6,
  started: number,
  signal: AbortSignal,
): Promise<SafePostResult> {
  const host = hostOf(url);
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const secure = url.protocol === 'https:';
  const pinnedLookup = (
    _hostname: string,
    opts: { all?: boolean },
    cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    if (opts.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  };
  return new Promise<SafePostResult>((resolve, reject) => {
    let settled = false;
    const req = (secure ? https : http).request(
      {
        method: 'POST',
        hostname: host,
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, 'content-length': String(payload.byteLength) },
        lookup: pinnedLookup as never,
        signal,
        agent: false, // no pooled sockets: each call connects to the address it just checked
        ...(secure && !isIP(host) ? { servername: host } : {}),
        ...(url.username ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = (): void => {
          if (settled) return;
          settled = true;
          const status = res.statusCode ?? 0;
          resolve({
            status,
            ok: status >= 200 && status < 300,
            bodySnippet: Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString('utf8'),
            durationMs: Math.round(performance.now() - started),
          });
          res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= SNIPPET_BYTES) finish();
        });
        res.on('end', finish);
        res.on('error', () => finish());
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      reject(new SafePostError('connection', `cannot reach ${url.origin} (${address}): ${e.code ?? e.message}`));
    });
    req.end(payload);
  });
}
