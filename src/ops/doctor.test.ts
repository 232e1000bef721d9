// satgate doctor on a correct set-up and on five broken ones: each broken part gets a FAIL line naming it while the
// other checks stay OK, and the command exits non-zero exactly when something failed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { freePort, runCli } from '../../test/support/server-process.ts';
import { openDb } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { MasterKey } from '../security/master-key.ts';
import { RateStore } from '../rates/rate-store.ts';
import { runDoctor, type Finding } from './doctor.ts';
import { startElectrumTestServer } from '../../test/support/electrum-test-server.ts';
import { startEsploraTestServer } from '../../test/support/esplora-test-server.ts';
import { TEST_BUDGET } from '../../test/support/chain-sources.ts';
import { createTestApp } from '../../test/support/test-app.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import type { MemberHealth } from '../chain/light/pool-member.ts';

const HOUR = 3_600_000;
let node: RegtestNode;
let smtp: SMTPServer;
let smtpPort: number;
let site: Server;
const root = mkdtempSync(join(tmpdir(), 'satgate-doctor-'));

beforeAll(async () => {
  node = await startRegtestNode();
  smtp = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], onData: (s, _x, cb) => s.on('end', () => cb()).resume() });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  // Stands in for the running server at SATGATE_PUBLIC_URL.
  site = createServer((req, res) => res.writeHead(req.url === '/health' ? 200 : 404).end('{}'));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  await node?.stop();
  await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
  await new Promise((r) => site?.close(r));
  rmSync(root, { recursive: true, force: true });
});

/** A data directory as `satgate start` leaves it: mode 0700, master key 0600, migrated database 0600, rates stored. */
async function setUp(ratesFetchedAgoMs = 5 * 60_000): Promise<Record<string, string>> {
  const dataDir = mkdtempSync(join(root, 'data-'));
  chmodSync(dataDir, 0o700);
  MasterKey.loadOrCreate(join(dataDir, 'master.key'));
  const db = openDb({ engine: 'sqlite', file: join(dataDir, 'satgate.sqlite') });
  await migrateToLatest(db);
  const at = Date.now() - ratesFetchedAgoMs;
  await new RateStore(db).insertRecord({ at, fetchedAt: at, origin: 'refresh', rates: new Map([['USD', '50000']]), sources: { answered: ['file'], failed: [], derived: [] } });
  await db.close();
  return {
    SATGATE_DATA_DIR: dataDir,
    SATGATE_TEST_RPC_URL: node.rpcUrl,
    SATGATE_TEST_NETWORK: 'regtest',
    SATGATE_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    SATGATE_PUBLIC_URL: `http://127.0.0.1:${(site.address() as AddressInfo).port}`,
    SATGATE_RATE_INTERVAL: '1h',
  };
}

function verdicts(findings: Finding[]): Record<string, string> {
  return Object.fromEntries(findings.map((f) => [f.check, f.verdict]));
}

const ALL_OK = { configuration: 'ok', 'data directory': 'ok', 'master key': 'ok', database: 'ok', 'exchange rates': 'ok', 'chain test': 'ok', smtp: 'ok', 'public url': 'ok' };

