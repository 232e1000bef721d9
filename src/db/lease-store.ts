// The lease row behind the singleton role: taken when free or expired, renewed by its holder, compared on
// the database's clock so processes on different machines agree on expiry. One UPDATE (or INSERT) per call:
// it works through PgBouncer in transaction mode, where session advisory locks silently would not.
import { sql } from 'kysely';
import type { Db } from './database.ts';
import { DB_NOW_MS } from './fencing.ts';

/** A held lease as its holder knows it. */
export interface HeldLease {
  token: bigint;
  acquiredAt: number;
  renewedAt: number;
  expiresAt: number;
}

/** Who holds a lease, as anyone can read it. */
export interface LeaseRow extends HeldLease {
  holder: string;
  /** The database's clock at the read (epoch ms). */
  now: number;
}

const NOW = sql.raw(DB_NOW_MS);

/** Lease operations on PostgreSQL. */
export class LeaseStore {
  constructor(private readonly db: Db) {}

  /** Takes the lease when nobody holds it or its holder let it expire; null when another holds it. */
  async tryAcquire(name: string, holder: string, ms: number): Promise<HeldLease | null> {
    const { rows } = await sql<{ token: bigint; acquired_at: bigint; renewed_at: bigint; expires_at: bigint }>`
      insert into leases (name, holder, token, acquired_at, renewed_at, expires_at)
      values (${name}, ${holder}, 1, ${NOW}, ${NOW}, ${NOW} + ${ms})
      on conflict (name) do update
        set holder = excluded.holder, token = leases.token + 1, acquired_at = excluded.acquired_at,
            renewed_at = excluded.renewed_at, expires_at = excluded.expires_at
        where leases.expires_at <= ${NOW}
      returning token, acquired_at, renewed_at, expires_at`.execute(this.db.kysely);
    return rows[0] ? held(rows[0]) : null;
  }

  /** Extends a held lease; null when it is no longer ours (expired and taken, or never ours). */
  async renew(name: string, holder: string, token: bigint, ms: number): Promise<HeldLease | null> {
    const { rows } = await sql<{ token: bigint; acquired_at: bigint; renewed_at: bigint; expires_at: bigint }>`
      update leases set renewed_at = ${NOW}, expires_at = ${NOW} + ${ms}
       where name = ${name} and holder = ${holder} and token = ${token} and expires_at > ${NOW}
      returning token, acquired_at, renewed_at, expires_at`.execute(this.db.kysely);
    return rows[0] ? held(rows[0]) : null;
  }

  /** Gives a held lease up at once (a clean shutdown), so a follower need not wait for it to expire. */
  async release(name: string, holder: string, token: bigint): Promise<void> {
    await sql`update leases set expires_at = ${NOW} where name = ${name} and holder = ${holder} and token = ${token}`.execute(this.db.kysely);
  }

  /** The lease's current row, if it was ever taken. */
  async read(name: string): Promise<LeaseRow | null> {
    const { rows } = await sql<{ holder: string; token: bigint; acquired_at: bigint; renewed_at: bigint; expires_at: bigint; now: bigint }>`
      select holder, token, acquired_at, renewed_at, expires_at, ${NOW} as now from leases where name = ${name}`.execute(this.db.kysely);
    const r = rows[0];
    return r ? { holder: r.holder, now: Number(r.now), ...held(r) } : null;
  }
}

function held(r: { token: bigint; acquired_at: bigint; renewed_at: bigint; expires_at: bigint }): HeldLease {
  return { token: BigInt(r.token), acquiredAt: Number(r.acquired_at), renewedAt: Number(r.renewed_at), expiresAt: Number(r.expires_at) };
}
