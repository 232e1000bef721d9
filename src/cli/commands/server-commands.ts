import type { Command } from '../command.ts';
import { say } from '../output.ts';

/** `satgate start` and `satgate migrate`. */
export const serverCommands: Command[] = [
  {
    path: ['start'],
    summary: 'run the service (API, pages, chain watcher, rates, outbox workers)',
    usage:
      'satgate start [--dev]\n\nConfigured by environment variables; see README.md. With no node configured a clone runs the ' +
      'built-in development chain (bcoin); --dev insists on it and says how to get it when it is not installed.',
    run: async (args) => {
      // Loaded on demand: the server pulls in every module (and the dev chain), which would slow every other command.
      const { runServer } = await import('../../app/run-server.ts');
      await runServer(undefined, { dev: args.includes('--dev') });
      return -1;
    },
  },
  {
    path: ['migrate'],
    summary: 'apply pending database migrations and exit',
    usage: 'satgate migrate',
    run: async () => {
      // Loaded here, not at the top: `satgate start` loads this file first and must not wait for the database modules.
      const [{ loadConfig }, { openDb, dbTargetFromConfig }, { migrateToLatest }] = await Promise.all([
        import('../../config/config.ts'),
        import('../../db/database.ts'),
        import('../../db/migrate.ts'),
      ]);
      const config = loadConfig();
      const db = openDb(dbTargetFromConfig(config));
      try {
        const applied = await migrateToLatest(db);
        if (applied.length) say`applied: ${applied.join(', ')}`;
        else say`database schema is current`;
      } finally {
        await db.close();
      }
    },
  },
];
