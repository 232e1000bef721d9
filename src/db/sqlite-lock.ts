import { closeSync, openSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';

/**
 * Held while a server process owns the embedded database; CLI commands do not take it.
 *
 * The lock is an exclusive SQLite transaction on a side database file (`satgate.lock`), which SQLite takes with
 * an `fcntl` lock: the kernel drops it when the process dies, however it dies (SIGKILL, OOM, power loss of a
 * container), so a crash never blocks the next start. A pid file was not enough: `kill(pid, 0)` succeeds on a
 * zombie and on any process that later reuses the pid. The pid beside it (`satgate.pid`) only names the holder in
 * the refusal message; it is never trusted to decide anything.
 */
export class ProcessLock {
  private constructor(
    private readonly handle: BetterSqlite3.Database,
    private readonly pidFile: string,
  ) {}

  /** Takes the lock or throws naming the process that holds it. */
  static acquire(file: string): ProcessLock {
    createPrivate(file);
    const handle = new BetterSqlite3(file, { timeout: 0 });
    const pidFile = pidFileFor(file);
    try {
      // A rollback journal (not WAL: WAL readers never block) and an exclusive transaction that is never
      // committed: nobody else can even read the file while we live. No write happens, so no journal is left.
      handle.pragma('journal_mode = DELETE');
      handle.exec('BEGIN EXCLUSIVE');
    } catch (err) {
      handle.close();
      if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
      const pid = readPid(pidFile);
      throw new Error(
        `another satgate server (pid ${pid ?? 'unknown'}) is using this data directory (${file}); ` +
          'stop it first, or use PostgreSQL (DATABASE_URL) to run several processes',
      );
    }
    writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 });
    chmodSync(pidFile, 0o600);
    return new ProcessLock(handle, pidFile);
  }

  /** Releases the lock (the kernel would on exit anyway); the files stay for the next start. */
  release(): void {
    if (!this.handle.open) return;
    try {
      writeFileSync(this.pidFile, '');
    } catch {
      // the pid file is only informative
    }
    this.handle.close();
  }
}

/** The informative pid file that goes with a lock file. */
export function pidFileFor(lockFile: string): string {
  return lockFile.replace(/\.lock$/, '') + '.pid';
}

/** Creates the file (if absent) readable by its owner only, and tightens an existing one. */
export function createPrivate(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}

function readPid(pidFile: string): number | null {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
