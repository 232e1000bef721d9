import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { openDb, type Db } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { MasterKey } from '../security/master-key.ts';
import { ProcessLock } from '../db/sqlite-lock.ts';
import { WalletRepository } from '../wallets/wallet-repository.ts';
import { registerWallet } from '../wallets/wallet-registration.ts';
import { runCli } from '../../test/support/server-process.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RATES_FILE = fileURLToPath(new URL('../../test/fixtures/rates/rates-file.json', import.meta.url));
const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';

/** A clean environment for the CLI: nothing of this process's configuration leaks in. */
function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...env };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe('satgate CLI help', () => {
  it('--help, wallet --help and wallet list --help print usage and exit 0', async () => {
    const [top, group, list] = await Promise.all([
      runCli(['--help']),
      runCli(['wallet', '--help']),
      runCli(['wallet', 'list', '--help']),
    ]);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('Usage: satgate <command>');
    for (const cmd of ['start', 'migrate', 'wallet list', 'wallet export-seed']) expect(top.stdout).toContain(cmd);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('satgate wallet list');
    expect(group.stdout).toContain('satgate wallet export-seed');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('Usage: satgate wallet list [--json]');
  });

  it('an unknown command exits 2 with the overview on stderr', async () => {
    const res = await runCli(['frobnicate']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('unknown command: frobnicate');
  });

  it('a bad PORT makes migrate exit 2 naming PORT', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'satgate-cli-'));
    try {
      const res = await runCli(['migrate'], { PORT: 'abc', SATGATE_DATA_DIR: dataDir });
      expect(res.code).toBe(2);
      expect(res.stderr).toContain('PORT="abc"');
      expect(existsSync(join(dataDir, 'satgate.sqlite'))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.each(testEngines())('satgate CLI on %s', (engine) => {
  let dataDir: string;
  let pgDb: TestDb | undefined;
  let env: Record<string, string>;
  let children: ChildProcess[] = [];

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'satgate-cli-'));
    env = { SATGATE_DATA_DIR: dataDir };
    if (engine === 'postgres') {
      pgDb = await createTestDb('postgres');
      await pgDb.db.close(); // the CLI opens its own connections; keep only the schema
      env.DATABASE_URL = pgDb.env.DATABASE_URL!;
    }
  });
  afterEach(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    children = [];
    await pgDb?.dispose();
    pgDb = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Opens the database the CLI uses, from this process. */
  function openStoreHere(): Db {
    return engine === 'sqlite' ? openDb({ engine: 'sqlite', file: join(dataDir, 'satgate.sqlite') }) : pgDb!.reopen();
  }

  /** Brings the CLI's database to the latest schema from this process (quicker than spawning migrate). */
  async function migrateHere(): Promise<void> {
    const db = openStoreHere();
    try {
      await migrateToLatest(db);
    } finally {
      await db.close();
    }
  }

  /** Registers a wallet directly in the CLI's database, with the data directory's master key. */
  async function register(pub: string, currency?: string): Promise<string> {
    const db = openStoreHere();
    try {
      const repo = new WalletRepository(db);
      const { masterKey } = MasterKey.loadOrCreate(join(dataDir, 'master.key'));
      const result = await registerWallet(
        { repo, masterKey, clock: () => Date.now(), testNetwork: 'regtest', isSupportedCurrency: () => true },
        { pub, ...(currency ? { currency } : {}), account_name: 'CLI shop' },
      );
      return result.api_id;
    } finally {
      await db.close();
    }
  }

  /** Starts `satgate start` on a free port and waits for /health to answer. */
  async function startServer(port: number): Promise<{ child: ChildProcess; exited: Promise<number | null>; output: () => string }> {
    const child = spawn(process.execPath, ['bin/satgate.js', 'start'], {
      cwd: REPO_ROOT,
      // Rates from a fixture file keep the server off the internet.
      env: cliEnv({ ...env, PORT: String(port), HOST: '127.0.0.1', SATGATE_RATE_PROVIDERS: 'file', SATGATE_RATES_FILE: RATES_FILE }),
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d) => (output += String(d)));
    child.stderr!.on('data', (d) => (output += String(d)));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const deadline = Date.now() + 60_000; // the first start mines the dev chain
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}): ${output}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`server did not become healthy: ${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return { child, exited, output: () => output };
  }

  async function postAddPub(port: number, body: Record<string, unknown>): Promise<Record<string, string>> {
    const res = await fetch(`http://127.0.0.1:${port}/add_pub`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, string>;
  }

  it('migrate creates the database; wallet list --json prints [] and then a wallet registered in it', async () => {
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    if (engine === 'sqlite') {
      expect(migrated.stdout).toMatch(/applied: 0001-foundation/);
      expect(existsSync(join(dataDir, 'satgate.sqlite'))).toBe(true);
    }
    const [again, empty] = await Promise.all([runCli(['migrate'], env), runCli(['wallet', 'list', '--json'], env)]);
    expect(again.stdout).toContain('database schema is current');
    expect(empty.code, empty.stderr).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual([]);

    const apiId = await register(ZPUB);
    const [json, text] = await Promise.all([runCli(['wallet', 'list', '--json'], env), runCli(['wallet', 'list'], env)]);
    expect(json.code, json.stderr).toBe(0);
    const wallets = JSON.parse(json.stdout);
    expect(wallets).toHaveLength(1);
    expect(wallets[0]).toMatchObject({
      api_id: apiId,
      mode: 'live',
      network: 'mainnet',
      script_type: 'p2wpkh',
      local_currency: 'usd',
      account_name: 'CLI shop',
      generated: false,
      pub: ZPUB,
    });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(apiId);
  });

  it('wallet export-seed prints a generated wallet\'s mnemonic and refuses a watch-only or unknown wallet', async () => {
    await migrateHere();
    const generated = await register('new_wallet', 'testBTC');
    const watchOnly = await register(ZPUB);
    const [seed, refused, unknown] = await Promise.all([
      runCli(['wallet', 'export-seed', generated], env),
      runCli(['wallet', 'export-seed', watchOnly], env),
      runCli(['wallet', 'export-seed', 'live_nope'], env),
    ]);
    expect(seed.code, seed.stderr).toBe(0);
    const mnemonic = seed.stdout.trim();
    expect(mnemonic.split(' ')).toHaveLength(12);
    expect(validateMnemonic(mnemonic, wordlist)).toBe(true);
    expect(seed.stderr).toMatch(/Anyone who sees it can spend/);
    expect(seed.stderr).not.toContain(mnemonic);

    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`wallet ${watchOnly} is watch-only`);
    expect(refused.stdout).toBe('');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no wallet with api_id live_nope');
  });

  it('start serves (alone on a SQLite data directory), stops cleanly on SIGTERM, and keeps wallets across a restart', async () => {
    const port = await freePort();
    const lockFile = join(dataDir, 'satgate.lock');
    const first = await startServer(port);
    if (engine === 'sqlite') {
      expect(existsSync(lockFile)).toBe(true);
      // The embedded database belongs to one server process at a time.
      const second = await runCli(['start'], { ...env, PORT: String(await freePort()) });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`another satgate server (pid ${first.child.pid})`);
    }
    expect(existsSync(join(dataDir, 'master.key'))).toBe(true);
    const registered = await postAddPub(port, { pub: ZPUB, account_name: 'e2e' });
    expect(registered.return).toBe('0');
    expect(registered.api_id).toMatch(/^live_/);

    if (engine === 'sqlite') {
      // Owner-only files: the database with its WAL, the lock, the master key; the directory itself.
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      for (const f of ['satgate.sqlite', 'satgate.sqlite-wal', 'satgate.lock', 'satgate.pid', 'master.key']) {
        expect((statSync(join(dataDir, f)).mode & 0o777).toString(8), f).toBe('600');
      }
    }
    first.child.kill('SIGTERM');
    expect(await first.exited, first.output()).toBe(0);
    if (engine === 'sqlite') ProcessLock.acquire(lockFile).release();

    const restarted = await startServer(port);
    const again = await postAddPub(port, { pub: ZPUB });
    expect(again.api_id).toBe(registered.api_id);
    expect(again.server_public_key).toBe(registered.server_public_key);
    restarted.child.kill('SIGTERM');
    expect(await restarted.exited, restarted.output()).toBe(0);
  }, 180_000);
});
