import { chmodSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import type { Config } from '../config/config.ts';
import { openDb, dbTargetFromConfig, oneServerOnly } from '../db/database.ts';
import { prepareSchema } from '../db/schema-version.ts';
import { ProcessLock } from '../db/sqlite-lock.ts';
import { MasterKey } from '../security/master-key.ts';
import { buildApp } from './app.ts';
import { VERSION } from '../core/version.ts';
import { createContext } from './create-context.ts';
import { createLogRedaction } from '../http/log-redaction.ts';
import { startDevChain, type DevChain } from '../devchain/dev-chain.ts';
import { NO_CHAIN_SOURCE_HELP, devChainInstalled } from '../config/chain-source.ts';
import { listenUrl, readServerUrl, removeServerUrl, writeServerUrl } from '../config/server-url-file.ts';
import { terminalLogStream } from './pretty-log.ts';
import type { EarlyListener } from './early-listener.ts';

/**
 * Starts the whole service in this process, on the port the early listener already holds (run-server.ts), and stops
 * it cleanly on SIGTERM or SIGINT.
 */
export async function serve(config: Config, early: EarlyListener): Promise<void> {
  // One redaction rule for this process's lines and the request log: buildApp fills it from the routes.
  const redaction = createLogRedaction();
  // Readable lines for a person at a terminal, JSON lines for a collector (stdout redirected).
  const logStream = terminalLogStream();
  const logOptions = { level: config.logLevel, hooks: { streamWrite: redaction.redactText } };
  const log = logStream ? pino(logOptions, logStream) : pino(logOptions);
  const runDevChain = config.devChain && devChainInstalled();
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
  early.phase = 'migrating the database';
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
  early.phase = 'building the app';
  const ctx = await createContext({
    config,
    db,
    masterKey,
    log,
    ...(devChain ? { chains: { test: { rpcUrl: devChain.rpcUrl, network: 'regtest' as const, devChain: true } } } : {}),
  });
  const app = await buildApp(ctx, {
    logRedaction: redaction,
    serverFactory: early.serverFactory,
    ...(logStream ? { logStream } : {}),
    ...(devChain ? { devChain } : {}),
  });
  let ownUrl: string | null = null;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      await app.close();
      await early.close();
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
    await app.ready();
  } catch (err) {
    await ctx.stopBackground();
    await devChain?.stop();
    await db.close();
    lock?.release();
    throw err;
  }
  // From here the app answers every request the early listener took (until now: "starting").
  early.open();
  // Where this server answers, for the CLI commands run on the same data directory (satgate status, dev pay).
  ownUrl = listenUrl(config.host, (early.server.address() as AddressInfo).port);
  writeServerUrl(config.dataDir, ownUrl);
  try {
    await ctx.start();
  } catch (err) {
    removeServerUrl(config.dataDir, ownUrl);
    throw err;
  }
  log.info({ version: VERSION, url: config.publicUrl, docs: `${config.publicUrl}/docs` }, 'satgate is serving');
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
