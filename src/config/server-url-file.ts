import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A running server names its URL in its data directory (beside satgate.lock), so that a CLI command pointed at the
// same data directory finds it without being told PORT and HOST again. Like the pid file, the URL only helps to
// find the server: the CLI still asks it (GET /health) before believing it is there.

/** The file, in a data directory, that names the URL of the server running on it. */
export function serverUrlFile(dataDir: string): string {
  return join(dataDir, 'satgate.url');
}

/** Writes `url` (a reader never sees half of it: written beside, then renamed over). */
export function writeServerUrl(dataDir: string, url: string): void {
  const file = serverUrlFile(dataDir);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${url}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/** Removes the file if it still names `url` (with PostgreSQL several servers may share one data directory). */
export function removeServerUrl(dataDir: string, url: string): void {
  if (readServerUrl(dataDir) === url) rmSync(serverUrlFile(dataDir), { force: true });
}

/** The URL a server wrote, or null when there is none (never started, stopped cleanly, or not an http URL). */
export function readServerUrl(dataDir: string): string | null {
  let text: string;
  try {
    text = readFileSync(serverUrlFile(dataDir), 'utf8').trim();
  } catch {
    return null;
  }
  return /^https?:\/\/[^\s/]+$/.test(text) ? text : null;
}

/** The URL a server listening on host:port answers at from this machine (loopback for a wildcard address). */
export function listenUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}
