import type { Db } from '../db/database.ts';

/** What credits and debits share: the amount, the transaction and its state, and the issued address concerned. */
interface AddressMovement {
  value: bigint;
  txid: string;
  state: 'mempool' | 'block';
  blockHeight: number | null;
  blockTime: number | null;
  firstSeenAt: number;
  locktime: number;
  addressId: bigint;
  address: string;
}

/** One output paying an issued address, with its transaction's state. */
export interface CreditRow extends AddressMovement {
  outputId: bigint;
  vout: number;
}

/** One input spending an output of an issued address. */
export interface DebitRow extends AddressMovement {
  spendId: bigint;
  vin: number;
  outputId: bigint;
}

/** Which addresses to read: one, or every address of a wallet. */
export type ActivityFilter = { addressId: bigint } | { walletId: bigint };

// What credits and debits share: the value of the output, its transaction, and the issued address.
const TX_AND_ADDRESS_COLUMNS = [
  'o.value_sats',
  't.txid',
  't.state',
  't.block_height',
  't.block_time',
  't.first_seen_at',
  't.locktime',
  'a.id as addressId',
  'a.address',
] as const;

function txAndAddress(r: {
  value_sats: bigint;
  txid: string;
  state: string;
  block_height: bigint | null;
  block_time: bigint | null;
  first_seen_at: bigint;
  locktime: bigint;
  addressId: bigint;
  address: string;
}) {
  return {
    value: r.value_sats,
    txid: r.txid,
    state: r.state as 'mempool' | 'block',
    blockHeight: r.block_height === null ? null : Number(r.block_height),
    blockTime: r.block_time === null ? null : Number(r.block_time),
    firstSeenAt: Number(r.first_seen_at),
    locktime: Number(r.locktime),
    addressId: r.addressId,
    address: r.address,
  };
}

/** Reads what the chain watcher recorded for addresses; withdrawn transactions are left out. */
export class AddressActivity {
  constructor(private readonly db: Db) {}

  /** Credits to the given addresses (all of a wallet's when `walletId` is given instead). */
  async credits(filter: ActivityFilter): Promise<CreditRow[]> {
    let q = this.db.kysely
      .selectFrom('chain_outputs as o')
      .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
      .innerJoin('addresses as a', 'a.id', 'o.address_id')
      .select(['o.id as outputId', 'o.vout', ...TX_AND_ADDRESS_COLUMNS])
      .where('t.state', '!=', 'withdrawn');
    q = 'addressId' in filter ? q.where('o.address_id', '=', filter.addressId) : q.where('a.wallet_id', '=', filter.walletId);
    const rows = await q.orderBy('t.first_seen_at').orderBy('o.id').execute();
    return rows.map((r) => ({ ...txAndAddress(r), outputId: r.outputId, vout: Number(r.vout) }));
  }

  /** Spends of outputs of the given addresses (all of a wallet's when `walletId` is given instead). */
  async debits(filter: ActivityFilter): Promise<DebitRow[]> {
    let q = this.db.kysely
      .selectFrom('chain_spends as s')
      .innerJoin('chain_txs as t', 't.id', 's.tx_id')
      .innerJoin('chain_outputs as o', 'o.id', 's.output_id')
      .innerJoin('addresses as a', 'a.id', 'o.address_id')
      .select(['s.id as spendId', 's.vin', 'o.id as outputId', ...TX_AND_ADDRESS_COLUMNS])
      .where('t.state', '!=', 'withdrawn');
    q = 'addressId' in filter ? q.where('o.address_id', '=', filter.addressId) : q.where('a.wallet_id', '=', filter.walletId);
    const rows = await q.orderBy('t.first_seen_at').orderBy('s.id').execute();
    return rows.map((r) => ({ ...txAndAddress(r), spendId: r.spendId, vin: Number(r.vin), outputId: r.outputId }));
  }

  /** The processed tip height of a chain, or null before the first block. */
  async tipHeight(chain: string): Promise<number | null> {
    const row = await this.db.kysely.selectFrom('chain_tips').select('tip_height').where('chain', '=', chain).executeTakeFirst();
    return row ? Number(row.tip_height) : null;
  }

  /** The latest order that reserved the address (the one its funds belong to). */
  async latestOrder(addressId: bigint) {
    return this.db.kysely
      .selectFrom('address_orders')
      .selectAll()
      .where('address_id', '=', addressId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Every order of a wallet, oldest first. */
  async walletOrders(walletId: bigint) {
    return this.db.kysely.selectFrom('address_orders').selectAll().where('wallet_id', '=', walletId).orderBy('id').execute();
  }
}

/** Confirmations of a transaction at a tip: tip − height + 1, or 0 while unmined. */
export function confirmations(state: string, blockHeight: number | null, tipHeight: number | null): number {
  if (state !== 'block' || blockHeight === null || tipHeight === null) return 0;
  return Math.max(0, tipHeight - blockHeight + 1);
}
