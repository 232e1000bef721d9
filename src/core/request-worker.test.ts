import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { RequestWorker } from './request-worker.ts';

type EchoRequest = { echo?: string; delayMs?: number; exit?: number };
type EchoReply = { echoed?: string };
const ECHO = new URL('../../test/support/echo-thread.ts', import.meta.url);

describe('a request/reply worker thread', () => {
  it('answers each request with its own reply, whatever order the thread answers in', async () => {
    const worker = new RequestWorker<EchoRequest, EchoReply>(ECHO);
    try {
      expect(await worker.ready).toBe(true);
      const slow = worker.call({ echo: 'slow', delayMs: 200 });
      const fast = worker.call({ echo: 'fast' });
      expect(await Promise.all([slow, fast])).toEqual([expect.objectContaining({ echoed: 'slow' }), expect.objectContaining({ echoed: 'fast' })]);
    } finally {
      await worker.terminate();
    }
  });

  it('a thread that dies fails the requests waiting on it and every later one', async () => {
    const worker = new RequestWorker<EchoRequest, EchoReply>(ECHO);
    const waiting = expect(worker.call({ echo: 'never', delayMs: 10_000 })).rejects.toThrow('exited with code 3');
    await expect(worker.call({ exit: 3 })).rejects.toThrow('the thread exited with code 3');
    await waiting;
    expect(worker.endedWith?.message).toMatch(/code 3/);
    await expect(worker.call({ echo: 'later' })).rejects.toThrow('code 3');
  });

  it('a thread whose module cannot load is never ready and fails its requests', async () => {
    const worker = new RequestWorker<EchoRequest, EchoReply>(new URL('./no-such-thread.ts', import.meta.url));
    const request = worker.call({ echo: 'x' });
    expect(await worker.ready).toBe(false);
    await expect(request).rejects.toThrow();
    expect(worker.endedWith).toBeDefined();
  });

  it('stopping it fails the waiting requests and every later one with the reason given', async () => {
    const worker = new RequestWorker<EchoRequest, EchoReply>(ECHO);
    expect(await worker.ready).toBe(true);
    const waiting = expect(worker.call({ echo: 'never', delayMs: 10_000 })).rejects.toThrow('closing');
    await worker.terminate(new Error('closing'));
    await waiting;
    await expect(worker.call({ echo: 'later' })).rejects.toThrow('closing');
  });

  it('keeps a process alive while it starts and while a request waits, and lets it end once idle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'satgate-request-worker-'));
    const script = join(dir, 'ask-once.mts');
    const src = (m: string | URL) => JSON.stringify(fileURLToPath(new URL(m, import.meta.url)));
    // Nothing but the request keeps this process alive: the thread must hold it open until the reply, and must
    // not hold it open afterwards (the test's timeout would end it).
    writeFileSync(
      script,
      `import { RequestWorker } from ${src('./request-worker.ts')};
const worker = new RequestWorker(new URL(${JSON.stringify(ECHO.href)}));
console.log('ready', await worker.ready);
console.log('answered', (await worker.call({ echo: 'hi', delayMs: 300 })).echoed);
`,
    );
    const runTs = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [runTs, script], { timeout: 30_000 });
    // Unreferenced while starting, the process would end before `ready` with exit code 13 (an unsettled await).
    expect(stdout.trim().split('\n')).toEqual(['ready true', 'answered hi']);
  });
});
