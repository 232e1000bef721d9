import { existsSync } from 'node:fs';
import { loadConfig } from '../../config/config.ts';
import { openDb, dbTargetFromConfig, embeddedFile } from '../../db/database.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { readSchemaState } from '../../db/schema-version.ts';
import { MasterKey } from '../../security/master-key.ts';
import { BackupError, backupSqlite, manifestPath, restoreSqlite } from '../../ops/backup.ts';
import { formatFindings, runDoctor } from '../../ops/doctor.ts';
import { formatStatus, statusFromDatabase, statusFromServer } from '../../ops/chain-status.ts';
import { findServer } from '../find-server.ts';
import { UsageError, type Command } from '../command.ts';
import { loadMasterKey } from '../open-store.ts';
import { say, sayJson, sayText, warnText } from '../output.ts';

const PG_BACKUP_HELP =
  'On PostgreSQL use its own tools while satgate runs: pg_dump --format=custom --file=satgate.dump "$DATABASE_URL" ' +
  '(consistent: one snapshot), and restore with pg_restore --dbname=<empty database> satgate.dump. Keep the master ' +
  'key file (SATGATE_MASTER_KEY_FILE) with it, separately: the dump cannot be used without it.';

/** Operating commands: doctor, backup, restore, db migrate, db version. */
export const opsCommands: Command[] = [
  {
    path: ['doctor'],
    summary: 'check the configuration, database, master key, chain sources, rates, SMTP and public URL; exit 1 if any check fails',
    usage: 'satgate doctor\n\nReads the same environment variables as "satgate start"; safe to run beside a running server.',
    run: async () => {
      const findings = await runDoctor();
      sayText(formatFindings(findings));
      return findings.some((f) => f.verdict === 'fail') ? 1 : 0;
    },
  },
  {
    path: ['status'],
    summary: "each network's chain source, tip, lag, verification and last error; from the running server, else from the database",
    usage:
      'satgate status [--json] [--url URL]\n\nAsks the running server (GET /health at URL, else at the URL the server of SATGATE_DATA_DIR wrote\n' +
      'there, else at HOST:PORT); when nothing answers, reads\n' +
      'the configuration and the database instead. Exit code 0 when every chain is ok, 1 when one is not\n' +
      '(stalled, a recent lie, failing polls), 3 when the server is not running.',
    run: async (args) => {
      const known = new Set(['--json', '--url']);
      for (let i = 0; i < args.length; i++) {
        if (!known.has(args[i]!)) throw new UsageError(`unknown option ${args[i]}; usage: satgate status [--json] [--url URL]`);
        if (args[i] === '--url') i++;
      }
      const at = args.indexOf('--url');
      const given = at >= 0 ? args[at + 1] : undefined;
      if (at >= 0 && (!given || !/^https?:\/\//.test(given))) throw new UsageError('--url needs the server address, e.g. http://127.0.0.1:8080');
      const config = loadConfig();
      const server = await findServer(config, given);
      warnText(server.note);
      const report = (server.answers ? await statusFromServer(server.url) : null) ?? (await statusFromDatabase(config, `${server.url}/health`));
      if (args.includes('--json')) sayJson(report, 2);
      else sayText(formatStatus(report));
      if (!report.running) return 3;
      return report.chains.some((c) => c.ok === false) ? 1 : 0;
    },
  },
  {
    path: ['backup'],
    summary: 'take a consistent backup of the embedded database while the server runs, with the master key fingerprint beside it',
    usage: 'satgate backup --to FILE\n\nWrites FILE (SQLite online backup, mode 0600) and FILE.fingerprint (which master key it needs; never the key).',
    run: async (args) => {
      const at = args.indexOf('--to');
      const to = at >= 0 ? args[at + 1] : undefined;
      if (!to || to.startsWith('-')) throw new UsageError('usage: satgate backup --to FILE');
      const config = loadConfig();
      const target = dbTargetFromConfig(config);
      const file = embeddedFile(target);
      if (file === null) throw new UsageError(`satgate backup copies the embedded SQLite database. ${PG_BACKUP_HELP}`);
      try {
        const m = await backupSqlite(file, to, loadMasterKey(config));
        say`backup written: ${to} (${m.bytes} bytes, schema version ${m.schema_version})\nmaster key fingerprint ${m.master_key_fingerprint} in ${manifestPath(to)}; back up the key file itself separately`;
      } catch (err) {
        if (err instanceof BackupError) throw new UsageError(err.message);
        throw err;
      }
    },
  },
  {
    path: ['restore'],
    summary: 'restore a backup into an empty data directory; refuses a master key that does not match the backup',
    usage: 'satgate restore FILE\n\nPut the master key file back first (SATGATE_MASTER_KEY_FILE); SATGATE_DATA_DIR must hold nothing else.',
    run: async (args) => {
      const file = args.find((a) => !a.startsWith('-'));
      if (!file) throw new UsageError('usage: satgate restore FILE');
      const config = loadConfig();
      const target = dbTargetFromConfig(config);
      const dbFile = embeddedFile(target);
      if (dbFile === null) throw new UsageError(`satgate restore writes the embedded SQLite database. ${PG_BACKUP_HELP}`);
      const key = existsSync(config.masterKeyFile) ? MasterKey.loadOrCreate(config.masterKeyFile).masterKey : null;
      try {
        const m = restoreSqlite(file, config.dataDir, dbFile, config.masterKeyFile, key);
        say`restored ${file} (schema version ${m.schema_version}, taken ${m.created_at}) to ${dbFile}; start satgate there`;
      } catch (err) {
        if (err instanceof BackupError) throw new UsageError(err.message);
        throw err;
      }
    },
  },
  {
    path: ['db', 'migrate'],
    summary: 'apply pending database migrations and exit (stop every satgate process and back up first)',
    usage: 'satgate db migrate\n\nNeeded on PostgreSQL, where SATGATE_AUTO_MIGRATE is off by default, after an upgrade.',
    run: async () => {
      const config = loadConfig();
      const db = openDb(dbTargetFromConfig(config));
      try {
        const before = await readSchemaState(db);
        const applied = await migrateToLatest(db);
        if (applied.length) say`schema version ${before.database} -> ${before.binary}; applied: ${applied.join(', ')}`;
        else say`schema version ${before.database} is current`;
      } finally {
        await db.close();
      }
    },
  },
  {
    path: ['db', 'version'],
    summary: "print the database's schema version and the one this satgate needs",
    usage: 'satgate db version',
    run: async () => {
      const config = loadConfig();
      const db = openDb(dbTargetFromConfig(config));
      try {
        const s = await readSchemaState(db);
        say`database schema version ${s.database}; this satgate: ${s.binary}${s.pending.length ? ` (pending: ${s.pending.join(', ')})` : ''}${s.unknown.length ? ` (unknown, newer: ${s.unknown.join(', ')})` : ''}`;
        return s.unknown.length > 0 ? 1 : 0;
      } finally {
        await db.close();
      }
    },
  },
];
