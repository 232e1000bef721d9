import { resolve } from 'node:path';
import { describe, it, expect } from 'vitest';
import { loadConfig, parseDuration, ConfigError } from './config.ts';
import type { ChainEndpoint } from './chain-endpoint.ts';

/** The ZeroMQ publisher beside a chain's node, null for none. */
const zmqOf = (e: ChainEndpoint | undefined): string | null => (e && 'zmqUrl' in e ? (e.zmqUrl ?? null) : null);

/** Runs loadConfig and returns the ConfigError it throws (failing the test if it does not). */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('loadConfig accepted a bad configuration');
}

describe('loadConfig', () => {
  it('takes a ZeroMQ endpoint beside a node RPC URL, and refuses one that is malformed or has no node', () => {
    const c = loadConfig({ SATGATE_TEST_RPC_URL: 'http://u:p@127.0.0.1:18443/', SATGATE_TEST_ZMQ_URL: 'tcp://127.0.0.1:28332' });
    expect(zmqOf(c.chains.test)).toBe('tcp://127.0.0.1:28332');
    expect(zmqOf(c.chains.live)).toBeNull();
    expect(configError({ SATGATE_LIVE_ZMQ_URL: 'tcp://127.0.0.1:28332' }).problems[0]).toMatch(/SATGATE_LIVE_ZMQ_URL needs SATGATE_LIVE_RPC_URL/);
    expect(configError({ SATGATE_TEST_RPC_URL: 'http://127.0.0.1:18443/', SATGATE_TEST_ZMQ_URL: 'http://127.0.0.1:28332' }).problems[0]).toMatch(
      /^SATGATE_TEST_ZMQ_URL: .* is not a ZeroMQ TCP endpoint/,
    );
  });

  it('an empty environment gives the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.host).toBe('127.0.0.1');
    expect(c.dataDir).toBe(resolve('./data'));
    expect(c.publicUrl).toBe('http://127.0.0.1:8080');
    expect(c.masterKeyFile).toBe(resolve('./data/master.key'));
    expect(c.databaseUrl).toBeNull();
    expect(c.devChain).toBe(true);
    expect(c.testNetwork).toBe('regtest');
    expect(c.rateIntervalMs).toBe(3_600_000);
    expect(c.monitorWindowMs).toBe(24 * 3_600_000);
    expect(c.logLevel).toBe('info');
    expect(c.fallbackFeeRate).toBe(10n);
  });

  it('the public URL follows HOST and PORT when not given', () => {
    expect(loadConfig({ HOST: '10.1.2.3', PORT: '9000' }).publicUrl).toBe('http://10.1.2.3:9000');
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).publicUrl).toBe('http://127.0.0.1:9000');
    expect(loadConfig({ HOST: '::1', PORT: '9000' }).publicUrl).toBe('http://[::1]:9000');
  });

  it('the console links live transactions to mempool.space and sandbox ones nowhere unless configured; none turns a link off', () => {
    expect(loadConfig({}).explorerUrls).toEqual({ live: 'https://mempool.space/tx/', test: null });
    expect(loadConfig({ SATGATE_EXPLORER_LIVE_URL: 'none', SATGATE_EXPLORER_TEST_URL: 'https://mempool.space/signet/tx/{txid}' }).explorerUrls).toEqual({
      live: null,
      test: 'https://mempool.space/signet/tx/{txid}',
    });
    expect(() => loadConfig({ SATGATE_EXPLORER_TEST_URL: 'javascript:alert(1)' })).toThrow(/SATGATE_EXPLORER_TEST_URL must be a URL starting with http/);
  });

  it('an explicit public URL loses its trailing slash', () => {
    expect(loadConfig({ SATGATE_PUBLIC_URL: 'https://pay.example.com/' }).publicUrl).toBe('https://pay.example.com');
  });

  it('the master key file lives under the data directory unless set', () => {
    expect(loadConfig({ SATGATE_DATA_DIR: '/srv/satgate' }).masterKeyFile).toBe('/srv/satgate/master.key');
    expect(loadConfig({ SATGATE_DATA_DIR: '/srv/satgate', SATGATE_MASTER_KEY_FILE: '/keys/m.key' }).masterKeyFile).toBe('/keys/m.key');
  });

  it('a relative data directory is resolved to an absolute path', () => {
    expect(loadConfig({ SATGATE_DATA_DIR: 'some/dir' }).dataDir).toBe(resolve('some/dir'));
  });

  it('SQLite is used without DATABASE_URL and PostgreSQL with it', () => {
    expect(loadConfig({}).databaseUrl).toBeNull();
    expect(loadConfig({ DATABASE_URL: '  ' }).databaseUrl).toBeNull();
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db/x' }).databaseUrl).toBe('postgres://u@db/x');
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@db/x' }).databaseUrl).toBe('postgresql://u@db/x');
  });

  it('a test RPC URL makes testnet4 the default test network and turns off the dev chain', () => {
    const c = loadConfig({ SATGATE_TEST_RPC_URL: 'http://u:p@127.0.0.1:48332' });
    expect(c.testNetwork).toBe('testnet4');
    expect(c.devChain).toBe(false);
    expect(loadConfig({ SATGATE_TEST_RPC_URL: 'http://127.0.0.1:38332', SATGATE_TEST_NETWORK: 'signet' }).testNetwork).toBe('signet');
  });

  it('every bad value is named in one ConfigError', () => {
    const err = configError({
      PORT: 'abc',
      DATABASE_URL: 'mysql://root@db/x',
      SATGATE_TEST_NETWORK: 'mainnet',
      SATGATE_RATE_INTERVAL: 'soon',
      SATGATE_MONITOR_WINDOW: '-5m',
    });
    const text = err.problems.join('\n');
    expect(err.problems).toHaveLength(5);
    expect(text).toMatch(/PORT="abc"/);
    expect(text).toMatch(/DATABASE_URL must be a URL starting with postgres:\/\//);
    expect(text).toMatch(/SATGATE_TEST_NETWORK="mainnet"/);
    expect(text).toMatch(/SATGATE_RATE_INTERVAL="soon"/);
    expect(text).toMatch(/SATGATE_MONITOR_WINDOW="-5m"/);
    for (const p of err.problems) expect(err.message).toContain(p);
  });

  it('a port outside 0-65535 is refused', () => {
    expect(configError({ PORT: '70000' }).problems[0]).toMatch(/^PORT=/);
    expect(configError({ PORT: '80.5' }).problems[0]).toMatch(/^PORT=/);
  });

  it('a DATABASE_URL that is not a URL is refused', () => {
    expect(configError({ DATABASE_URL: 'not a url' }).problems).toEqual(['DATABASE_URL is not a valid URL']);
  });

  it('a non-regtest test network without a test node is refused', () => {
    expect(configError({ SATGATE_TEST_NETWORK: 'signet' }).problems[0]).toMatch(/SATGATE_TEST_RPC_URL/);
  });

  it('SATGATE_TRUST_PROXY takes addresses, CIDR ranges and named ranges, and refuses anything else', () => {
    expect(loadConfig({}).trustProxy).toEqual([]);
    expect(loadConfig({ SATGATE_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    const err = configError({ SATGATE_TRUST_PROXY: 'true,10.0.0.0/33,proxy.example,1.2.3.4/8/1' });
    expect(err.problems).toHaveLength(4);
    expect(err.problems[0]).toMatch(/SATGATE_TRUST_PROXY entry "true" must be an IP address, a CIDR range, loopback, linklocal or uniquelocal/);
  });

  it('durations in the environment are parsed', () => {
    const c = loadConfig({ SATGATE_RATE_INTERVAL: '15m', SATGATE_MONITOR_WINDOW: '2d' });
    expect(c.rateIntervalMs).toBe(900_000);
    expect(c.monitorWindowMs).toBe(172_800_000);
  });
});

describe('parseDuration', () => {
  it('reads bare numbers as seconds and understands ms, s, m, h and d', () => {
    expect(parseDuration('3600')).toBe(3_600_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('15m')).toBe(900_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('24h')).toBe(86_400_000);
    expect(parseDuration(' 2d ')).toBe(172_800_000);
  });

  it('refuses zero, negatives, fractions, unknown units and words', () => {
    for (const bad of ['0', '0s', '-1', '1.5h', '10w', 'soon', '', 'h']) expect(parseDuration(bad)).toBeNull();
  });
});

describe('SATGATE_ROLE and SATGATE_LEASE_MS', () => {
  it('default to one process doing everything with a 15 s lease', () => {
    const c = loadConfig({});
    expect([c.role, c.leaseMs]).toEqual(['all', 15_000]);
  });

  it('accept api and worker on PostgreSQL and a shorter lease', () => {
    const pg = { DATABASE_URL: 'postgres://u@db/satgate' };
    expect(loadConfig({ ...pg, SATGATE_ROLE: 'api' }).role).toBe('api');
    expect(loadConfig({ ...pg, SATGATE_ROLE: 'worker', SATGATE_LEASE_MS: '2000' })).toMatchObject({ role: 'worker', leaseMs: 2000 });
  });

  it('refuse api or worker on SQLite, an unknown role, and a lease below 300 ms', () => {
    expect(configError({ SATGATE_ROLE: 'api' }).problems.join()).toMatch(/needs PostgreSQL/);
    expect(configError({ DATABASE_URL: 'postgres://u@db/x', SATGATE_ROLE: 'leader' }).problems.join()).toMatch(/SATGATE_ROLE must be one of all, api, worker/);
    expect(configError({ SATGATE_LEASE_MS: '100' }).problems.join()).toMatch(/SATGATE_LEASE_MS/);
  });
});

describe('SATGATE_AUTO_MIGRATE', () => {
  it('defaults on for the embedded SQLite database and off for PostgreSQL, where several processes share it', () => {
    expect(loadConfig({}).autoMigrate).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).autoMigrate).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db', SATGATE_AUTO_MIGRATE: '1' }).autoMigrate).toBe(true);
    expect(loadConfig({ SATGATE_AUTO_MIGRATE: '0' }).autoMigrate).toBe(false);
  });

  it('refuses anything but 1, 0, true or false', () => {
    expect(() => loadConfig({ SATGATE_AUTO_MIGRATE: 'yes' })).toThrow('SATGATE_AUTO_MIGRATE must be 1 or 0');
  });
});

