import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { ProcessLock } from './sqlite-lock.ts';

/** A pid that no process holds: a child that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

describe('ProcessLock', () => {
  let dir: string;
  let file: string;
  let sleeper: ChildProcess | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'satgate-lock-'));
    file = join(dir, 'satgate.lock');
  });
  afterEach(() => {
    sleeper?.kill('SIGKILL');
    sleeper = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('acquiring writes our pid and release removes the file', () => {
    const lock = ProcessLock.acquire(file);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    expect(existsSync(file)).toBe(false);
    lock.release(); // a second release is harmless
  });

  it('a lock held by another live process is refused with its pid named', () => {
    sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    writeFileSync(file, `${sleeper.pid}\n`);
    expect(() => ProcessLock.acquire(file)).toThrow(new RegExp(`another satgate server \\(pid ${sleeper.pid}\\)`));
    expect(readFileSync(file, 'utf8').trim()).toBe(String(sleeper.pid));
  });

  it('a stale lock left by a dead process is taken over', async () => {
    writeFileSync(file, `${await deadPid()}\n`);
    const lock = ProcessLock.acquire(file);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  it('a lock file with garbage in it is taken over', () => {
    writeFileSync(file, 'not a pid');
    const lock = ProcessLock.acquire(file);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });
});
