import { readFileSync } from 'node:fs';
import type { Config } from '../config/config.ts';
import { listenUrl, readServerUrl, serverUrlFile } from '../config/server-url-file.ts';
import { pidFileFor } from '../db/sqlite-lock.ts';

/** The server a CLI command talks to, and one line saying where that came from (for stderr). */
export interface FoundServer {
  url: string;
  /** Whether a server answered there. */
  answers: boolean;
  /** When none answered: the live process the data directory's pid file names, if any (it may still be starting). */
  pid?: number;
  note: string;
}

/** Whether anything answers HTTP at `url` (GET /health; any status counts). */
async function answers(url: string, timeoutMs: number): Promise<boolean> {
  try {
    await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    return true;
  } catch {
    return false;
  }
}

/** The pid in the data directory's pid file when that process is alive (only ever used to word a message). */
function livePid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(pidFileFor(`${dataDir}/satgate.lock`), 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) return null;
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

/**
 * Finds the running server for a CLI command: `--url` when given; else the URL the server of the data directory
 * wrote beside its lock file (it may listen on another PORT or HOST than this shell's environment says); else
 * HOST and PORT. The note names the data directory and the URL, so a wrong guess is visible.
 */
export async function findServer(config: Pick<Config, 'dataDir' | 'host' | 'port'>, given?: string, timeoutMs = 3_000): Promise<FoundServer> {
  if (given !== undefined) {
    const url = given.replace(/\/+$/, '');
    return { url, answers: await answers(url, timeoutMs), note: `satgate: server ${url} (--url)` };
  }
  const named = readServerUrl(config.dataDir);
  if (named !== null && (await answers(named, timeoutMs))) {
    return { url: named, answers: true, note: `satgate: server ${named} (named in ${serverUrlFile(config.dataDir)})` };
  }
  const url = listenUrl(config.host, config.port);
  const ok = url !== named && (await answers(url, timeoutMs));
  if (ok) return { url, answers: true, note: `satgate: server ${url} (HOST and PORT; data directory ${config.dataDir} names none)` };
  const pid = livePid(config.dataDir);
  const where = named !== null && named !== url ? `${named} (named in ${serverUrlFile(config.dataDir)}) or ${url}` : url;
  const note =
    pid !== null
      ? `satgate: the server of data directory ${config.dataDir} (pid ${pid}) does not answer at ${where}; is it still starting?`
      : `satgate: no server answers at ${where} (data directory ${config.dataDir}; set SATGATE_DATA_DIR to the server's, or PORT and HOST)`;
  return { url: named ?? url, answers: false, note, ...(pid !== null ? { pid } : {}) };
}
