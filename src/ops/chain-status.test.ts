// `satgate status` against a real `satgate start` process on each chain source: what it prints comes from the
// server's /health while it runs (the same numbers), and from the configuration and the database once it stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { eventually, freePort, runCli, startServerProcess, type ServerProcess } from '../../test/support/server-process.ts';
import { SOURCES, startSource, type RunningSource } from '../../test/support/chain-sources.ts';
import type { StatusReport } from './chain-status.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

const cases = testEngines().flatMap((engine) => SOURCES.map((source) => [engine, source] as const));
const KIND = { 'node RPC': 'rpc', Electrum: 'electrum', Esplora: 'esplora' } as const;

describe.each(cases)('satgate status on %s, reading the chain through the %s', (engine, sourceName) => {
  let source: RunningSource;
  let testDb: TestDb;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    testDb = await createTestDb(engine);
    await testDb.db.close();
    source = await startSource(sourceName, node);
    env = {
      ...testDb.env,
      SATGATE_DATA_DIR: testDb.env.SATGATE_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'satgate-status-')),
      ...source.env,
      SATGATE_TEST_NETWORK: 'regtest',
      SATGATE_RATES_FILE: writeRatesFile(),
      SATGATE_POLL_MS: '100',
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
    };
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await testDb?.dispose();
    await source?.stop();
  });

  it('while the server runs it shows the source, tip, lag and verification /health reports; after it stopped, the stored tip', async () => {
    server = await startServerProcess(env);
    await node.mine(1);
    const height = await node.height();
    const hash = await node.rpc.getBlockHash(height);
    const health = await eventually(async () => {
      const h = (await (await fetch(`${server!.url}/health`)).json()) as Record<string, any>;
      return h.chain_test?.tipHeight === height && h.chain_test?.lag === 0 ? h.chain_test : undefined;
    }, 30_000, 'the watcher at the node tip');

    const json = await runCli(['status', '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as StatusReport;
    expect(report).toMatchObject({ running: true, status: expect.any(String) });
    expect(report.chains).toEqual([
      expect.objectContaining({
        chain: 'test',
        network: 'regtest',
        source: KIND[sourceName],
        tipHeight: height,
        tipHash: hash,
        lag: 0,
        serverTipHeight: height,
        verified: true,
        connected: true,
        ok: true,
        error: null,
      }),
    ]);
    // The same numbers as /health: status reads them from there.
    for (const k of ['source', 'sourceUrl', 'tipHeight', 'tipHash', 'lag', 'verified', 'error'] as const) expect(report.chains[0]![k]).toEqual(health[k]);
    // No credentials in what it prints (the node RPC URL carries them).
    expect(json.stdout).not.toMatch(/\/\/[^/\s"]*:[^/\s"]*@/);

    const text = await runCli(['status'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`test (regtest): ${KIND[sourceName]}`);
    expect(text.stdout).toContain(`tip         ${height} ${hash}`);
    expect(text.stdout).toMatch(/verified\s+yes/);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;

    const stopped = await runCli(['status', '--json'], env);
    expect(stopped.code, stopped.stderr).toBe(3);
    const offline = JSON.parse(stopped.stdout) as StatusReport;
    expect(offline.running).toBe(false);
    expect(offline.chains).toEqual([
      expect.objectContaining({
        chain: 'test',
        source: KIND[sourceName],
        tipHeight: height,
        tipHash: hash,
        headerHeight: sourceName === 'node RPC' ? null : height,
        serverTipHeight: null,
        lag: null,
        verified: null,
        error: null,
      }),
    ]);
    expect((await runCli(['status'], env)).stdout).toContain('satgate is not running');
  }, 400_000);
});

describe('satgate status options', () => {
  it('refuses an unknown option with usage', async () => {
    const res = await runCli(['status', '--jsn']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('usage: satgate status [--json] [--url URL]');
  });
});
