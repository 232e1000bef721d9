// Which addresses a light server is asked about, and how often. Per-address mode (Electrum, or a server
// without whole blocks): hot, warm and cold addresses of one chain, so a light server is asked often only about the addresses
// that can change now. Hot: issued in the last day, reserved for an open order or payment request, or
// with an unconfirmed or not yet final transaction. Warm: such activity in the last three days. Cold: the rest.
import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { ChainId } from '../chain-id.ts';

export type Tier = 'hot' | 'warm' | 'cold';

const DAY = 86_400_000;
/** Confirmations after which a transaction no longer keeps its address hot. */
export const FINAL_CONFIRMATIONS = 6;

export async function addressTiers(db: Db, chain: ChainId, now: number, tipHeight: number): Promise<Map<bigint, Tier>> {
  const rows = await db.kysely
    .selectFrom('addresses')
    .innerJoin('wallets', 'wallets.id', 'addresses.wallet_id')
    .select(['addresses.id', 'addresses.created_at', 'addresses.reserved_until', 'addresses.first_funded_at'])
    .where('wallets.mode', '=', chain)
    .execute();
  const open = await db.kysely
    .selectFrom('payments')
    .innerJoin('wallets', 'wallets.id', 'payments.wallet_id')
    .select(['payments.address_id', 'payments.monitor_until'])
    .where('wallets.mode', '=', chain)
    .where('payments.monitor_until', '>', BigInt(now - 3 * DAY))
    .execute();
  const [outputs, spends] = unsettledQueries(db, chain, BigInt(tipHeight - FINAL_CONFIRMATIONS + 1));
  const unsettled = await outputs.union(spends).execute();
  const tiers = new Map<bigint, Tier>();
  const recent = (t: bigint | null, span: number) => t !== null && Number(t) > now - span;
  for (const r of rows) {
    const hot = recent(r.created_at, DAY) || (r.reserved_until !== null && Number(r.reserved_until) > now);
    const warm = recent(r.reserved_until, 3 * DAY) || recent(r.first_funded_at, 3 * DAY) || recent(r.created_at, 3 * DAY);
    tiers.set(r.id, hot ? 'hot' : warm ? 'warm' : 'cold');
  }
  for (const p of open) tiers.set(p.address_id, Number(p.monitor_until) > now ? 'hot' : tiers.get(p.address_id) === 'hot' ? 'hot' : 'warm');
  for (const u of unsettled) tiers.set(u.address_id, 'hot');
  return tiers;
}

/**
 * Addresses of unpaid payments whose monitoring window ends within `withinMs`: with several servers, these are
 * asked of every healthy one each poll, so one server's omission never lets an order expire (server-pool.ts).
 */
export async function closingAddresses(db: Db, chain: ChainId, now: number, withinMs: number): Promise<Set<bigint>> {
  const rows = await db.kysely
    .selectFrom('payments')
    .innerJoin('wallets', 'wallets.id', 'payments.wallet_id')
    .select('payments.address_id')
    .where('wallets.mode', '=', chain)
    .where('payments.status', '=', 'unpaid')
    .where('payments.monitor_until', '>', BigInt(now))
    .where('payments.monitor_until', '<=', BigInt(now + withinMs))
    .execute();
  return new Set(rows.map((r) => r.address_id));
}

/** Statuses of a payment still waiting for (more) money. */
const WAITING = ['unpaid', 'unconfirmed-less', 'confirmed-less'];

/**
 * The addresses worth asking a light server about between blocks when confirmations come from blocks
 * (block-scan.ts): those money is expected at now (an open order or form's reservation, a payment request
 * or payment waiting for money within its window) and those with a transaction still waiting in the
 * mempool (only asking shows it replaced or evicted). Being recent or recently paid is no reason: every
 * block is scanned for every address, so the rest cost no request at all.
 */
export async function expectingAddresses(db: Db, chain: ChainId, now: number): Promise<Set<bigint>> {
  const [waitingOutputs, waitingSpends] = unsettledQueries(db, chain, null);
  const reserved = db.kysely
    .selectFrom('addresses')
    .innerJoin('wallets', 'wallets.id', 'addresses.wallet_id')
    .select('addresses.id as address_id')
    .where('wallets.mode', '=', chain)
    .where('addresses.reserved_until', '>', BigInt(now));
  const rows = await reserved
    .union(
      db.kysely
        .selectFrom('payments')
        .innerJoin('wallets', 'wallets.id', 'payments.wallet_id')
        .select('payments.address_id')
        .where('wallets.mode', '=', chain)
        .where('payments.monitor_until', '>', BigInt(now))
        .where('payments.status', 'in', WAITING),
    )
    .union(waitingOutputs)
    .union(waitingSpends)
    .execute();
  return new Set(rows.map((r) => r.address_id));
}

/**
 * The addresses of transactions not yet settled: paid by one (its outputs) or spent by one (our refunds and
 * withdrawals: their inputs' addresses, so a replacement is seen), waiting in the mempool or, given
 * `minedAbove`, mined above that height. Two queries for the caller's union (SQLite cannot nest a union).
 */
function unsettledQueries(db: Db, chain: ChainId, minedAbove: bigint | null) {
  const unsettled = (eb: ExpressionBuilder<Database, 'chain_txs'>) =>
    minedAbove === null ? eb('chain_txs.state', '=', 'mempool') : eb.or([eb('chain_txs.state', '=', 'mempool'), eb('chain_txs.block_height', '>', minedAbove)]);
  const outputs = db.kysely
    .selectFrom('chain_outputs')
    .innerJoin('chain_txs', 'chain_txs.id', 'chain_outputs.tx_id')
    .select('chain_outputs.address_id')
    .where('chain_txs.chain', '=', chain)
    .where(unsettled);
  const spends = db.kysely
    .selectFrom('chain_spends')
    .innerJoin('chain_txs', 'chain_txs.id', 'chain_spends.tx_id')
    .innerJoin('chain_outputs', 'chain_outputs.id', 'chain_spends.output_id')
    .select('chain_outputs.address_id')
    .where('chain_txs.chain', '=', chain)
    .where(unsettled);
  return [outputs, spends] as const;
}
