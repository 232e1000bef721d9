import type { Db } from '../db/database.ts';
import { countWatchedAddresses, forEachWatchedAddress } from '../db/watched-address-reads.ts';
import type { ChainId } from './chain-id.ts';
import { CompactScripts, type WatchedAddress } from './compact-scripts.ts';

export type { WatchedAddress } from './compact-scripts.ts';

/** How far below the highest id seen loadNew looks again for inserts that committed late. */
const OUT_OF_ORDER_WINDOW = 1000n;

/** The watched addresses by id, for the light watcher, which asks its server per script. */
export interface ScriptsById {
  has(addressId: bigint): boolean;
  get(addressId: bigint): Uint8Array | undefined;
  keys(): IterableIterator<bigint>;
  readonly size: number;
}

/**
 * The scripts of every address issued on one chain, and every watched output (so spends are seen),
 * held in memory: matching a block costs lookups proportional to the block, not to the address count.
 * The scripts sit in typed arrays (compact-scripts.ts), so a million of them fit in tens of megabytes.
 */
export class WatchedSet {
  readonly scripts = new CompactScripts();
  /** `txid:vout` of every recorded output paying a watched script, to its chain_outputs id. */
  readonly outpoints = new Map<string, bigint>();
  readonly scriptsById: ScriptsById;

  /** Highest address id loaded so far (see loadNew). */
  private maxAddressId = 0n;

  constructor(readonly chain: ChainId) {
    const scripts = this.scripts;
    this.scriptsById = {
      has: (id) => scripts.hasId(id),
      get: (id) => scripts.scriptOf(id),
      keys: () => scripts.ids(),
      get size() {
        return scripts.addressCount;
      },
    };
  }

  /**
   * Adds addresses issued since the last load, by any process sharing the database (several API processes on
   * PostgreSQL). Ids commit out of order under concurrency, so it re-reads a window below the highest id seen.
   */
  async loadNew(db: Db): Promise<void> {
    await this.loadAfter(db, this.maxAddressId - OUT_OF_ORDER_WINDOW);
  }

  /** Loads every issued address and recorded output of the chain from the database. */
  async load(db: Db): Promise<void> {
    const empty = this.scripts.addressCount === 0;
    if (empty) this.scripts.reserve((await countWatchedAddresses(db, this.chain, 0n)).addresses);
    await this.loadAfter(db, 0n);
    if (empty) this.scripts.trim();
    const outputs = await db.kysely
      .selectFrom('chain_outputs')
      .innerJoin('chain_txs', 'chain_txs.id', 'chain_outputs.tx_id')
      .select(['chain_outputs.id', 'chain_txs.txid', 'chain_outputs.vout'])
      .where('chain_txs.chain', '=', this.chain)
      .execute();
    for (const o of outputs) this.outpoints.set(`${o.txid}:${o.vout}`, o.id);
  }

  private async loadAfter(db: Db, afterId: bigint): Promise<void> {
    let maxId = 0;
    await forEachWatchedAddress(db, this.chain, afterId, (addressId, walletId, scriptHex) => {
      if (addressId > maxId) maxId = addressId;
      this.scripts.addHex(scriptHex, addressId, walletId);
    });
    if (BigInt(maxId) > this.maxAddressId) this.maxAddressId = BigInt(maxId);
  }

  /** Starts watching a script (a newly issued address). */
  addScript(script: Uint8Array, address: WatchedAddress): void {
    if (address.addressId > this.maxAddressId) this.maxAddressId = address.addressId;
    this.scripts.add(script, address);
  }

  get size(): number {
    return this.scripts.size;
  }
}
