import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, runCli, startServerProcess, type ServerProcess } from '../../test/support/server-process.ts';

const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';

// What `satgate start` leaves in its data directory for the CLI, and what it refuses before touching anything.

describe('satgate start', () => {
  const dirs: string[] = [];
  let server: ServerProcess | undefined;
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'satgate-start-'));
    dirs.push(d);
    return d;
  };
  afterEach(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    server = undefined;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('on a port already in use stops at once, naming PORT, and creates nothing in the data directory', async () => {
    const first = tempDir();
    const port = String(await freePort());
    const env = { SATGATE_DATA_DIR: join(first, 'data'), PORT: port, DATABASE_URL: '' };
    server = await startServerProcess(env);
    const second = join(tempDir(), 'data');
    const res = await runCli(['start'], { SATGATE_DATA_DIR: second, PORT: env.PORT, HOST: '127.0.0.1' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`port ${env.PORT} on 127.0.0.1 is already in use (EADDRINUSE)`);
    expect(res.stderr).toMatch(/Set PORT to a free port/);
    // Before the fix it wrote a master key, migrated and mined 450 blocks first.
    expect(existsSync(second)).toBe(false);

    // The same data directory: the message says its own server already serves there, and the lock is not touched.
    const before = readdirSync(join(first, 'data')).sort();
    const again = await runCli(['start'], { SATGATE_DATA_DIR: join(first, 'data'), PORT: env.PORT, HOST: '127.0.0.1' });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`the satgate server of this data directory already serves there (http://127.0.0.1:${env.PORT})`);
    expect(readdirSync(join(first, 'data')).sort()).toEqual(before);
    // The same data directory on another port: the lock refuses, and says where the running server answers.
    const beside = await runCli(['start'], { SATGATE_DATA_DIR: join(first, 'data'), PORT: String(await freePort()), HOST: '127.0.0.1' });
    expect(beside.code).toBe(1);
    expect(beside.stderr).toContain(`another satgate server (pid ${server.child.pid})`);
    expect(beside.stderr).toContain(`it serves at ${server.url}`);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  }, 90_000);

  it('names its URL in the data directory, where satgate status finds it without PORT, and takes it back at a clean stop', async () => {
    const dataDir = join(tempDir(), 'data');
    const env = { SATGATE_DATA_DIR: dataDir, PORT: String(await freePort()), DATABASE_URL: '' };
    server = await startServerProcess(env);
    const urlFile = join(dataDir, 'satgate.url');
    expect(readFileSync(urlFile, 'utf8').trim()).toBe(server.url);
    expect(statSync(urlFile).mode & 0o777).toBe(0o600);

    // The CLI is told only the data directory (PORT would default to 8080, where this server is not).
    const status = await runCli(['status', '--json'], { SATGATE_DATA_DIR: dataDir });
    expect(status.stderr).toContain(`satgate: server ${server.url} (named in ${urlFile})`);
    const report = JSON.parse(status.stdout) as { running: boolean; url: string };
    expect(report).toMatchObject({ running: true, url: `${server.url}/health` });
    expect(status.code, status.stderr).not.toBe(3);

    // A mainnet key in development mode: its order address is refused with what to do instead, or to give live mode.
    const post = async (path: string, body: unknown) =>
      (await fetch(`${server!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<Record<string, string>>;
    const live = await post('/add_pub', { pub: ZPUB });
    expect(live.api_id).toMatch(/^live_/);
    const refused = await post('/set_addr', { api_id: live.api_id });
    expect(refused.return).toBe('998');
    expect(refused.status).toMatch(/^live mode is not available: this server runs in development mode/);
    expect(refused.status).toMatch(/register a test key \(vpub, tpub or upub\)/);
    expect(refused.status).toMatch(/SATGATE_LIVE_RPC_URL .*SATGATE_LIVE_ELECTRUM_URL or SATGATE_LIVE_ESPLORA_URL/);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(existsSync(urlFile)).toBe(false);
    const stopped = await runCli(['status'], { SATGATE_DATA_DIR: dataDir, PORT: env.PORT });
    expect(stopped.code).toBe(3);
    expect(stopped.stderr).toContain(`no server answers at http://127.0.0.1:${env.PORT} (data directory ${dataDir}`);
  }, 90_000);
});
