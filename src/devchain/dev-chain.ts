import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { RegtestNode } from './regtest-node.ts';

/** The built-in regtest chain of development mode: a bcoin node in this process and its funded payer. */
export interface DevChain {
  node: RegtestNode;
  rpcUrl: string;
  stop(): Promise<void>;
}

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
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keyFile = join(dir, 'payer.key');
  if (!existsSync(keyFile)) writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  const payerKey = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex');
  log.info({ dir }, 'starting the development chain (bcoin regtest); the first start mines 450 blocks');
  const node = await startRegtestNode({ prefix: join(dir, 'bcoin'), payerKey });
  return { node, rpcUrl: node.rpcUrl, stop: () => node.stop() };
}
