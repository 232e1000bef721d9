import { existsSync } from 'node:fs';
import { loadConfig } from '../../config/config.ts';
import { openDb, dbTargetFromConfig, embeddedFile } from '../../db/database.ts';
import { ProcessLock } from '../../db/sqlite-lock.ts';
import { copyDatabase } from '../../db/db-copy.ts';
import { UsageError, type Command } from '../command.ts';
import { say, warn } from '../output.ts';

/** `satgate db copy`: moving the embedded SQLite database to PostgreSQL. */
export const dbCommands: Command[] = [
  {
    path: ['db', 'copy'],
    summary: 'copy the embedded SQLite database into an empty PostgreSQL database (server stopped)',
    usage:
      'satgate db copy --to postgres://user:pass@host:5432/dbname\n\n' +
      'Reads the SQLite database of SATGATE_DATA_DIR (the server must be stopped: its lock file says so), creates the\n' +
      'schema in the target with the same migrations, copies every row in batches and verifies row counts and a\n' +
      'checksum per table. The target must be empty. Afterwards set DATABASE_URL to it and start the server.',
    run: async (args) => {
      const i = args.indexOf('--to');
      const url = i >= 0 ? args[i + 1] : undefined;
      if (!url || !/^postgres(ql)?:\/\//.test(url)) throw new UsageError('--to postgres://… is required (the empty target database)');
      const config = loadConfig({ ...process.env, DATABASE_URL: '' });
      const source = dbTargetFromConfig(config);
      const file = embeddedFile(source);
      if (file === null || !existsSync(file)) throw new UsageError(`no SQLite database at ${config.dataDir}/satgate.sqlite (SATGATE_DATA_DIR)`);
      // The server holds this lock while it runs; a copy of a database still being written would be wrong.
      const lock = ProcessLock.acquire(`${config.dataDir}/satgate.lock`);
      const from = openDb(source);
      const to = openDb({ engine: 'postgres', url, poolSize: 2 });
      try {
        const started = Date.now();
        const report = await copyDatabase(from, to, { progress: (line) => warn`${line}` });
        const rows = report.reduce((n, t) => n + t.rows, 0);
        say`copied ${report.length} tables, ${rows} rows, verified, in ${Date.now() - started} ms; now set DATABASE_URL and start the server`;
      } finally {
        await from.close();
        await to.close();
        lock.release();
      }
    },
  },
];
