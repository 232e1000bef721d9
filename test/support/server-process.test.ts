import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { listensOn, startServerProcess, type ServerProcess } from './server-process.ts';

// The harness that starts `satgate start` for the process-level tests. Seen in CI: a test chose a free port, another
// test's process bound it first, and the server exited with EADDRINUSE.
describe('starting a server process for a test', () => {
  let dir: string | undefined;
  let server: ServerProcess | undefined;
  let blocker: Server | undefined;
  afterEach(async () => {
    server?.child.kill('SIGKILL');
    if (server) await server.exited;
    await new Promise((r) => (blocker ? blocker.close(r) : r(undefined)));
    if (dir) rmSync(dir, { recursive: true, force: true });
    [server, blocker, dir] = [undefined, undefined, undefined];
  });

  it('a chosen port taken before the server binds it: the server starts on another, and the env names it', async () => {
    // Another test's server on the port: it answers health polls too, which must not count as this server's.
    blocker = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', r));
    const taken = String((blocker.address() as { port: number }).port);
    dir = mkdtempSync(join(tmpdir(), 'satgate-harness-'));
    const env = { SATGATE_DATA_DIR: dir, PORT: taken };
    server = await startServerProcess(env, 120_000);
    expect(env.PORT).not.toBe(taken);
    expect(server.url).toBe(`http://127.0.0.1:${env.PORT}`);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  }, 180_000);

  it('a process that has exited holds no port, even while another process listens on it', async () => {
    // Seen in CI: the server failed to bind (EADDRINUSE) and exited; before its exit was seen, the health poll got the
    // other server's answer and the check of the exited process's sockets, unreadable, counted as its own.
    blocker = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    expect(listensOn(process.pid, port)).toBe(true);
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => child.on('close', r));
    expect(listensOn(child.pid!, port)).toBe(false);
  });
});
