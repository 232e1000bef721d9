import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, freePort, startServerProcess, type ServerProcess } from '../../test/support/server-process.ts';

// The README's quick start, run as written on a fresh directory: the commands are read from its fenced blocks, and
// each must be one this test knows, with the outcome the README promises. Editing the quick start without this
// list fails here, so the two cannot drift. Two liberties, both about the machine rather than the steps: the server
// listens on a free port (the commands' http://127.0.0.1:8080 points there), and "npm install && npm start" is the
// `satgate start` that npm start runs, from the sources (no install, no build in a test).

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/satgate.js', import.meta.url));

/** The shell commands of the README's quick start: continuation lines joined, comments and blank lines dropped. */
function quickStartCommands(readme: string): string[] {
  const start = readme.indexOf('\n## Quick start\n');
  if (start < 0) throw new Error('README.md has no "## Quick start" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const commands: string[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = block[1]!.replace(/\\\n\s*/g, '');
    for (const line of joined.split('\n')) {
      const command = line.replace(/\s+#\s.*$/, '').trim();
      if (command !== '' && !command.startsWith('#')) commands.push(command);
    }
  }
  return commands;
}

interface Shared {
  server?: ServerProcess;
  apiId?: string;
  addr?: string;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

const json = (r: Ran) => JSON.parse(r.stdout) as Record<string, unknown>;
const balance = (r: Ran) => (json(r).balance ?? {}) as Record<string, string>;

/** Each step of the quick start and what the README says it does. `again`: a look at the chain, asked until true. */
const STEPS: Array<{ command: string; check: (r: Ran, s: Shared) => void; again?: true }> = [
  { command: 'npm install && npm start', check: () => {} },
  {
    command: 'curl -s http://127.0.0.1:8080/health',
    check: (r) => expect(json(r).status).toMatch(/^(ok|degraded)$/),
  },
  {
    command:
      `curl -s -X POST http://127.0.0.1:8080/add_pub -H 'content-type: application/json' ` +
      `-d '{"pub":"vpub5Y6cjg78GGuNLsaPhmYsiw4gYX3HoQiRBiSwDaBXKUafCt9bNwWQiitDk5VZ5BVxYnQdwoTyXSs2JHRPAgjAvtbBrf8ZhDYe2jWAqvZVnsc"}'`,
    check: (r, s) => {
      expect(json(r)).toMatchObject({ return: '0', api_id: expect.stringMatching(/^test_/) });
      s.apiId = json(r).api_id as string;
    },
  },
  {
    command: `curl -s -X POST http://127.0.0.1:8080/set_addr -H 'content-type: application/json' -d '{"api_id":"test_…"}'`,
    check: (r, s) => {
      expect(json(r)).toMatchObject({ return: '0', addr: expect.stringMatching(/^bcrt1q/) });
      s.addr = json(r).addr as string;
    },
  },
  {
    command: 'npx satgate dev pay bcrt1q… 0.001',
    check: (r, s) => {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`sent 0.001 BTC to ${s.addr}`);
      // No PORT in the CLI's environment: it found the server through the data directory, and says so.
      expect(r.stderr).toContain(`server ${s.server!.url} (named in `);
    },
  },
  { command: 'curl -s http://127.0.0.1:8080/balance/bcrt1q…', check: (r) => expect(balance(r).unconfirmed).toBe('0.001'), again: true },
  { command: 'npx satgate dev mine', check: (r) => expect(r.code, r.stderr).toBe(0) },
  { command: 'curl -s http://127.0.0.1:8080/balance/bcrt1q…', check: (r) => expect(balance(r)).toMatchObject({ confirmed: '0.001', unconfirmed: '0' }), again: true },
];

/** Runs a README command in `cwd` through the shell, with the placeholders the README asks the reader to fill in. */
function sh(command: string, cwd: string, s: Shared): Promise<Ran> {
  const filled = command
    .replaceAll('http://127.0.0.1:8080', s.server!.url)
    .replaceAll('test_…', s.apiId ?? 'test_…')
    .replaceAll('bcrt1q…', s.addr ?? 'bcrt1q…')
    .replaceAll('npx satgate', `"${process.execPath}" "${BIN}"`);
  return new Promise((resolve, reject) => {
    // Only what a newcomer's shell has: no PORT, no SATGATE_DATA_DIR (./data of this directory).
    const child = spawn('sh', ['-c', filled], { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME, SATGATE_RUN_SOURCE: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the README's quick start", () => {
  const dir = mkdtempSync(join(tmpdir(), 'satgate-quick-start-'));
  const shared: Shared = {};
  afterAll(async () => {
    if (shared.server && shared.server.child.exitCode === null) {
      shared.server.child.kill('SIGTERM');
      await shared.server.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists exactly the steps this test runs', () => {
    expect(quickStartCommands(readFileSync(README, 'utf8'))).toEqual(STEPS.map((s) => s.command));
  });

  it('runs as written on a fresh directory: server up, a test wallet, an order address, a development payment seen and confirmed', async () => {
    const commands = quickStartCommands(readFileSync(README, 'utf8'));
    expect(commands[0]).toBe('npm install && npm start');
    shared.server = await startServerProcess({ PORT: String(await freePort()), SATGATE_DATA_DIR: join(dir, 'data'), DATABASE_URL: '' });
    expect(existsSync(join(dir, 'data', 'satgate.url'))).toBe(true);
    for (const step of STEPS.slice(1)) {
      const check = async () => {
        const ran = await sh(step.command, dir, shared);
        step.check(ran, shared);
        return true;
      };
      try {
        if (step.again) await eventually(check, 20_000, step.command);
        else await check();
      } catch (err) {
        throw new Error(`quick start step failed: ${step.command}\n${String(err)}\nserver output:\n${shared.server.output()}`);
      }
    }
    shared.server.child.kill('SIGTERM');
    expect(await shared.server.exited).toBe(0);
    // A clean stop takes the URL back: nothing is left that names a server that is gone.
    expect(existsSync(join(dir, 'data', 'satgate.url'))).toBe(false);
  }, 90_000);
});
