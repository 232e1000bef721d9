import type { SatgateMigration } from './helpers.ts';
import { foundation } from './0001-foundation.ts';
import { chain } from './0003-chain.ts';
import { payments } from './0004-payments.ts';

/** Every migration in order; append only, never edit a released one. */
export const MIGRATIONS: readonly SatgateMigration[] = [foundation, chain, payments];
