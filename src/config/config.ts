import { resolve } from 'node:path';
import { isIP } from 'node:net';
import { PROVIDER_NAMES } from './rate-provider-names.ts';
import { parseZmqUrl } from './zmq-url.ts';
import type { ChainEndpoint, ChainEndpoints } from './chain-endpoint.ts';
import { parseServerList, type ServerListKind } from './server-list.ts';
import { pickPublicServers } from './public-electrum-servers.ts';

/** Public servers followed with SATGATE_LIVE_LIGHT=public: four operators, each history cross-checked by two. */
const PUBLIC_PICK = 4;
import { devChainInstalled } from './chain-source.ts';

/** Test networks a sandbox node may run on. */
export type TestNetwork = 'testnet4' | 'signet' | 'regtest';

/** Validated service configuration, read once from the environment at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  publicUrl: string;
  masterKeyFile: string;
  /**
   * Where each network is read from, exactly one source each: a node's RPC (SATGATE_*_RPC_URL, with Bitcoin Core's
   * ZMQ publisher SATGATE_*_ZMQ_URL), an Electrum server (SATGATE_*_ELECTRUM_URL: `tcp://`, `ssl://`,
   * `?fingerprint=`; through SATGATE_PROXY) or an Esplora API (SATGATE_*_ESPLORA_URL, with mempool.space's websocket
   * SATGATE_*_ESPLORA_WS_URL tracking up to SATGATE_ESPLORA_WS_MAX_ADDRESSES hot addresses). Light sources ask at
   * most SATGATE_LIGHT_MAX_RPS requests a second (bursts of 4x); an Esplora tip is reused SATGATE_ESPLORA_TIP_CACHE_MS.
   */
  chains: ChainEndpoints;
  testNetwork: TestNetwork;
  /** True when no chain source is configured and the service runs its own regtest node. */
  devChain: boolean;
  pollMs: number;
  /** Wake the watcher on the node's own events where it offers them (bcoin's websocket, Core's ZMQ); polling stays on. */
  nodePush: boolean;
  rateIntervalMs: number;
  rateProviders: string[] | null;
  /** Base URL per rate provider name (SATGATE_RATE_BASE_URLS), e.g. a mirror or a local replay server. */
  rateBaseUrls: Record<string, string>;
  ratesFile: string | null;
  monitorWindowMs: number;
  /**
   * The rule of every address-issuing call without a login (set_addr, payment_form): SATGATE_GAP_LIMIT, how many
   * unused addresses past the last used one a wallet scans (20, as wallets do by default; raise it together with the
   * wallet's own); SATGATE_ORDER_REUSE_GRACE, how long an expired order's address is kept back before it is handed
   * out again (default the monitoring window and an hour); SATGATE_ISSUE_LIMIT_PER_WALLET and _PER_IP, addresses
   * handed out a minute (default 60 and 120; 0 turns one off).
   */
  gapLimit: number;
  orderReuseGraceMs: number;
  issueLimitPerWallet: number;
  issueLimitPerIp: number;
  smtpUrl: string | null;
  mailFrom: string;
  /** SATGATE_ALLOW_PRIVATE_WEBHOOKS: webhooks to loopback and private addresses; default on in development mode only. */
  allowPrivateWebhooks: boolean;
  /**
   * Reverse proxies whose X-Forwarded-For is believed (SATGATE_TRUST_PROXY): addresses, CIDR ranges or the names
   * loopback, linklocal, uniquelocal. Empty: the client is the TCP peer (per-IP limits and the audit trail use it).
   */
  trustProxy: string[];
  fallbackFeeRate: bigint;
  /** Largest fee a merchant-signed refund transaction may pay, satoshis (besides 5% of the refunds). */
  refundFeeCapSats: bigint;
  logLevel: string;
  /**
   * SATGATE_ROLE: `all` (default) serves the API, runs the outbox workers and competes for the singleton role
   * (chain watchers, rate refresher, sweepers); `api` never competes; `worker` competes and serves only
   * /health and /metrics. Only `all` on SQLite, which is one process.
   */
  role: ProcessRole;
  /** SATGATE_LEASE_MS: how long the singleton lease lasts without renewal (PostgreSQL only). */
  leaseMs: number;
  /**
   * Transaction links of the merchant console, per mode: a URL the txid is appended to (or that holds `{txid}`),
   * or null for no link. SATGATE_EXPLORER_LIVE_URL (default https://mempool.space/tx/), SATGATE_EXPLORER_TEST_URL
   * (default none); the value `none` turns a link off.
   */
  explorerUrls: { live: string | null; test: string | null };
  /** Migrate an older database at start (SATGATE_AUTO_MIGRATE; default on for SQLite, off for PostgreSQL). */
  autoMigrate: boolean;
}

