// The three chain sources the chain suite runs against: the node's RPC, and the Electrum and Esplora test
// servers in front of the same bcoin regtest node. A test takes the endpoint (for ChainService) or the
// environment (for a satgate process), and stops the server afterwards.
import type { ChainEndpoint } from '../../src/chain/chain-service.ts';
import type { RegtestNode } from './regtest-node.ts';
import { startElectrumTestServer, type ElectrumTestServer } from './electrum-test-server.ts';
import { startEsploraTestServer, type EsploraTestServer } from './esplora-test-server.ts';

export type SourceName = 'node RPC' | 'Electrum' | 'Esplora';

export interface RunningSource {
  name: SourceName;
  endpoint: ChainEndpoint;
  /** Environment for a satgate process on the test network. */
  env: Record<string, string>;
  electrum?: ElectrumTestServer;
  esplora?: EsploraTestServer;
  stop(): Promise<void>;
}

/** Budget for tests: generous, so only a throttle a test sets up limits it. */
export const TEST_BUDGET = { ratePerSecond: 2000, burst: 2000, backoffMs: 20, maxBackoffMs: 200 };

export async function startSource(name: SourceName, node: RegtestNode): Promise<RunningSource> {
  if (name === 'Electrum') {
    const electrum = await startElectrumTestServer(node);
    return {
      name,
      endpoint: { electrumUrl: electrum.url, budget: TEST_BUDGET },
      env: { SATGATE_TEST_ELECTRUM_URL: electrum.url, SATGATE_LIGHT_MAX_RPS: '500' },
      electrum,
      stop: () => electrum.close(),
    };
  }
  if (name === 'Esplora') {
    const esplora = await startEsploraTestServer(node);
    return {
      name,
      endpoint: { esploraUrl: esplora.url, budget: TEST_BUDGET, tipCacheMs: 0 },
      env: { SATGATE_TEST_ESPLORA_URL: esplora.url, SATGATE_ESPLORA_TIP_CACHE_MS: '0', SATGATE_LIGHT_MAX_RPS: '500' },
      esplora,
      stop: () => esplora.close(),
    };
  }
  return { name, endpoint: { rpcUrl: node.rpcUrl }, env: { SATGATE_TEST_RPC_URL: node.rpcUrl }, stop: async () => {} };
}

export const SOURCES: SourceName[] = ['node RPC', 'Electrum', 'Esplora'];