describe('the issuing rule of calls without a login (SATGATE_GAP_LIMIT, SATGATE_ORDER_REUSE_GRACE, SATGATE_ISSUE_LIMIT_*)', () => {
  it('defaults to a gap limit of 20, a grace period of the monitoring window and an hour, 60 a minute per wallet and 120 per IP', () => {
    const c = loadConfig({});
    expect(c.gapLimit).toBe(20);
    expect(c.orderReuseGraceMs).toBe(25 * 3_600_000);
    expect(c.issueLimitPerWallet).toBe(60);
    expect(c.issueLimitPerIp).toBe(120);
    expect(loadConfig({ SATGATE_MONITOR_WINDOW: '48h' }).orderReuseGraceMs).toBe(49 * 3_600_000);
  });

  it('takes other values, 0 turning a rate limit off, and names bad ones', () => {
    const c = loadConfig({ SATGATE_GAP_LIMIT: '100', SATGATE_ORDER_REUSE_GRACE: '2d', SATGATE_ISSUE_LIMIT_PER_WALLET: '0', SATGATE_ISSUE_LIMIT_PER_IP: '10' });
    expect([c.gapLimit, c.orderReuseGraceMs, c.issueLimitPerWallet, c.issueLimitPerIp]).toEqual([100, 172_800_000, 0, 10]);
    const err = configError({ SATGATE_GAP_LIMIT: '0', SATGATE_ORDER_REUSE_GRACE: 'soon', SATGATE_ISSUE_LIMIT_PER_IP: '-1' });
    expect(err.problems.join('\n')).toMatch(/SATGATE_GAP_LIMIT/);
    expect(err.problems.join('\n')).toMatch(/SATGATE_ORDER_REUSE_GRACE/);
    expect(err.problems.join('\n')).toMatch(/SATGATE_ISSUE_LIMIT_PER_IP/);
  });
});

