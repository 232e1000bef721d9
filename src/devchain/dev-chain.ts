import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import type { RegtestNode } from './regtest-node.ts';

/** The built-in regtest chain of development mode: a bcoin node in this process and its funded payer. */
export interface DevChain {
  node: RegtestNode;
  rpcUrl: string;
  stop(): Promise<void>;
}

/** Whether the development chain can run here: bcoin is a development dependency, absent from a package install. */
export function devChainInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('bcoin');
    return true;
  } catch {
    return false;
  }
}

/** What to do when no chain source is configured and the development chain is not installed: one paragraph. */
export const NO_CHAIN_SOURCE_HELP =
  'satgate: no Bitcoin chain source is configured, so this server cannot see payments yet. It serves its API, pages ' +
  'and /health, but wallets cannot watch addresses until it can reach a node: set SATGATE_LIVE_RPC_URL to your ' +
  "mainnet Bitcoin Core node's RPC URL (http://user:password@host:8332/) for live payments, and/or " +
  'SATGATE_TEST_RPC_URL with SATGATE_TEST_NETWORK (testnet4, signet or regtest) for the sandbox network, then restart ' +
  'satgate. The built-in development chain (satgate start --dev) is not part of the installed package: it needs the ' +
  'development dependencies (bcoin), so run it from a clone of the repository after "npm install".';

/** Why `satgate start --dev` cannot run in this installation. */
export const DEV_CHAIN_MISSING_HELP =
  'satgate start --dev: the built-in development chain needs bcoin, a development dependency that the installed ' +
  'package does not include. Get it by cloning the satgate repository and running "npm install" then "npm start" ' +
  'there (or "npm install bcoin" next to this installation); or point satgate at a regtest Bitcoin Core node with ' +
  'SATGATE_TEST_RPC_URL and SATGATE_TEST_NETWORK=regtest.';

/**
 * Starts the development chain under `<dataDir>/devchain`: the chain and the payer's key persist, so
 * addresses, payments and the watcher's tip survive restarts. bcoin is a dev dependency; without it
 * this fails with a message asking for a real node.
 */
export async function startDevChain(dataDir: string, log: Logger): Promise<DevChain> {
  let startRegtestNode: typeof import('./regtest-node.ts').startRegtestNode;
  try {
    ({ startRegtestNode } = await import('./regtest-node.ts'));
  } catch (err) {
    throw new Error(
      'no Bitcoin node is configured and the built-in development chain is not installed ' +
        '(it needs the dev dependencies, e.g. bcoin). Set SATGATE_LIVE_RPC_URL and/or SATGATE_TEST_RPC_URL ' +
        `to a Bitcoin Core node's RPC URL, or install with dev dependencies. (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  const dir = join(dataDir, 'devchain');
  mkdirSync(dir, { recursive: true });
  const keyFile = join(dir, 'payer.key');
  if (!existsSync(keyFile)) writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  const payerKey = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex');
  log.info({ dir }, 'starting the development chain (bcoin regtest); the first start mines 450 blocks');
  const node = await startRegtestNode({ prefix: join(dir, 'bcoin'), payerKey });
  return { node, rpcUrl: node.rpcUrl, stop: () => node.stop() };
}
