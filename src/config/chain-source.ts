import { createRequire } from 'node:module';

// Where the chain comes from when nothing is configured: the development chain needs bcoin, a development
// dependency. Kept here, low in the layers, because the server, the CLI and `satgate doctor` all ask.

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
  'SATGATE_TEST_RPC_URL with SATGATE_TEST_NETWORK (testnet4, signet or regtest) for the sandbox network; without a ' +
  'node of your own, set SATGATE_LIVE_ELECTRUM_URL (your Electrum server, e.g. tcp://umbrel.local:50001) or ' +
  'SATGATE_LIVE_ESPLORA_URL (an Esplora API, e.g. https://mempool.space/api) instead (README "Running without a node"), then restart ' +
  'satgate. The built-in development chain (satgate start --dev) is not part of the installed package: it needs the ' +
  'development dependencies (bcoin), so run it from a clone of the repository after "npm install".';

/** Why `satgate start --dev` cannot run in this installation. */
export const DEV_CHAIN_MISSING_HELP =
  'satgate start --dev: the built-in development chain needs bcoin, a development dependency that the installed ' +
  'package does not include. Get it by cloning the satgate repository and running "npm install" then "npm start" ' +
  'there (or "npm install bcoin" next to this installation); or point satgate at a regtest Bitcoin Core node with ' +
  'SATGATE_TEST_RPC_URL and SATGATE_TEST_NETWORK=regtest.';
