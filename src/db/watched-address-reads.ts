// The one large read of a start (issue 39): every address issued on a chain, for the watched set. On SQLite it
// streams rows as arrays of numbers from the read-only connection (no object, bigint or buffer per row);
// elsewhere it reads keyset pages, so a million addresses never sit in memory as a million row objects at once.
import { engineHandles, type Db } from './database.ts';
import type { WalletsTable } from './schema.ts';

type Chain = WalletsTable['mode'];

const PAGE = 50_000;

const WATCHED_SQL = 'select a.id, a.wallet_id, a.script_hex from addresses a join wallets w on w.id = a.wallet_id where w.mode = ? and a.id > ?';
const COUNT_SQL = 'select count(*), coalesce(max(a.id), 0) from addresses a join wallets w on w.id = a.wallet_id where w.mode = ? and a.id > ?';

/** Visits an address issued on the chain: ids as numbers (they are checked to stay below 2^53), its script as hex. */
export type WatchedAddressVisit = (addressId: number, walletId: number, scriptHex: string) => void;

/** How many addresses {@link forEachWatchedAddress} would visit, and the highest id among them. */
export interface WatchedAddressCount {
  addresses: number;
  maxId: bigint;
}

export async function countWatchedAddresses(db: Db, chain: Chain, afterId: bigint): Promise<WatchedAddressCount> {
  const { reader } = engineHandles(db);
  if (reader) {
    const [addresses, maxId] = reader.getRaw(COUNT_SQL, [chain, afterId]) as [bigint, bigint];
    return { addresses: Number(addresses), maxId };
  }
  const row = await db.kysely
    .selectFrom('addresses')
    .innerJoin('wallets', 'wallets.id', 'addresses.wallet_id')
    .select((eb) => [eb.fn.countAll<string | number | bigint>().as('n'), eb.fn.max('addresses.id').as('max_id')])
    .where('wallets.mode', '=', chain)
    .where('addresses.id', '>', afterId)
    .executeTakeFirstOrThrow();
  return { addresses: Number(row.n), maxId: row.max_id === null ? 0n : BigInt(row.max_id) };
}

function checkedNumber(id: bigint): number {
  if (id > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`address id ${id} is beyond what the watched set holds exactly`);
  return Number(id);
}

/** Visits each address issued on `chain` with an id above `afterId` (in id order where read in pages). */
export async function forEachWatchedAddress(db: Db, chain: Chain, afterId: bigint, visit: WatchedAddressVisit): Promise<void> {
  const { reader } = engineHandles(db);
  if (reader) {
    // Numbers, not bigints: checked once here rather than converted per row.
    checkedNumber((reader.getRaw('select coalesce(max(id), 0) from addresses', []) as [bigint])[0]);
    for (const row of reader.iterateNumbers(WATCHED_SQL, [chain, afterId])) visit(row[0] as number, row[1] as number, row[2] as string);
    return;
  }
  let after = afterId;
  for (;;) {
    const rows = await db.kysely
      .selectFrom('addresses')
      .innerJoin('wallets', 'wallets.id', 'addresses.wallet_id')
      .select(['addresses.id', 'addresses.wallet_id', 'addresses.script_hex'])
      .where('wallets.mode', '=', chain)
      .where('addresses.id', '>', after)
      .orderBy('addresses.id')
      .limit(PAGE)
      .execute();
    for (const r of rows) visit(checkedNumber(r.id), checkedNumber(r.wallet_id), r.script_hex);
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]!.id;
  }
}
