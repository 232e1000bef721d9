import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

/** Held while a server process owns the embedded database; CLI commands do not take it. */
export class ProcessLock {
  private constructor(private readonly file: string) {}

  /** Takes the lock file or throws naming the process that holds it; a stale lock (dead pid) is taken over. */
  static acquire(file: string): ProcessLock {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(file, 'wx', 0o600);
        writeSync(fd, `${process.pid}\n`);
        closeSync(fd);
        return new ProcessLock(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = Number(readFileSync(file, 'utf8').trim());
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
          throw new Error(
            `another satgate server (pid ${pid}) is using this data directory (${file}); ` +
              'stop it first, or use PostgreSQL (DATABASE_URL) to run several processes',
          );
        }
        unlinkSync(file);
      }
    }
    throw new Error(`could not take the lock file ${file}`);
  }

  /** Removes the lock file. */
  release(): void {
    try {
      unlinkSync(this.file);
    } catch {
      // already gone: nothing to release
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
