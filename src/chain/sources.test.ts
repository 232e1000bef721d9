import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { Db } from '../db/database.ts';
import { ChainStore } from './chain-store.ts';
import { WatchedSet } from './watched-set.ts';
import { CHAIN_SOURCES, openChainSource } from './sources.ts';
import type { SourceDeps } from './source-kind.ts';

function deps(): SourceDeps {
  const db = {} as Db;
  return {
    id: 'test',
    network: 'regtest',
    db,
    store: new ChainStore(db, 'test'),
    watched: new WatchedSet('test'),
    clock: () => 0,
    log: pino({ level: 'silent' }),
    pollMs: 1000,
    fallbackFeeRate: 2n,
  };
}

describe('the chain source registry', () => {
  it('tells every kind by its own URL field', () => {
    const fields = Object.values(CHAIN_SOURCES).map((k) => k.urlField);
    expect(new Set(fields).size).toBe(fields.length);
    expect(Object.fromEntries(Object.entries(CHAIN_SOURCES).map(([kind, k]) => [kind, k.urlField]))).toEqual({
      rpc: 'rpcUrl',
      electrum: 'electrumUrl',
      esplora: 'esploraUrl',
    });
  });

  it('opens the kind an endpoint names', async () => {
    const node = openChainSource({ rpcUrl: 'http://u:p@127.0.0.1:9/' }, deps());
    expect(node.source.kind).toBe('rpc');
    expect(typeof node.subscribe).toBe('function');
    const esplora = openChainSource({ esploraUrl: 'http://127.0.0.1:9/api' }, deps());
    expect([esplora.source.kind, esplora.source.url, esplora.subscribe]).toEqual(['esplora', 'http://127.0.0.1:9/api', undefined]);
    await esplora.source.close();
    expect(() => openChainSource({ esploraUrl: 'http://127.0.0.1:9/api', proxy: 'socks5://127.0.0.1:9050' }, deps())).toThrow(
      'SATGATE_PROXY is supported for Electrum servers only (see docs/decisions.md)',
    );
  });
});
