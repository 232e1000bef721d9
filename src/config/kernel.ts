// What every capability is built on, passed as one bundle instead of five fields repeated in each factory's deps.
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import type { Config } from './config.ts';

/** The process's database, clock, logger, master key and configuration (built once in app/create-context.ts). */
export interface Kernel<C = Config> {
  db: Db;
  clock: Clock;
  log: Logger;
  masterKey: MasterKey;
  /** Each factory narrows it to the settings it reads (`Kernel<Pick<Config, …>>`). */
  config: C;
}