describe('SATGATE_ALLOW_PRIVATE_WEBHOOKS', () => {
  it('defaults on in development mode, so a shop on this machine gets its webhooks, and off once a chain source is set', () => {
    expect(loadConfig({}).allowPrivateWebhooks).toBe(true);
    expect(loadConfig({ SATGATE_TEST_RPC_URL: 'http://u:p@127.0.0.1:18443/' }).allowPrivateWebhooks).toBe(false);
    expect(loadConfig({ SATGATE_LIVE_ESPLORA_URL: 'https://mempool.space/api' }).allowPrivateWebhooks).toBe(false);
  });

  it('follows the setting when it is given, in either mode', () => {
    expect(loadConfig({ SATGATE_ALLOW_PRIVATE_WEBHOOKS: '0' }).allowPrivateWebhooks).toBe(false);
    expect(loadConfig({ SATGATE_ALLOW_PRIVATE_WEBHOOKS: 'false' }).allowPrivateWebhooks).toBe(false);
    expect(loadConfig({ SATGATE_LIVE_ESPLORA_URL: 'https://mempool.space/api', SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1' }).allowPrivateWebhooks).toBe(true);
    expect(configError({ SATGATE_ALLOW_PRIVATE_WEBHOOKS: 'yes' }).problems).toContain('SATGATE_ALLOW_PRIVATE_WEBHOOKS must be 1 or 0');
  });
});