/** What one `satgate start` process does (SATGATE_ROLE). */
export type ProcessRole = 'all' | 'api' | 'worker';
const ROLES: readonly ProcessRole[] = ['all', 'api', 'worker'];

/** Raised with every bad variable named, so an operator fixes them in one go. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const TEST_NETWORKS: readonly TestNetwork[] = ['testnet4', 'signet', 'regtest'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Parses and validates the environment; throws ConfigError naming each bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const str = (name: string): string | null => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? null : v.trim();
  };
  const int = (name: string, dflt: number, min: number, max: number): number => {
    const v = str(name);
    if (v === null) return dflt;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      problems.push(`${name}=${JSON.stringify(v)} must be a whole number from ${min} to ${max}`);
      return dflt;
    }
    return Number(v);
  };
  const url = (name: string, protocols: string[]): string | null => {
    const v = str(name);
    if (v === null) return null;
    try {
      const u = new URL(v);
      if (!protocols.includes(u.protocol)) {
        problems.push(`${name} must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`);
        return null;
      }
      return v;
    } catch {
      problems.push(`${name} is not a valid URL`);
      return null;
    }
  };
  const duration = (name: string, dfltMs: number): number => {
    const v = str(name);
    if (v === null) return dfltMs;
    const ms = parseDuration(v);
    if (ms === null) {
      problems.push(`${name}=${JSON.stringify(v)} must be a duration such as 3600, 90s, 15m, 1h or 24h`);
      return dfltMs;
    }
    return ms;
  };

  const port = int('PORT', 8080, 0, 65535);
  const host = str('HOST') ?? '127.0.0.1';
  const dataDir = resolve(str('SATGATE_DATA_DIR') ?? './data');
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const publicUrlRaw = url('SATGATE_PUBLIC_URL', ['http:', 'https:']);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const publicUrl = (publicUrlRaw ?? `http://${urlHost === '0.0.0.0' ? '127.0.0.1' : urlHost}:${port}`).replace(/\/+$/, '');
  const masterKeyFile = resolve(str('SATGATE_MASTER_KEY_FILE') ?? `${dataDir}/master.key`);
  const liveRpcUrl = url('SATGATE_LIVE_RPC_URL', ['http:', 'https:']);
  const testRpcUrl = url('SATGATE_TEST_RPC_URL', ['http:', 'https:']);
  // One URL or a comma-separated list of one kind (config/server-list.ts); each item is checked.
  const serverList = (name: string, kind: ServerListKind): string[] | null => {
    const v = str(name);
    if (v === null) return null;
    const list = parseServerList(name, v, kind);
    problems.push(...list.problems);
    return list.problems.length === 0 && list.urls.length > 0 ? list.urls : null;
  };
  // SATGATE_LIVE_LIGHT=public: several public Electrum servers over TLS, from different operators, picked at start.
  const liveLight = str('SATGATE_LIVE_LIGHT');
  if (liveLight !== null && liveLight !== 'public') problems.push(`SATGATE_LIVE_LIGHT=${JSON.stringify(liveLight)} must be "public" (several public Electrum servers)`);
  const liveElectrumUrls = liveLight === 'public' ? pickPublicServers(PUBLIC_PICK) : serverList('SATGATE_LIVE_ELECTRUM_URL', 'electrum');
  const liveEsploraUrls = serverList('SATGATE_LIVE_ESPLORA_URL', 'esplora');
  const testElectrumUrls = serverList('SATGATE_TEST_ELECTRUM_URL', 'electrum');
  const testEsploraUrls = serverList('SATGATE_TEST_ESPLORA_URL', 'esplora');
  const liveElectrumUrl = liveElectrumUrls?.[0] ?? null;
  const liveEsploraUrl = liveEsploraUrls?.[0] ?? null;
  const testElectrumUrl = testElectrumUrls?.[0] ?? null;
  const testEsploraUrl = testEsploraUrls?.[0] ?? null;
  const liveEsploraWsUrl = url('SATGATE_LIVE_ESPLORA_WS_URL', ['ws:', 'wss:']);
  const testEsploraWsUrl = url('SATGATE_TEST_ESPLORA_WS_URL', ['ws:', 'wss:']);
  // The websocket only adds pushes to an Esplora source; alone it is no chain source.
  if (liveEsploraWsUrl !== null && liveEsploraUrl === null) problems.push('SATGATE_LIVE_ESPLORA_WS_URL needs SATGATE_LIVE_ESPLORA_URL (the API it pushes for)');
  if (testEsploraWsUrl !== null && testEsploraUrl === null) problems.push('SATGATE_TEST_ESPLORA_WS_URL needs SATGATE_TEST_ESPLORA_URL (the API it pushes for)');
  // Exactly one source per network: two would be two truths.
  for (const [net, names] of [
    ['mainnet', ['SATGATE_LIVE_RPC_URL', 'SATGATE_LIVE_ELECTRUM_URL', 'SATGATE_LIVE_ESPLORA_URL', 'SATGATE_LIVE_LIGHT']],
    ['the test network', ['SATGATE_TEST_RPC_URL', 'SATGATE_TEST_ELECTRUM_URL', 'SATGATE_TEST_ESPLORA_URL']],
  ] as const) {
    const set = names.filter((n) => str(n) !== null);
    if (set.length > 1) problems.push(`${set.join(' and ')} are both set: choose exactly one chain source for ${net}`);
  }
  const proxy = str('SATGATE_PROXY');
  if (proxy !== null && !/^socks5h?:\/\/[^/]+:\d+\/?$/.test(proxy)) problems.push('SATGATE_PROXY must look like socks5://127.0.0.1:9050');
  if (proxy !== null && (liveEsploraUrl !== null || testEsploraUrl !== null)) {
    problems.push('SATGATE_PROXY works with Electrum servers only; an Esplora API through Tor is not supported yet');
  }
  const testSource = testRpcUrl ?? testElectrumUrl ?? testEsploraUrl;
  const liveSource = liveRpcUrl ?? liveElectrumUrl ?? liveEsploraUrl;
  const testNetworkRaw = str('SATGATE_TEST_NETWORK');
  let testNetwork: TestNetwork = testSource ? 'testnet4' : 'regtest';
  if (testNetworkRaw !== null) {
    if ((TEST_NETWORKS as readonly string[]).includes(testNetworkRaw)) testNetwork = testNetworkRaw as TestNetwork;
    else problems.push(`SATGATE_TEST_NETWORK=${JSON.stringify(testNetworkRaw)} must be one of ${TEST_NETWORKS.join(', ')}`);
  }
  const devChain = liveSource === null && testSource === null;
  if (devChain && testNetworkRaw !== null && testNetwork !== 'regtest') {
    problems.push('SATGATE_TEST_NETWORK other than regtest needs a test chain source such as SATGATE_TEST_RPC_URL (the built-in development chain is regtest)');
  }
  const providersRaw = str('SATGATE_RATE_PROVIDERS');
  const rateProviders = providersRaw === null ? null : providersRaw.split(',').map((p) => p.trim().toLowerCase()).filter(Boolean);
  const knownProvider = (name: string) => (PROVIDER_NAMES as readonly string[]).includes(name);
  const unknownProviders = (rateProviders ?? []).filter((p) => !knownProvider(p));
  if (unknownProviders.length > 0) {
    problems.push(`SATGATE_RATE_PROVIDERS names unknown provider(s) ${unknownProviders.join(', ')}; known: ${PROVIDER_NAMES.join(', ')}`);
  }
  if (rateProviders?.includes('file') && str('SATGATE_RATES_FILE') === null) problems.push('SATGATE_RATE_PROVIDERS includes "file" but SATGATE_RATES_FILE is not set');
  const rateBaseUrls: Record<string, string> = {};
  for (const entry of (str('SATGATE_RATE_BASE_URLS') ?? '').split(',').map((e) => e.trim()).filter(Boolean)) {
    const eq = entry.indexOf('=');
    const name = entry.slice(0, eq).trim().toLowerCase();
    const base = entry.slice(eq + 1).trim();
    let valid = eq > 0 && knownProvider(name) && name !== 'file';
    try {
      valid &&= ['http:', 'https:'].includes(new URL(base).protocol);
    } catch {
      valid = false;
    }
    if (valid) rateBaseUrls[name] = base;
    else problems.push(`SATGATE_RATE_BASE_URLS entry ${JSON.stringify(entry)} must look like name=http(s)://host[:port][/path] with name one of ${PROVIDER_NAMES.filter((n) => n !== 'file').join(', ')}`);
  }
  const logLevel = (str('LOG_LEVEL') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const fee = str('SATGATE_FALLBACK_FEE_RATE');
  let fallbackFeeRate = 10n;
  if (fee !== null) {
    if (/^\d{1,6}$/.test(fee) && BigInt(fee) > 0n) fallbackFeeRate = BigInt(fee);
    else problems.push('SATGATE_FALLBACK_FEE_RATE must be a whole number of sat/vB from 1 to 999999');
  }
  const feeCap = str('SATGATE_REFUND_FEE_CAP_SATS');
  let refundFeeCapSats = 100_000n;
  if (feeCap !== null) {
    if (/^\d{1,10}$/.test(feeCap) && BigInt(feeCap) > 0n) refundFeeCapSats = BigInt(feeCap);
    else problems.push('SATGATE_REFUND_FEE_CAP_SATS must be a whole number of satoshis from 1');
  }
  const allowPrivate = str('SATGATE_ALLOW_PRIVATE_WEBHOOKS');
  if (allowPrivate !== null && !['0', '1', 'true', 'false'].includes(allowPrivate)) {
    problems.push('SATGATE_ALLOW_PRIVATE_WEBHOOKS must be 1 or 0');
  }
  const trustProxy = (str('SATGATE_TRUST_PROXY') ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  for (const entry of trustProxy) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const named = ['loopback', 'linklocal', 'uniquelocal'].includes(entry);
    const prefixOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!named && (family === 0 || !prefixOk || extra !== undefined)) {
      problems.push(`SATGATE_TRUST_PROXY entry ${JSON.stringify(entry)} must be an IP address, a CIDR range, loopback, linklocal or uniquelocal`);
    }
  }

  const role = (str('SATGATE_ROLE') ?? 'all') as ProcessRole;
  if (!ROLES.includes(role)) problems.push(`SATGATE_ROLE must be one of ${ROLES.join(', ')}`);
  else if (role !== 'all' && !databaseUrl) {
    problems.push('SATGATE_ROLE=api or worker needs PostgreSQL (DATABASE_URL): on the embedded SQLite database the service is one process');
  }
  const autoMigrateRaw = str('SATGATE_AUTO_MIGRATE');
  if (autoMigrateRaw !== null && !['0', '1', 'true', 'false'].includes(autoMigrateRaw)) problems.push('SATGATE_AUTO_MIGRATE must be 1 or 0');
  const autoMigrate = autoMigrateRaw === null ? databaseUrl === null : autoMigrateRaw === '1' || autoMigrateRaw === 'true';
  const zmqUrl = (name: string, rpcUrl: string | null, rpcName: string): string | null => {
    const v = str(name);
    if (v === null) return null;
    try {
      parseZmqUrl(v);
    } catch (err) {
      problems.push(`${name}: ${(err as Error).message}`);
      return null;
    }
    if (rpcUrl === null) problems.push(`${name} needs ${rpcName}: ZeroMQ notifications come from the node the watcher reads`);
    return v;
  };
  const liveZmqUrl = zmqUrl('SATGATE_LIVE_ZMQ_URL', liveRpcUrl, 'SATGATE_LIVE_RPC_URL');
  const testZmqUrl = zmqUrl('SATGATE_TEST_ZMQ_URL', testRpcUrl, 'SATGATE_TEST_RPC_URL');
  const nodePush = str('SATGATE_NODE_PUSH');
  if (nodePush !== null && !['0', '1', 'true', 'false'].includes(nodePush)) problems.push('SATGATE_NODE_PUSH must be 1 or 0');

  const explorer = (name: string, dflt: string | null): string | null => {
    if (str(name) === 'none') return null;
    return str(name) === null ? dflt : url(name, ['http:', 'https:']);
  };

  const monitorWindowMs = duration('SATGATE_MONITOR_WINDOW', 24 * 3_600_000);
  // Read after the settings above so that bad values are listed in the order they always were.
  const esploraWsMaxAddresses = int('SATGATE_ESPLORA_WS_MAX_ADDRESSES', 100, 1, 100_000);
  const esploraTipCacheMs = int('SATGATE_ESPLORA_TIP_CACHE_MS', 10_000, 0, 600_000);
  const lightMaxRps = int('SATGATE_LIGHT_MAX_RPS', 5, 1, 10_000);
  // Fulcrum and ElectrumX refuse more than 50,000 subscriptions a session by default: the cap stays below it.
  const maxSubscriptions = int('SATGATE_LIGHT_MAX_SUBSCRIPTIONS', 20_000, 0, 50_000);
  const light = { proxy, tipCacheMs: esploraTipCacheMs, budget: { ratePerSecond: lightMaxRps, burst: lightMaxRps * 4 } };
  // At most one of the URLs is set (checked above): one entry per source kind.
  const quorumRaw = str('SATGATE_LIGHT_QUORUM');
  const quorum = int('SATGATE_LIGHT_QUORUM', 2, 1, 100);
  for (const [name, urls] of [['SATGATE_LIVE_ELECTRUM_URL', liveElectrumUrls], ['SATGATE_LIVE_ESPLORA_URL', liveEsploraUrls], ['SATGATE_TEST_ELECTRUM_URL', testElectrumUrls], ['SATGATE_TEST_ESPLORA_URL', testEsploraUrls]] as const) {
    if (quorumRaw !== null && urls && urls.length > 1 && quorum > urls.length) problems.push(`SATGATE_LIGHT_QUORUM=${quorum} asks more servers than ${name} lists (${urls.length})`);
  }
  const more = (urls: string[] | null) => (urls && urls.length > 1 ? { extraServers: urls.slice(1), quorum: Math.min(quorum, urls.length) } : {});
  const endpoint = (rpcUrl: string | null, zmqUrl: string | null, electrumUrls: string[] | null, esploraUrls: string[] | null, esploraWsUrl: string | null): ChainEndpoint | null => {
    if (rpcUrl) return { rpcUrl, zmqUrl };
    if (electrumUrls) return { electrumUrl: electrumUrls[0]!, ...more(electrumUrls), ...light, maxSubscriptions };
    if (esploraUrls) return { esploraUrl: esploraUrls[0]!, ...more(esploraUrls), ...light, ...(esploraWsUrl ? { esploraWsUrl, wsMaxAddresses: esploraWsMaxAddresses } : {}) };
    return null;
  };
  const live = endpoint(liveRpcUrl, liveZmqUrl, liveElectrumUrls, liveEsploraUrls, liveEsploraWsUrl);
  const test = endpoint(testRpcUrl, testZmqUrl, testElectrumUrls, testEsploraUrls, testEsploraWsUrl);

  const config: Config = {
    port,
    host,
    dataDir,
    databaseUrl,
    publicUrl,
    masterKeyFile,
    chains: { ...(live ? { live } : {}), ...(test ? { test: { ...test, network: testNetwork } } : {}) },
    testNetwork,
    devChain,
    pollMs: int('SATGATE_POLL_MS', 1000, 50, 600_000),
    nodePush: nodePush === null || nodePush === '1' || nodePush === 'true',
    rateIntervalMs: duration('SATGATE_RATE_INTERVAL', 3_600_000),
    rateProviders,
    rateBaseUrls,
    ratesFile: str('SATGATE_RATES_FILE') ? resolve(str('SATGATE_RATES_FILE')!) : null,
    monitorWindowMs,
    gapLimit: int('SATGATE_GAP_LIMIT', 20, 1, 10_000_000),
    orderReuseGraceMs: duration('SATGATE_ORDER_REUSE_GRACE', monitorWindowMs + 3_600_000),
    issueLimitPerWallet: int('SATGATE_ISSUE_LIMIT_PER_WALLET', 60, 0, 100_000),
    issueLimitPerIp: int('SATGATE_ISSUE_LIMIT_PER_IP', 120, 0, 100_000),
    smtpUrl: url('SATGATE_SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: str('SATGATE_MAIL_FROM') ?? `satgate <satgate@${new URL(publicUrl).hostname.replace(/^\[|\]$/g, '') || 'localhost'}>`,
    // Development mode (the built-in chain runs) sends to the shop on this machine by default; anywhere else an
    // internal target is refused unless the operator says otherwise.
    allowPrivateWebhooks: allowPrivate === null ? devChain && devChainInstalled() : allowPrivate === '1' || allowPrivate === 'true',
    trustProxy,
    fallbackFeeRate,
    refundFeeCapSats,
    logLevel,
    role,
    leaseMs: int('SATGATE_LEASE_MS', 15_000, 300, 600_000),
    autoMigrate,
    explorerUrls: { live: explorer('SATGATE_EXPLORER_LIVE_URL', 'https://mempool.space/tx/'), test: explorer('SATGATE_EXPLORER_TEST_URL', null) },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Reads "3600" (seconds), "90s", "15m", "1h", "2d" or "500ms" as milliseconds. */
export function parseDuration(text: string): number | null {
  const m = /^(\d{1,9})(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit]!;
  const ms = n * factor;
  return ms > 0 && Number.isSafeInteger(ms) ? ms : null;
}
