import type { CreateTableBuilder, Kysely } from 'kysely';
import type { Engine } from '../database.ts';

/** One forward-only migration; `engine` lets the few engine-specific column forms differ. */
export interface SatgateMigration {
  name: string;
  up(db: Kysely<any>, engine: Engine): Promise<void>;
}

/** Adds an auto-numbered BIGINT primary key `id` in the form each engine expects. */
export function withId<T extends string>(table: CreateTableBuilder<T, never>, engine: Engine): CreateTableBuilder<T, 'id'> {
  return engine === 'sqlite'
    ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    : table.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity());
}
