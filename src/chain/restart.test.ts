import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { eventually, startServerProcess, type ServerProcess } from '../../test/support/server-process.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { SOURCES, startSource, type RunningSource } from '../../test/support/chain-sources.ts';

const cases = testEngines().flatMap((engine) => SOURCES.map((source) => [engine, source] as const));

describe.each(cases)('a satgate process killed with SIGKILL on %s, reading the chain through the %s', (engine, sourceName) => {
  let node: RegtestNode;
  let source: RunningSource;
  let testDb: TestDb;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    node = await startRegtestNode();
    testDb = await createTestDb(engine);
    await testDb.db.close();
    source = await startSource(sourceName, node);
    env = {
      ...testDb.env,
      SATGATE_DATA_DIR: testDb.env.SATGATE_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'satgate-restart-')),
      ...source.env,
      SATGATE_TEST_NETWORK: 'regtest',
      SATGATE_RATES_FILE: writeRatesFile(),
      SATGATE_POLL_MS: '100',
    };
  });

  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await testDb?.dispose();
    await source?.stop();
    await node?.stop();
  });

  const get = async (path: string) => (await fetch(`${server!.url}${path}`)).json() as Promise<Record<string, any>>;
  const post = async (path: string, body: unknown) =>
    (await fetch(`${server!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<
      Record<string, any>
    >;

  it('loses and duplicates nothing, and picks up blocks mined while it was down', async () => {
    server = await startServerProcess(env);
    const pub = generateNewWallet(true).accountKey;
    const { api_id } = await post('/add_pub', { pub });
    const first = (await post('/set_addr', { api_id })).addr as string;
    const second = (await post('/set_addr', { api_id })).addr as string;

    const paid1 = await node.pay(decodeAddress(first).script, 50_000n);
    await eventually(async () => ((await get(`/balance/${first}`)).balance.unconfirmed === '0.0005' ? true : undefined), 20_000, 'unconfirmed');
    await node.mine(1);
    await eventually(async () => ((await get(`/balance/${first}`)).balance.confirmed === '0.0005' ? true : undefined), 20_000, 'confirmed');

    server.child.kill('SIGKILL');
    expect(await server.exited).toBe('SIGKILL');

    // While it is down: another payment, confirmed, and more blocks on top.
    const paid2 = await node.pay(decodeAddress(second).script, 30_000n);
    await node.mine(2);

    server = await startServerProcess(env);
    // Caught up: the watcher has processed every block the node has (payments are then judged at that tip).
    const height = await node.height();
    await eventually(async () => ((await get('/health')).chain_test.tipHeight === height ? true : undefined), 30_000, 'catching up');
    expect((await get(`/balance/${second}`)).balance).toEqual({ confirmed: '0.0003', unconfirmed: '0' });
    const txs = (await get(`/tx/${pub}`)).tx as Array<{ txid: string; confirmation: number; value: string }>;
    expect(txs.map((t) => [t.txid, t.value, t.confirmation])).toEqual([
      [paid1.txid, '0.0005', 3],
      [paid2.txid, '0.0003', 2],
    ]);
    expect((await get(`/balance/${first}`)).balance).toEqual({ confirmed: '0.0005', unconfirmed: '0' });

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;
  }, 120_000);
});

describe('a satgate process on SQLite killed with SIGKILL and started again at once', () => {
  let node: RegtestNode;
  let testDb: TestDb;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    node = await startRegtestNode();
    testDb = await createTestDb('sqlite');
    await testDb.db.close();
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await testDb?.dispose();
    await node?.stop();
  });

  it('starts every time, 20 times in a row: the kernel drops the lock with the process', async () => {
    const env = {
      ...testDb.env,
      SATGATE_TEST_RPC_URL: node.rpcUrl,
      SATGATE_TEST_NETWORK: 'regtest',
      SATGATE_RATES_FILE: writeRatesFile(),
      SATGATE_POLL_MS: '100',
    };
    server = await startServerProcess(env);
    const pids = new Set<number>();
    for (let i = 0; i < 20; i++) {
      pids.add(server.child.pid!);
      server.child.kill('SIGKILL');
      // No wait for the exit to be reaped: the old process may still be a zombie, as after `kill -9; npm start`.
      server = await startServerProcess(env);
    }
    expect(pids.size).toBe(20);
    // And a second live server is still refused, naming the one that runs.
    await expect(startServerProcess({ ...env })).rejects.toThrow(`another satgate server (pid ${server.child.pid})`);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;
    // Generous: 21 starts of the real server take about a minute alone, many times that on a loaded machine.
  }, 1_200_000);
});
