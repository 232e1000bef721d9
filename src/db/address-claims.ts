// Engine-specific statements for issuing addresses without serialising a wallet's issuers (issue 16).
// PostgreSQL claims rows with FOR UPDATE SKIP LOCKED, so concurrent issuers of one wallet take different
// rows instead of queueing on the wallet row; SQLite has one writer, so the same statements need no lock.
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './schema.ts';
import type { AddressesTable } from './schema.ts';
import type { Selectable } from 'kysely';

type Trx = Transaction<Database>;
type AddressRow = Selectable<AddressesTable>;

/** How a claimed address is issued. */
export interface IssueAs {
  purpose: string;
  createdAt: number;
  reservedUntil: bigint | null;
}

/**
 * Moves the wallet's lowest pooled address of `scriptType` into `addresses`, issued as `as`, in the
 * caller's transaction: the pool row is deleted by the same transaction that inserts the address, so an
 * index is issued at most once and a rollback returns it to the pool. Undefined when the pool is empty
 * (or every pooled row is being claimed by another transaction right now), or has none up to `maxIndex`.
 */
export async function claimPooledAddress(
  trx: Trx,
  /** The database `trx` runs on. */
  db: Pick<Db, 'engine'>,
  walletId: bigint,
  scriptType: string,
  as: IssueAs,
  /** The highest index that may be issued (an order's gap-limit window); none: any. */
  maxIndex?: number,
): Promise<AddressRow | undefined> {
  const createdAt = BigInt(as.createdAt);
  const bound = maxIndex === undefined ? sql`` : sql` and derivation_index <= ${BigInt(maxIndex)}`;
  if (db.engine === 'postgres') {
    const { rows } = await sql<AddressRow>`
      with claimed as (
        delete from address_pool where id = (
          select id from address_pool where wallet_id = ${walletId} and script_type = ${scriptType}${bound}
          order by derivation_index limit 1 for update skip locked)
        returning wallet_id, derivation_index, address, script_hex)
      insert into addresses (wallet_id, derivation_index, address, script_hex, created_at, reserved_until, purpose)
      select wallet_id, derivation_index, address, script_hex, ${createdAt}, ${as.reservedUntil}, ${as.purpose} from claimed
      returning *`.execute(trx);
    return rows[0];
  }
  const { rows } = await sql<{ derivation_index: bigint; address: string; script_hex: string }>`
    delete from address_pool where id = (
      select id from address_pool where wallet_id = ${walletId} and script_type = ${scriptType}${bound} order by derivation_index limit 1)
    returning derivation_index, address, script_hex`.execute(trx);
  const claimed = rows[0];
  if (!claimed) return undefined;
  return trx
    .insertInto('addresses')
    .values({ wallet_id: walletId, derivation_index: claimed.derivation_index, address: claimed.address, script_hex: claimed.script_hex, created_at: createdAt, reserved_until: as.reservedUntil, purpose: as.purpose })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Reserves the wallet's lowest-index order address that was never funded and whose reservation lapsed at or
 * before `lapsedBy` (the grace period before reuse is the caller's: now less the grace), until `until`, in one
 * statement; undefined when there is none. On PostgreSQL a row another transaction is reserving right now is
 * skipped rather than waited for.
 */
export async function reserveFreeOrderAddress(
  trx: Trx,
  /** The database `trx` runs on. */
  db: Pick<Db, 'engine'>,
  walletId: bigint,
  lapsedBy: number,
  until: number,
  /** Only this address (one whose history was just checked), if it is still free. */
  onlyId?: bigint,
  /** The highest index that may be reserved (the gap-limit window); none: any. */
  maxIndex?: number,
): Promise<AddressRow | undefined> {
  const skipLocked = db.engine === 'postgres' ? sql` for update skip locked` : sql``;
  const only = sql`${onlyId === undefined ? sql`` : sql` and id = ${onlyId}`}${maxIndex === undefined ? sql`` : sql` and derivation_index <= ${BigInt(maxIndex)}`}`;
  const { rows } = await sql<AddressRow>`
    update addresses set reserved_until = ${BigInt(until)} where id = (${lowestFreeOrderId(walletId, lapsedBy, only, skipLocked)})
    returning *`.execute(trx);
  return rows[0];
}

/**
 * The id of the lowest free order address: the lower of the lowest never reserved and the lowest whose reservation
 * lapsed (`only`: just that address; `lock`: PostgreSQL's row lock). A free address is either;
 * asked as one condition (`is null or <= now`) neither engine could range-scan the partial index
 * addresses_free_orders (wallet, reserved_until, index), and SQLite walked every address of the wallet in index
 * order instead: set_addr slowed with every address the wallet had issued (about 240 µs after 25,000). Asked
 * apart, each is a range of that index. `+derivation_index` keeps SQLite from ordering by the other index;
 * 'order' is a literal so that the partial index's predicate is seen to hold.
 */
function lowestFreeOrderId(walletId: bigint, lapsedBy: number, only: RawBuilder<unknown>, lock: RawBuilder<unknown>) {
  const candidate = (reservation: RawBuilder<unknown>) => sql`select id, derivation_index from addresses
    where wallet_id = ${walletId} and purpose = 'order' and first_funded_at is null and ${reservation}${only}
    order by +derivation_index limit 1${lock}`;
  return sql`select id from (
      select * from (${candidate(sql`reserved_until is null`)}) never_reserved
      union all
      select * from (${candidate(sql`reserved_until <= ${BigInt(lapsedBy)}`)}) lapsed
    ) candidates order by derivation_index limit 1`;
}

/** The address reserveFreeOrderAddress would reserve with the same `lapsedBy`, read without reserving it. */
export async function lowestFreeOrderAddress(db: Kysely<Database>, walletId: bigint, lapsedBy: number): Promise<AddressRow | undefined> {
  const { rows } = await sql<AddressRow>`
    select * from addresses where id = (${lowestFreeOrderId(walletId, lapsedBy, sql``, sql``)})`.execute(db);
  return rows[0];
}

/** The wallet's last used address: the highest index that ever received funds (mempool included), or -1. */
export async function lastFundedIndex(db: Kysely<Database>, walletId: bigint): Promise<number> {
  const { rows } = await sql<{ last: unknown }>`
    select max(derivation_index) as last from addresses where wallet_id = ${walletId} and first_funded_at is not null`.execute(db);
  const last = rows[0]?.last;
  return last === null || last === undefined ? -1 : Number(last);
}

/**
 * When the first order address of the wallet within indexes (`after`, `upTo`] that is held now becomes free: the
 * earliest end of their reservations plus `graceMs`; null when none of them will by itself (all funded, or issued
 * for payment requests).
 */
export async function nextOrderAddressFreeAt(db: Kysely<Database>, walletId: bigint, after: number, upTo: number, graceMs: number): Promise<number | null> {
  const { rows } = await sql<{ ends: unknown }>`
    select min(reserved_until) as ends from addresses
    where wallet_id = ${walletId} and purpose = 'order' and first_funded_at is null and reserved_until is not null
      and derivation_index > ${BigInt(after)} and derivation_index <= ${BigInt(upTo)}`.execute(db);
  const ends = rows[0]?.ends;
  return ends === null || ends === undefined ? null : Number(ends) + graceMs;
}

/** The next index to derive for a wallet: one past the highest issued or pooled index (0 for none). */
export async function nextDerivationIndex(db: Kysely<Database>, walletId: bigint): Promise<number> {
  const { rows } = await sql<{ issued: bigint | null; pooled: bigint | null }>`
    select (select max(derivation_index) from addresses where wallet_id = ${walletId}) as issued,
           (select max(derivation_index) from address_pool where wallet_id = ${walletId}) as pooled`.execute(db);
  const r = rows[0];
  const max = [r?.issued, r?.pooled].reduce<number>((m, v) => (v === null || v === undefined ? m : Math.max(m, Number(v))), -1);
  return max + 1;
}
