import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from './config.ts';
import type { ElectrumSourceEndpoint } from './chain-endpoint.ts';
import { parseServerList } from './server-list.ts';
import { PUBLIC_ELECTRUM_SERVERS, PUBLIC_ELECTRUM_SOURCE, operatorOf, pickPublicServers } from './public-electrum-servers.ts';

function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('accepted');
}

describe('light server lists (SATGATE_*_ELECTRUM_URL, SATGATE_*_ESPLORA_URL)', () => {
  it('a comma-separated Esplora value is several servers, not one URL with a comma in it', () => {
    const c = loadConfig({ SATGATE_TEST_ESPLORA_URL: 'http://127.0.0.1:3000/api, http://127.0.0.1:3001/api', SATGATE_TEST_NETWORK: 'regtest' });
    expect(c.chains.test).toMatchObject({ esploraUrl: 'http://127.0.0.1:3000/api', extraServers: ['http://127.0.0.1:3001/api'] });
  });

  it('a comma-separated Electrum value is several servers; one URL has no extra servers', () => {
    const c = loadConfig({ SATGATE_LIVE_ELECTRUM_URL: 'ssl://a.example:50002,tcp://b.example:50001,ssl://c.example:50002' });
    expect(c.chains.live).toMatchObject({ electrumUrl: 'ssl://a.example:50002', extraServers: ['tcp://b.example:50001', 'ssl://c.example:50002'] });
    expect(loadConfig({ SATGATE_LIVE_ELECTRUM_URL: 'ssl://a.example:50002' }).chains.live).not.toHaveProperty('extraServers');
  });

  it('an item that cannot work stops the start with a message naming the variable and the item', () => {
    expect(problems({ SATGATE_TEST_ESPLORA_URL: 'http://127.0.0.1:3000/api,ftp://x.example/api' })).toContain(
      'SATGATE_TEST_ESPLORA_URL: an Esplora URL starts with http:// or https://: "ftp://x.example/api" (item 2 of 2)',
    );
    expect(problems({ SATGATE_TEST_ESPLORA_URL: 'http://127.0.0.1:3000/api,not a url' })).toContain(
      'SATGATE_TEST_ESPLORA_URL: not a URL such as https://mempool.space/api: "not a url" (item 2 of 2)',
    );
    expect(problems({ SATGATE_LIVE_ELECTRUM_URL: 'ssl://a.example:50002,,ssl://c.example:50002' })).toContain(
      'SATGATE_LIVE_ELECTRUM_URL: item 2 of the comma-separated list is empty; list URLs as url1,url2',
    );
    expect(problems({ SATGATE_LIVE_ELECTRUM_URL: 'ssl://a.example:50002,https://mempool.space/api' })).toContain(
      'SATGATE_LIVE_ELECTRUM_URL: an Electrum URL starts with tcp:// or ssl://: "https://mempool.space/api" (item 2 of 2)',
    );
    expect(problems({ SATGATE_LIVE_ELECTRUM_URL: 'ssl://a.example:50002,ssl://b.example' })[0]).toMatch(/SATGATE_LIVE_ELECTRUM_URL: an Electrum URL needs a port.*"ssl:\/\/b.example"/);
    expect(problems({ SATGATE_LIVE_ESPLORA_URL: 'https://mempool.space/api,https://mempool.space/api/' })).toContain(
      'SATGATE_LIVE_ESPLORA_URL: "https://mempool.space/api/" is listed twice (item 2 of 2)',
    );
    expect(problems({ SATGATE_LIVE_ESPLORA_URL: 'https://mempool.space/api?key=1' })[0]).toMatch(/without \?query/);
    expect(problems({ SATGATE_LIVE_ESPLORA_URL: ',' })[0]).toMatch(/SATGATE_LIVE_ESPLORA_URL: item 1 of the comma-separated list is empty/);
  });

  it('Electrum and Esplora servers are not mixed on one network: both variables set is refused', () => {
    expect(problems({ SATGATE_TEST_ELECTRUM_URL: 'tcp://127.0.0.1:50001', SATGATE_TEST_ESPLORA_URL: 'http://127.0.0.1:3000/api,http://127.0.0.1:3001/api' })[0]).toMatch(
      /SATGATE_TEST_ELECTRUM_URL and SATGATE_TEST_ESPLORA_URL are both set/,
    );
  });

  it('the cross-check quorum is configurable and no larger than the list', () => {
    expect(loadConfig({ SATGATE_LIVE_ELECTRUM_URL: 'ssl://a.example:50002,ssl://b.example:50002' }).chains.live).toMatchObject({ quorum: 2 });
    expect(loadConfig({ SATGATE_LIVE_ELECTRUM_URL: 'ssl://a.example:50002,ssl://b.example:50002,ssl://c.example:50002', SATGATE_LIGHT_QUORUM: '3' }).chains.live).toMatchObject({ quorum: 3 });
    expect(problems({ SATGATE_LIVE_ELECTRUM_URL: 'ssl://a.example:50002,ssl://b.example:50002', SATGATE_LIGHT_QUORUM: '3' })[0]).toMatch(
      /SATGATE_LIGHT_QUORUM=3 asks more servers than SATGATE_LIVE_ELECTRUM_URL lists \(2\)/,
    );
  });

  it('SATGATE_LIVE_LIGHT=public picks four public TLS servers of four operators from the built-in list, as a mainnet source', () => {
    const live = loadConfig({ SATGATE_LIVE_LIGHT: 'public' }).chains.live as ElectrumSourceEndpoint;
    const urls = [live.electrumUrl, ...(live.extraServers ?? [])];
    expect(urls).toHaveLength(4);
    expect(live.quorum).toBe(2);
    for (const u of urls) expect(PUBLIC_ELECTRUM_SERVERS).toContain(u);
    expect(new Set(urls.map(operatorOf)).size).toBe(4);
    expect(urls.every((u) => u.startsWith('ssl://'))).toBe(true);
    expect(PUBLIC_ELECTRUM_SOURCE.url).toMatch(/^https:\/\/github\.com\/spesmilo\/electrum\/blob\/[0-9a-f]{40}\/electrum\/chains\/servers\.json$/);
    expect(problems({ SATGATE_LIVE_LIGHT: 'yes' })[0]).toBe('SATGATE_LIVE_LIGHT="yes" must be "public" (several public Electrum servers)');
    expect(problems({ SATGATE_LIVE_LIGHT: 'public', SATGATE_LIVE_ELECTRUM_URL: 'ssl://a.example:50002' })).toContain(
      'SATGATE_LIVE_ELECTRUM_URL and SATGATE_LIVE_LIGHT are both set: choose exactly one chain source for mainnet',
    );
  });

  it('the Electrum subscription cap is 20,000 per server by default, configurable, and never above the 50,000 servers allow', () => {
    expect(loadConfig({ SATGATE_LIVE_ELECTRUM_URL: 'ssl://a.example:50002' }).chains.live).toMatchObject({ maxSubscriptions: 20_000 });
    expect(loadConfig({ SATGATE_LIVE_ELECTRUM_URL: 'ssl://a.example:50002', SATGATE_LIGHT_MAX_SUBSCRIPTIONS: '500' }).chains.live).toMatchObject({ maxSubscriptions: 500 });
    expect(problems({ SATGATE_LIVE_ELECTRUM_URL: 'ssl://a.example:50002', SATGATE_LIGHT_MAX_SUBSCRIPTIONS: '60000' }).join(' ')).toMatch(/SATGATE_LIGHT_MAX_SUBSCRIPTIONS/);
  });

  it('the built-in public list parses as Electrum URLs and spans enough operators', () => {
    expect(parseServerList('list', PUBLIC_ELECTRUM_SERVERS.join(','), 'electrum').problems).toEqual([]);
    expect(new Set(PUBLIC_ELECTRUM_SERVERS.map(operatorOf)).size).toBeGreaterThanOrEqual(8);
     // Data with its source and the date it was taken; TLS only (no plain tcp://, no .onion, no bare address).
    expect(PUBLIC_ELECTRUM_SOURCE.retrieved).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const u of PUBLIC_ELECTRUM_SERVERS) expect(u).toMatch(/^ssl:\/\/[a-z0-9.-]+\.[a-z]{2,}:\d+$/);
    expect(PUBLIC_ELECTRUM_SERVERS.some((u) => u.includes('.onion'))).toBe(false);
  });

  it('public servers are picked at random: different starts pick different sets, each of distinct operators, and every server can be picked', () => {
    // A small deterministic generator stands in for Math.random, so the test says what it checks.
    const seeded = (seed: number) => () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const picks = Array.from({ length: 200 }, (_, i) => pickPublicServers(4, seeded(i + 1)));
    for (const p of picks) {
      expect(p).toHaveLength(4);
      expect(new Set(p.map(operatorOf)).size).toBe(4);
    }
    expect(new Set(picks.map((p) => [...p].sort().join(','))).size).toBeGreaterThan(150);
    expect(new Set(picks.flat())).toEqual(new Set(PUBLIC_ELECTRUM_SERVERS));
  });
});
