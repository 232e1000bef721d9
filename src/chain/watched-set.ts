import { ScriptIndex } from '../bitcoin/script-index.ts';
import type { Db } from '../db/database.ts';
import type { ChainId } from './chain-id.ts';

/** How far below the highest id seen loadNew looks again for inserts that committed late. */
const OUT_OF_ORDER_WINDOW = 1000n;

/** An issued address the watcher matches outputs against. */
export interface WatchedAddress {
  addressId: bigint;
  walletId: bigint;
}

/**
 * The scripts of every address issued on one chain, and every watched output (so spends are seen),
 * held in memory: matching a block costs lookups proportional to the block, not to the address count.
 */
export class WatchedSet {
  readonly scripts = new ScriptIndex<WatchedAddress>();
  /** `txid:vout` of every recorded output paying a watched script, to its chain_outputs id. */
  readonly outpoints = new Map<string, bigint>();
  /** Each watched address's script, for the light watcher, which asks its server per script. */
  readonly scriptsById = new Map<bigint, Uint8Array>();

  /** Highest address id loaded so far (see loadNew). */
  private maxAddressId = 0n;

  constructor(readonly chain: ChainId) {}

  /**
   * Adds addresses issued since the last load, by any process sharing the database (several API processes on
   * PostgreSQL). Ids commit out of order under concurrency, so it re-reads a window below the highest id seen.
   */
  async loadNew(db: Db): Promise<void> {
    const rows = await db.kysely
      .selectFrom('addresses')
      .innerJoin('wallets', 'wallets.id', 'addresses.wallet_id')
      .select(['addresses.id', 'addresses.wallet_id', 'addresses.script_hex'])
      .where('wallets.mode', '=', this.chain)
      .where('addresses.id', '>', this.maxAddressId - OUT_OF_ORDER_WINDOW)
      .execute();
    for (const r of rows) this.addScript(Buffer.from(r.script_hex, 'hex'), { addressId: r.id, walletId: r.wallet_id });
  }

  /** Loads every issued address and recorded output of the chain from the database. */
  async load(db: Db): Promise<void> {
    const rows = await db.kysely
      .selectFrom('addresses')
      .innerJoin('wallets', 'wallets.id', 'addresses.wallet_id')
      .select(['addresses.id', 'addresses.wallet_id', 'addresses.script_hex'])
      .where('wallets.mode', '=', this.chain)
      .execute();
    for (const r of rows) this.addScript(Buffer.from(r.script_hex, 'hex'), { addressId: r.id, walletId: r.wallet_id });
    const outputs = await db.kysely
      .selectFrom('chain_outputs')
      .innerJoin('chain_txs', 'chain_txs.id', 'chain_outputs.tx_id')
      .select(['chain_outputs.id', 'chain_txs.txid', 'chain_outputs.vout'])
      .where('chain_txs.chain', '=', this.chain)
      .execute();
    for (const o of outputs) this.outpoints.set(`${o.txid}:${o.vout}`, o.id);
  }

  /** Starts watching a script (a newly issued address). */
  addScript(script: Uint8Array, address: WatchedAddress): void {
    if (address.addressId > this.maxAddressId) this.maxAddressId = address.addressId;
    if (!this.scripts.has(script)) this.scripts.add(script, address);
    this.scriptsById.set(address.addressId, script);
  }

  get size(): number {
    return this.scripts.size;
  }
}
