import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeServerUrl } from '../config/server-url-file.ts';
import { freePort } from '../../test/support/server-process.ts';
import { findServer } from './find-server.ts';

describe('how a CLI command finds the running server', () => {
  let dir: string;
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await new Promise((r) => server!.close(r));
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes the URL the server of the data directory wrote over HOST and PORT, and says so', async () => {
    dir = mkdtempSync(join(tmpdir(), 'satgate-find-'));
    server = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    writeServerUrl(dir, url);
    const found = await findServer({ dataDir: dir, host: '127.0.0.1', port: await freePort() });
    expect(found).toEqual({ url, answers: true, note: `satgate: server ${url} (named in ${join(dir, 'satgate.url')})` });
  });

  it('when nothing answers, names the data directory, and the live pid its lock names', async () => {
    dir = mkdtempSync(join(tmpdir(), 'satgate-find-'));
    const port = await freePort();
    const quiet = await findServer({ dataDir: dir, host: '127.0.0.1', port });
    expect(quiet.answers).toBe(false);
    expect(quiet.note).toBe(
      `satgate: no server answers at http://127.0.0.1:${port} (data directory ${dir}; set SATGATE_DATA_DIR to the server's, or PORT and HOST)`,
    );
    writeFileSync(join(dir, 'satgate.pid'), `${process.pid}\n`);
    const held = await findServer({ dataDir: dir, host: '127.0.0.1', port });
    expect(held.note).toContain(`the server of data directory ${dir} (pid ${process.pid}) does not answer at http://127.0.0.1:${port}`);
  });
});
