import { chmodSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loadConfig, type Config } from '../config/config.ts';
import { openDb, dbTargetFromConfig, oneServerOnly } from '../db/database.ts';
import { prepareSchema } from '../db/schema-version.ts';
import { ProcessLock } from '../db/sqlite-lock.ts';
import { MasterKey } from '../security/master-key.ts';
import { buildApp } from './app.ts';
import { VERSION } from '../core/version.ts';
import { createContext } from './create-context.ts';
import { createLogRedaction } from '../http/log-redaction.ts';
import { startDevChain, type DevChain } from '../devchain/dev-chain.ts';
import { DEV_CHAIN_MISSING_HELP, NO_CHAIN_SOURCE_HELP, devChainInstalled } from '../config/chain-source.ts';
import { listenUrl, readServerUrl, removeServerUrl, writeServerUrl } from '../config/server-url-file.ts';
import { cannotListen, listenProblem } from './port-check.ts';
import { terminalLogStream } from './pretty-log.ts';

/** Starts the whole service in this process and stops it cleanly on SIGTERM or SIGINT. */
export async function runServer(config: Config = loadConfig(), opts: { dev?: boolean } = {}): Promise<void> {
  // One redaction rule for this process's lines and the request log: buildApp fills it from the routes.
  const redaction = createLogRedaction();
  // Readable lines for a person at a terminal, JSON lines for a collector (stdout redirected).
  const logStream = terminalLogStream();
  const logOptions = { level: config.logLevel, hooks: { streamWrite: redaction.redactText } };
  const log = logStream ? pino(logOptions, logStream) : pino(logOptions);
  if (opts.dev && !config.devChain) {
    throw new Error('--dev runs the built-in development chain, which is only used when no node is configured (unset SATGATE_LIVE_RPC_URL and SATGATE_TEST_RPC_URL)');
  }
  // Checked before anything is created: asking for the development chain where it is not installed is a usage error.
  const runDevChain = config.devChain && devChainInstalled();
  if (opts.dev && !runDevChain) throw new Error(DEV_CHAIN_MISSING_HELP);
  // A start that cannot listen must fail before it writes a master key, migrates or mines the development chain.
  const portProblem = await cannotListen(config.host, config.port);
  if (portProblem !== null) throw new Error(listenProblem(portProblem, config.host, config.port, runningHere(config)));
  // The data directory holds the database, the master key and mail: its owner's eyes only.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  chmodSync(config.dataDir, 0o700);
  const { masterKey, created } = MasterKey.loadOrCreate(config.masterKeyFile);
  if (created) {
    log.warn(
      { file: config.masterKeyFile },
      'generated a new master key; it encrypts wallet seeds and private keys at rest: BACK IT UP, without it they cannot be recovered',
    );
  }
  const target = dbTargetFromConfig(config);
  const lock = oneServerOnly(target) ? acquireLock(config.dataDir) : null;
  const db = openDb(target);
  try {
    const applied = await prepareSchema(db, config.autoMigrate);
    log.info({ engine: db.engine, applied }, applied.length ? 'database migrated' : 'database schema is current');
  } catch (err) {
    lock?.release();
    await db.close();
    throw err;
  }
  let devChain: DevChain | undefined;
  if (config.devChain && !runDevChain) {
    // A package install with nothing configured: start (health, API, pages) and say plainly what to set.
    process.stderr.write(`${NO_CHAIN_SOURCE_HELP}\n`);
    log.warn('no chain source is configured: set SATGATE_LIVE_RPC_URL and/or SATGATE_TEST_RPC_URL');
  }
  if (runDevChain) {
    log.warn(
      'DEVELOPMENT MODE: no chain source is configured (SATGATE_{LIVE,TEST}_{RPC,ELECTRUM,ESPLORA}_URL), so satgate runs its own ' +
        'regtest chain as the sandbox network. Live mode is disabled. Try: npx satgate dev pay <address> 0.001; npx satgate dev mine',
    );
    if (!config.ratesFile && !config.rateProviders) {
      // Regtest coins are worthless and a newcomer may be offline: fixed sample rates make the sandbox
      // work at once. Setting SATGATE_RATE_PROVIDERS or SATGATE_RATES_FILE overrides this.
      config = { ...config, ratesFile: fileURLToPath(new URL('../devchain/dev-rates.json', import.meta.url)) };
      log.warn({ file: config.ratesFile }, 'development mode prices with fixed sample exchange rates (set SATGATE_RATE_PROVIDERS for live ones)');
    }
    try {
      devChain = await startDevChain(config.dataDir, log);
    } catch (err) {
      lock?.release();
      await db.close();
      throw err;
    }
  }
  const ctx = await createContext({
    config,
    db,
    masterKey,
    log,
    ...(devChain ? { chains: { test: { rpcUrl: devChain.rpcUrl, network: 'regtest' as const, devChain: true } } } : {}),
  });
  const app = await buildApp(ctx, { logRedaction: redaction, ...(logStream ? { logStream } : {}), ...(devChain ? { devChain } : {}) });
  let ownUrl: string | null = null;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      await app.close();
      await ctx.stopBackground();
      await devChain?.stop();
      await db.close();
    } finally {
      if (ownUrl !== null) removeServerUrl(config.dataDir, ownUrl);
      lock?.release();
      log.info('stopped');
      process.exit(0);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await ctx.stopBackground();
    await devChain?.stop();
    await db.close();
    lock?.release();
    const code = (err as NodeJS.ErrnoException).code;
    throw code?.startsWith('E') ? new Error(listenProblem(code, config.host, config.port, runningHere(config))) : err;
  }
  // Where this server answers, for the CLI commands run on the same data directory (satgate status, dev pay).
  ownUrl = listenUrl(config.host, (app.server.address() as AddressInfo).port);
  writeServerUrl(config.dataDir, ownUrl);
  try {
    await ctx.start();
  } catch (err) {
    removeServerUrl(config.dataDir, ownUrl);
    throw err;
  }
  log.info({ version: VERSION, url: config.publicUrl, docs: `${config.publicUrl}/docs` }, 'satgate is serving');
}

/** The URL the satgate server of this data directory wrote, when it is the place this one wants to listen on. */
function runningHere(config: Config): string | null {
  const url = readServerUrl(config.dataDir);
  return url !== null && url === listenUrl(config.host, config.port) ? url : null;
}

/** The data directory's lock; a refusal also says where the server holding it answers, when it named its URL. */
function acquireLock(dataDir: string): ProcessLock {
  try {
    return ProcessLock.acquire(`${dataDir}/satgate.lock`);
  } catch (err) {
    const url = readServerUrl(dataDir);
    if (url === null || !(err instanceof Error) || !err.message.startsWith('another satgate server')) throw err;
    throw new Error(`${err.message}; it serves at ${url}`);
  }
}
