import type { SatgateMigration } from './helpers.ts';
import { foundation } from './0001-foundation.ts';

/** Every migration in order; append only, never edit a released one. */
export const MIGRATIONS: readonly SatgateMigration[] = [foundation];
