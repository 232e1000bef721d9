import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { MasterKey } from '../../src/security/master-key.ts';
import { createContext } from '../../src/app/create-context.ts';
import type { AppContext } from '../../src/app/context.ts';
import { buildApp } from '../../src/app/app.ts';
import { createLogRedaction } from '../../src/http/log-redaction.ts';
import type { Clock } from '../../src/core/clock.ts';
import { createTestDb, type TestDb } from './test-db.ts';
import type { Engine } from '../../src/db/database.ts';
import type { ChainEndpoints } from '../../src/chain/chain-service.ts';

/** A booted app on a fresh database, for `inject` or a real port. */
export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  testDb: TestDb;
  masterKey: MasterKey;
  /** Stops the app and closes its database handle but keeps the database (to boot another app on it). */
  stop(): Promise<void>;
  /** Stops the app and throws the database away. */
  close(): Promise<void>;
}

/** The fixed master key tests use, so sealed secrets can be checked. */
export const TEST_MASTER_KEY = MasterKey.fromBytes(new Uint8Array(32).fill(7));

/**
 * Boots the real app on a fresh database of the engine (or on `testDb`); `env` overrides configuration variables;
 * `logStream` turns request logging (and the background's log) on into that stream (set LOG_LEVEL in `env`).
 */
export async function createTestApp(
  engine: Engine,
  opts: {
    env?: Record<string, string>;
    clock?: Clock;
    testDb?: TestDb;
    logStream?: NodeJS.WritableStream;
    /** Nodes to follow; none by default. */
    chains?: ChainEndpoints;
    /** Starts background work (rate refresher, chain watchers) like `satgate start` does. */
    start?: boolean;
  } = {},
): Promise<TestApp> {
  const testDb = opts.testDb ?? (await createTestDb(engine));
  // Node push off unless asked for: tests step the watcher themselves (pollNow) and expect it to look only then
  // or at its timer; src/chain/node-push.test.ts covers push.
  const config: Config = loadConfig({
    SATGATE_DATA_DIR: testDb.env.SATGATE_DATA_DIR ?? '/tmp/satgate-test',
    LOG_LEVEL: 'silent',
    SATGATE_NODE_PUSH: '0',
    // A test app runs no development chain: internal webhook targets are refused, as in production, unless a test allows them.
    SATGATE_ALLOW_PRIVATE_WEBHOOKS: '0',
    ...opts.env,
  });
  // With a log stream, the background's lines go there too, through the same redaction as serve.ts's.
  const redaction = createLogRedaction();
  const log = opts.logStream ? pino({ level: config.logLevel, hooks: { streamWrite: redaction.redactText } }, opts.logStream) : pino({ level: 'silent' });
  const ctx = await createContext({
    config,
    db: testDb.db,
    masterKey: TEST_MASTER_KEY,
    clock: opts.clock,
    log,
    chains: opts.chains ?? {},
  });
  const app = await buildApp(ctx, opts.logStream ? { logStream: opts.logStream, logRedaction: redaction } : { logger: false });
  await app.ready();
  if (opts.start) await ctx.start();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.close();
    await ctx.stopBackground();
    await testDb.db.close().catch(() => {});
  };
  return {
    app,
    ctx,
    testDb,
    masterKey: TEST_MASTER_KEY,
    stop,
    close: async () => {
      await stop();
      await testDb.dispose();
    },
  };
}
