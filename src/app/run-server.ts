// `satgate start`, kept light on purpose (issue 39): it takes the port at once with the early listener, so /health
// answers "starting" within moments, and only then loads the service's modules (serve.ts), migrates and builds.
import { loadConfig, type Config } from '../config/config.ts';
import { VERSION } from '../core/version.ts';
import { listenUrl, readServerUrl } from '../config/server-url-file.ts';
import { listenProblem } from './port-check.ts';
import { DEV_CHAIN_MISSING_HELP, devChainInstalled } from '../config/chain-source.ts';
import { EarlyListener } from './early-listener.ts';

/** Starts the whole service in this process and stops it cleanly on SIGTERM or SIGINT. */
export async function runServer(config: Config = loadConfig(), opts: { dev?: boolean } = {}): Promise<void> {
  if (opts.dev && !config.devChain) {
    throw new Error('--dev runs the built-in development chain, which is only used when no node is configured (unset SATGATE_LIVE_RPC_URL and SATGATE_TEST_RPC_URL)');
  }
  // Checked before anything is created: asking for the development chain where it is not installed is a usage error.
  if (opts.dev && !devChainInstalled()) throw new Error(DEV_CHAIN_MISSING_HELP);
  const early = new EarlyListener(VERSION);
  // A start that cannot listen fails before it writes a master key, migrates or mines the development chain.
  try {
    await early.listen(config.host, config.port);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new Error(listenProblem(code, config.host, config.port, runningHere(config)));
  }
  try {
    const { serve } = await import('./serve.ts');
    await serve(config, early);
  } catch (err) {
    await early.close();
    throw err;
  }
}

/** The URL the satgate server of this data directory wrote, when it is the place this one wants to listen on. */
function runningHere(config: Config): string | null {
  const url = readServerUrl(config.dataDir);
  return url !== null && url === listenUrl(config.host, config.port) ? url : null;
}
