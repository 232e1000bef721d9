import { existsSync } from 'node:fs';
import { loadConfig, type Config } from '../config/config.ts';
import { openDb, dbTargetFromConfig, missingDatabaseFile, type Db } from '../db/database.ts';
import { prepareSchema } from '../db/schema-version.ts';
import { MasterKey } from '../security/master-key.ts';
import { UsageError } from './command.ts';

/** Opens the configured database for a short CLI command (alongside a running server is fine). */
export async function openStore(): Promise<{ config: Config; db: Db }> {
  const config = loadConfig();
  const target = dbTargetFromConfig(config);
  const missing = missingDatabaseFile(target);
  if (missing !== null) {
    throw new UsageError(`no database at ${missing}: start the server once (npm start) or run "satgate migrate"`);
  }
  const db = openDb(target);
  try {
    await prepareSchema(db, config.autoMigrate);
  } catch (err) {
    await db.close();
    throw err;
  }
  return { config, db };
}

/** Loads the existing master key; a CLI command never creates one. */
export function loadMasterKey(config: Config): MasterKey {
  if (!existsSync(config.masterKeyFile)) {
    throw new UsageError(`master key file ${config.masterKeyFile} is missing (SATGATE_MASTER_KEY_FILE)`);
  }
  return MasterKey.loadOrCreate(config.masterKeyFile).masterKey;
}