describe('satgate doctor', () => {
  it('a correct set-up: every check OK, exit code 0, the key fingerprint and a backup reminder printed', async () => {
    const env = await setUp();
    expect(verdicts(await runDoctor(env))).toEqual(ALL_OK);
    const cli = await runCli(['doctor'], env);
    expect(cli.code, cli.stdout + cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/^OK {4}master key {6,}.*fingerprint sha256:[0-9a-f]{32}.*backed up\?/m);
    expect(cli.stdout).toContain('all checks passed');
  });

  it('no master key: the master key check fails and the exit code is 1', async () => {
    const env = await setUp();
    rmSync(join(env.SATGATE_DATA_DIR!, 'master.key'));
    const findings = await runDoctor(env);
    expect(verdicts(findings)).toEqual({ ...ALL_OK, 'master key': 'fail' });
    expect(findings.find((f) => f.check === 'master key')!.detail).toMatch(/master\.key is missing/);
    const cli = await runCli(['doctor'], env);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/^FAIL {2}master key/m);
    expect(cli.stdout).toContain('1 check(s) failed');
  });

  it('a node on the wrong network: the chain check fails naming both networks', async () => {
    const env = { ...(await setUp()), SATGATE_TEST_NETWORK: 'signet' };
    const findings = await runDoctor(env);
    expect(verdicts(findings)).toEqual({ ...ALL_OK, 'chain test': 'fail' });
    expect(findings.find((f) => f.check === 'chain test')!.detail).toBe('the node runs "regtest" but satgate expects "signet" for test mode (SATGATE_TEST_NETWORK)');
  });

  it('an Electrum server and an Esplora API on the configured network: the chain check is OK and names them', async () => {
    const base = await setUp();
    delete base.SATGATE_TEST_RPC_URL;
    const electrum = await startElectrumTestServer(node);
    const esplora = await startEsploraTestServer(node);
    try {
      for (const [variable, url, label] of [['SATGATE_TEST_ELECTRUM_URL', electrum.url, 'Electrum server'], ['SATGATE_TEST_ESPLORA_URL', esplora.url, 'Esplora API']] as const) {
        const findings = await runDoctor({ ...base, [variable]: url });
        expect(verdicts(findings)).toEqual(ALL_OK);
        expect(findings.find((f) => f.check === 'chain test')!.detail).toContain(`${label} at`);
      }
      // The same servers are refused for a network they do not serve (signet's genesis is not regtest's block 0).
      const wrong = await runDoctor({ ...base, SATGATE_TEST_ESPLORA_URL: esplora.url, SATGATE_TEST_NETWORK: 'signet' });
      expect(verdicts(wrong)).toEqual({ ...ALL_OK, 'chain test': 'fail' });
      expect(wrong.find((f) => f.check === 'chain test')!.detail).toContain('serves another network');
    } finally {
      await electrum.close();
      await esplora.close();
    }
  });

  it('several Electrum servers: each is reported on its own, one stuck behind the tip as lagging, one unreachable as failing', async () => {
    const base = await setUp();
    delete base.SATGATE_TEST_RPC_URL;
    const servers = [await startElectrumTestServer(node), await startElectrumTestServer(node)];
    try {
      servers[1]!.lies.stuckAt = (await node.height()) - 1;
      const findings = await runDoctor({ ...base, SATGATE_TEST_ELECTRUM_URL: `${servers[0]!.url},${servers[1]!.url},tcp://127.0.0.1:${await freePort()}` });
      const { 'chain test': _single, ...rest } = ALL_OK;
      expect(verdicts(findings)).toEqual({ ...rest, 'chain test server 1/3': 'ok', 'chain test server 2/3': 'warn', 'chain test server 3/3': 'fail' });
      expect(findings.find((f) => f.check === 'chain test server 2/3')!.detail).toMatch(/lagging: 1 block\(s\) behind the best tip/);
      expect(findings.find((f) => f.check === 'chain test server 3/3')!.detail).toContain('Electrum server unreachable');
    } finally {
      for (const s of servers) await s.close();
    }
  });

  it('several Electrum servers while satgate runs: each line says the omissions, refusals and lag the running server saw, and a server that hid a payment is a warning', async () => {
    const base = await setUp();
    delete base.SATGATE_TEST_RPC_URL;
    const servers = [await startElectrumTestServer(node), await startElectrumTestServer(node)];
    const t = await createTestApp('sqlite', {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }) },
      chains: { test: { electrumUrl: servers[0]!.url, extraServers: [servers[1]!.url], quorum: 2, budget: TEST_BUDGET, network: 'regtest' } },
      start: true,
    });
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const apiId = await addSandboxWallet(t.app, { return_url: 'https://shop.example/hooks' });
      const token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
      const res = await postPayment(t.app, token, customRequest(apiId));
      const script = decodeAddress((res.json() as { crypto_address: string }).crypto_address).script;
      servers[1]!.lies.hideHistoryOf = script;
      await node.pay(script, 50_000n);
      await node.mine(1);
      const seen = async () => (await t.app.inject({ method: 'GET', url: '/health' })).json().chain_test.servers as MemberHealth[];
      for (let i = 0; i < 10 && (await seen())[1]!.omissions === 0; i++) await t.ctx.chains.pollNow();
      expect((await seen())[1]!.omissions).toBe(1);

      const port = (t.app.server.address() as AddressInfo).port;
      const findings = await runDoctor({ ...base, PORT: String(port), SATGATE_TEST_ELECTRUM_URL: `${servers[0]!.url},${servers[1]!.url}` });
      const line = (n: number) => findings.find((f) => f.check === `chain test server ${n}/2`)!;
      expect(line(1)).toMatchObject({ verdict: 'ok', detail: expect.stringContaining('seen while running: 0 omission(s), 0 refusal(s)') });
      expect(line(2).verdict).toBe('warn');
      expect(line(2).detail).toMatch(/seen while running: 1 omission\(s\), 0 refusal\(s\), last missing-transaction of [0-9a-f]{64}: it left out transactions other servers listed/);
    } finally {
      await t.close();
      for (const s of servers) await s.close();
    }
  });

  it('several Esplora APIs while satgate runs: a server that sent a block not matching the verified header is a warning naming its bad blocks', async () => {
    const base = await setUp();
    delete base.SATGATE_TEST_RPC_URL;
    const servers = [await startEsploraTestServer(node), await startEsploraTestServer(node)];
    const t = await createTestApp('sqlite', {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }) },
      chains: { test: { esploraUrl: servers[0]!.url, extraServers: [servers[1]!.url], tipCacheMs: 0, budget: TEST_BUDGET, network: 'regtest' } },
      start: true,
    });
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      await t.ctx.chains.pollNow();
      servers[1]!.lies.tamperBlocks = true;
      // Two blocks in one poll: each server is asked first for one of them.
      await node.mine(2);
      await t.ctx.chains.pollNow();
      const seen = (await t.app.inject({ method: 'GET', url: '/health' })).json().chain_test.servers as MemberHealth[];
      expect(seen.map((h) => h.badBlocks)).toEqual([0, 1]);
      const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain(`satgate_chain_source_server_bad_blocks_total{chain="test",source="esplora",server="${servers[1]!.url}"} 1`);

      const port = (t.app.server.address() as AddressInfo).port;
      const findings = await runDoctor({ ...base, PORT: String(port), SATGATE_TEST_ESPLORA_URL: `${servers[0]!.url},${servers[1]!.url}` });
      const line = (n: number) => findings.find((f) => f.check === `chain test server ${n}/2`)!;
      expect(line(1)).toMatchObject({ verdict: 'ok', detail: expect.stringContaining('seen while running: 0 omission(s), 0 refusal(s)') });
      expect(line(2).verdict).toBe('warn');
      expect(line(2).detail).toMatch(/seen while running: 0 omission\(s\), 0 refusal\(s\), 1 bad block\(s\): it sent blocks that are not the ones our verified headers name \(last [0-9a-f]{64}\)/);
    } finally {
      delete servers[1]!.lies.tamperBlocks;
      await t.close();
      for (const s of servers) await s.close();
    }
  });

  it('an unreachable light server: the chain check fails', async () => {
    const base = await setUp();
    delete base.SATGATE_TEST_RPC_URL;
    const findings = await runDoctor({ ...base, SATGATE_TEST_ESPLORA_URL: `http://127.0.0.1:${await freePort()}` });
    expect(verdicts(findings)).toEqual({ ...ALL_OK, 'chain test': 'fail' });
    expect(findings.find((f) => f.check === 'chain test')!.detail).toContain('Esplora API unreachable');
  });

  it('an unreachable SMTP server: the smtp check fails', async () => {
    const env = { ...(await setUp()), SATGATE_SMTP_URL: `smtp://127.0.0.1:${await freePort()}` };
    const findings = await runDoctor(env);
    expect(verdicts(findings)).toEqual({ ...ALL_OK, smtp: 'fail' });
    expect(findings.find((f) => f.check === 'smtp')!.detail).toMatch(/ECONNREFUSED|connect/i);
  });

  it('a database file with mode 0644: the data directory check fails and says chmod 600', async () => {
    const env = await setUp();
    chmodSync(join(env.SATGATE_DATA_DIR!, 'satgate.sqlite'), 0o644);
    const findings = await runDoctor(env);
    expect(verdicts(findings)).toEqual({ ...ALL_OK, 'data directory': 'fail' });
    expect(findings.find((f) => f.check === 'data directory')!.detail).toMatch(/mode 644.*chmod 600/);
  });

  it('stale rates (last fetched three days ago, refreshed hourly): the exchange rates check fails', async () => {
    const env = await setUp(72 * HOUR);
    const findings = await runDoctor(env);
    expect(verdicts(findings)).toEqual({ ...ALL_OK, 'exchange rates': 'fail' });
    expect(findings.find((f) => f.check === 'exchange rates')!.detail).toMatch(/fetched 4320 min ago \(limit 120 min\)/);
  });

  it('a missing data directory and database: both fail, without creating anything', async () => {
    const dataDir = join(root, 'never-created');
    const findings = await runDoctor({ SATGATE_DATA_DIR: dataDir, SATGATE_TEST_RPC_URL: node.rpcUrl, SATGATE_TEST_NETWORK: 'regtest' });
    expect(verdicts(findings)).toMatchObject({ 'data directory': 'fail', 'master key': 'fail', database: 'fail' });
    mkdirSync(dataDir); // it did not exist: the doctor created nothing
  });
});
