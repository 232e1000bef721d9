import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/satgate.js', import.meta.url));

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** A `satgate start` child process, as an operator would run it. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
}

/**
 * Spawns `satgate start` with the environment and waits until /health answers. A port found free can be taken
 * by another test process before the server binds it: then it tries again on another free port, and a `PORT`
 * the caller chose is replaced in `env` itself, so the caller's later commands (`satgate status`) reach the
 * server that did start.
 */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnServer(env, timeoutMs);
    } catch (err) {
      if (attempt >= 3 || !String(err).includes('EADDRINUSE')) throw err;
      if (env.PORT !== undefined) env.PORT = String(await freePort());
    }
  }
}

async function spawnServer(env: Record<string, string>, timeoutMs: number): Promise<ServerProcess> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: port, HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  // 'close' comes after the output streams end, so an early exit reports everything the process said.
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal ?? -1)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const code = await exited;
      throw new Error(`satgate exited early (${code}):\n${out}`);
    }
    try {
      const res = await fetch(`${url}/health`);
      // Another test's server can hold the port this one was given (found free, then taken): this one then fails
      // with EADDRINUSE, but its health poll would be answered by the other server. The answer counts only when
      // the listening socket is this child's.
      if (res.status === 200 && listensOn(child.pid!, Number(port))) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`satgate did not become healthy in ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, child, output: () => out, exited };
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What a finished CLI command printed. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `satgate <args>` to completion with only the given environment (plus PATH and HOME). */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SATGATE_RUN_SOURCE: '1', LOG_LEVEL: 'warn', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Whether process `pid` holds the socket listening on 127.0.0.1:`port` (Linux: /proc/net/tcp names the listening
 * socket's inode, /proc/<pid>/fd links to it). Without /proc/net/tcp (not Linux) it is assumed to; a process whose
 * fds cannot be read has exited, and holds nothing.
 */
export function listensOn(pid: number, port: number): boolean {
  let table: string;
  try {
    table = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return true;
  }
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    // cols: sl, local_address, rem_address, st (0A = LISTEN), tx:rx, tr:when, retrnsmt, uid, timeout, inode
    if (cols[1] === local && cols[3] === '0A' && cols[9] !== undefined) inodes.add(cols[9]);
  }
  if (inodes.size === 0) return false;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        return m !== null && inodes.has(m[1]!);
      } catch {
        return false;
      }
    });
  } catch {
    // The process is gone (it failed to bind and exited, and its exit is not seen yet): the socket is another's.
    return false;
  }
}
