import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from './config.ts';
import type { ChainEndpoint } from './chain-endpoint.ts';

/** The SOCKS proxy a chain's endpoint goes through, null for none. */
const proxyOf = (e: ChainEndpoint | undefined): string | null => (e && 'proxy' in e ? (e.proxy ?? null) : null);

function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('accepted');
}

describe('chain source configuration', () => {
  it('an Electrum server for mainnet replaces the node, and the development chain stays off', () => {
    const c = loadConfig({ SATGATE_LIVE_ELECTRUM_URL: 'ssl://umbrel.local:50002' });
    expect(c.devChain).toBe(false);
    expect(c.chains.live).toMatchObject({ electrumUrl: 'ssl://umbrel.local:50002', tipCacheMs: 10_000, budget: { ratePerSecond: 5, burst: 20 } });
    expect(c.chains.test).toBeUndefined();
  });

  it('an Esplora API for the test network defaults it to testnet4, regtest when asked', () => {
    expect(loadConfig({ SATGATE_TEST_ESPLORA_URL: 'https://mempool.space/testnet4/api' }).chains.test).toMatchObject({
      esploraUrl: 'https://mempool.space/testnet4/api',
      network: 'testnet4',
    });
    expect(loadConfig({ SATGATE_TEST_ESPLORA_URL: 'http://127.0.0.1:3000/api', SATGATE_TEST_NETWORK: 'regtest' }).testNetwork).toBe('regtest');
  });

  it('two sources for one network are refused with a clear error naming both', () => {
    expect(problems({ SATGATE_LIVE_RPC_URL: 'http://u:p@127.0.0.1:8332/', SATGATE_LIVE_ESPLORA_URL: 'https://mempool.space/api' })).toContain(
      'SATGATE_LIVE_RPC_URL and SATGATE_LIVE_ESPLORA_URL are both set: choose exactly one chain source for mainnet',
    );
    expect(problems({ SATGATE_TEST_ELECTRUM_URL: 'tcp://127.0.0.1:50001', SATGATE_TEST_ESPLORA_URL: 'http://127.0.0.1:3000/api' })[0]).toMatch(
      /SATGATE_TEST_ELECTRUM_URL and SATGATE_TEST_ESPLORA_URL are both set/,
    );
  });

  it('a malformed Electrum URL, a bad proxy, or a proxy with Esplora is refused', () => {
    expect(problems({ SATGATE_LIVE_ELECTRUM_URL: 'http://host:50001' })[0]).toMatch(/SATGATE_LIVE_ELECTRUM_URL: an Electrum URL starts with tcp:\/\/ or ssl:\/\//);
    expect(problems({ SATGATE_LIVE_ELECTRUM_URL: 'tcp://x.onion:50001', SATGATE_PROXY: 'http://127.0.0.1:9050' })[0]).toMatch(/SATGATE_PROXY must look like/);
    expect(problems({ SATGATE_LIVE_ESPLORA_URL: 'https://mempool.space/api', SATGATE_PROXY: 'socks5://127.0.0.1:9050' })[0]).toMatch(/Electrum servers only/);
    expect(proxyOf(loadConfig({ SATGATE_LIVE_ELECTRUM_URL: 'tcp://abc.onion:50001', SATGATE_PROXY: 'socks5h://127.0.0.1:9050' }).chains.live)).toBe('socks5h://127.0.0.1:9050');
  });

  it('mempool.space’s websocket is used only when its URL is set beside an Esplora API, with a configurable address cap', () => {
    expect(loadConfig({ SATGATE_LIVE_ESPLORA_URL: 'https://mempool.space/api' }).chains.live).not.toHaveProperty('esploraWsUrl');
    const c = loadConfig({ SATGATE_LIVE_ESPLORA_URL: 'https://mempool.space/api', SATGATE_LIVE_ESPLORA_WS_URL: 'wss://mempool.space/api/v1/ws' });
    expect(c.chains.live).toMatchObject({ esploraUrl: 'https://mempool.space/api', esploraWsUrl: 'wss://mempool.space/api/v1/ws', wsMaxAddresses: 100 });
    const capped = loadConfig({ SATGATE_TEST_ESPLORA_URL: 'http://127.0.0.1:3000/api', SATGATE_TEST_ESPLORA_WS_URL: 'ws://127.0.0.1:3000/api/v1/ws', SATGATE_ESPLORA_WS_MAX_ADDRESSES: '10' });
    expect(capped.chains.test).toMatchObject({ esploraWsUrl: 'ws://127.0.0.1:3000/api/v1/ws', wsMaxAddresses: 10 });
    expect(problems({ SATGATE_LIVE_ESPLORA_WS_URL: 'wss://mempool.space/api/v1/ws', SATGATE_LIVE_ELECTRUM_URL: 'tcp://127.0.0.1:50001' })).toContain(
      'SATGATE_LIVE_ESPLORA_WS_URL needs SATGATE_LIVE_ESPLORA_URL (the API it pushes for)',
    );
    expect(problems({ SATGATE_TEST_ESPLORA_URL: 'http://127.0.0.1:3000/api', SATGATE_TEST_ESPLORA_WS_URL: 'https://mempool.space/api/v1/ws' })[0]).toMatch(
      /SATGATE_TEST_ESPLORA_WS_URL must be a URL starting with ws:\/\/ or wss:\/\//,
    );
  });
});
