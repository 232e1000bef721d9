import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { ProcessLock } from './sqlite-lock.ts';

const RUN_TS = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
const HOLDER = fileURLToPath(new URL('../../test/support/hold-process-lock.ts', import.meta.url));

/** A child process that takes the lock and says "locked" once it holds it. */
async function holder(file: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [RUN_TS, HOLDER, file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('locked')) resolve();
    });
    child.stderr!.on('data', (c) => (out += c));
    child.once('exit', (code) => reject(new Error(`lock holder exited (${code}): ${out}`)));
  });
  return child;
}

const killed = (child: ChildProcess) => new Promise((r) => child.once('exit', r));

describe('ProcessLock', () => {
  let dir: string;
  let file: string;
  let children: ChildProcess[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'satgate-lock-'));
    file = join(dir, 'satgate.lock');
  });
  afterEach(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    children = [];
    rmSync(dir, { recursive: true, force: true });
  });

  it('is held until released, names our pid, and its files are readable by their owner only', () => {
    const lock = ProcessLock.acquire(file);
    expect(readFileSync(join(dir, 'satgate.pid'), 'utf8').trim()).toBe(String(process.pid));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'satgate.pid')).mode & 0o777).toBe(0o600);
    expect(() => ProcessLock.acquire(file)).toThrow(/another satgate server/);
    lock.release();
    lock.release(); // a second release is harmless
    ProcessLock.acquire(file).release();
  });

  it('a lock held by another live process is refused with its pid named', async () => {
    const child = await holder(file);
    children.push(child);
    expect(() => ProcessLock.acquire(file)).toThrow(new RegExp(`another satgate server \\(pid ${child.pid}\\) is using this data directory`));
  });

  it('a pid file naming a live process does not block a start: only the kernel lock counts', () => {
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(sleeper);
    writeFileSync(join(dir, 'satgate.pid'), `${sleeper.pid}\n`);
    ProcessLock.acquire(file).release();
  });

  it('20 times: the holder killed with SIGKILL, the lock is free at once', async () => {
    for (let i = 0; i < 20; i++) {
      const child = await holder(file);
      children.push(child);
      expect(() => ProcessLock.acquire(file)).toThrow(/another satgate server/);
      const gone = killed(child);
      child.kill('SIGKILL');
      await gone;
      ProcessLock.acquire(file).release();
    }
  }, 120_000);
});
