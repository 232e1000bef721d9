import type { Insertable, Selectable, Transaction, Updateable } from 'kysely';
import type { Db } from '../db/database.ts';
import { lockRow } from '../db/row-locks.ts';
import type { AddressesTable, Database, WalletsTable } from '../db/schema.ts';

/** A wallet row as stored. */
export type WalletRow = Selectable<WalletsTable>;
/** An issued address row as stored. */
export type AddressRow = Selectable<AddressesTable>;

/** Database access for wallets, their issued addresses and address notes. */
export class WalletRepository {
  constructor(private readonly db: Db) {}

  /** The wallet registered with this exact key text, if any. */
  async findByPub(pub: string): Promise<WalletRow | undefined> {
    return this.db.kysely.selectFrom('wallets').selectAll().where('pub', '=', pub).executeTakeFirst();
  }

  /** The wallet whose canonical descriptor this is (wallets registered as descriptors, schemes or cosigner sets). */
  async findByDescriptor(descriptor: string): Promise<WalletRow | undefined> {
    return this.db.kysely.selectFrom('wallets').selectAll().where('descriptor', '=', descriptor).executeTakeFirst();
  }

  /** The wallet with this API ID, if any. */
  async findByApiId(apiId: string): Promise<WalletRow | undefined> {
    return this.db.kysely.selectFrom('wallets').selectAll().where('api_id', '=', apiId).executeTakeFirst();
  }

  /** The wallet with this row id, if any. */
  async findById(id: bigint): Promise<WalletRow | undefined> {
    return this.db.kysely.selectFrom('wallets').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Every wallet, oldest first. */
  async list(): Promise<WalletRow[]> {
    return this.db.kysely.selectFrom('wallets').selectAll().orderBy('id').execute();
  }

  /** Inserts a wallet and returns it as stored. */
  async insert(row: Insertable<WalletsTable>): Promise<WalletRow> {
    return this.db.kysely.insertInto('wallets').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** Updates a wallet's settings and returns it as stored. */
  async update(id: bigint, changes: Updateable<WalletsTable>): Promise<WalletRow> {
    return this.db.kysely.updateTable('wallets').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }

  /**
   * Runs `work` in one transaction with the wallet as it stands now, its row locked against concurrent writers:
   * a settings change and what announces it (audit record, outbox mail) commit together or not at all.
   */
  async withLockedWallet<T>(id: bigint, work: (trx: Transaction<Database>, wallet: WalletRow) => Promise<T>): Promise<T> {
    return this.db.kysely.transaction().execute(async (trx) => {
      await lockRow(trx, this.db, 'wallets', id);
      const wallet = await trx.selectFrom('wallets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      return work(trx, wallet);
    });
  }

  /** How many addresses have been issued from the wallet. */
  async countAddresses(walletId: bigint): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('addresses')
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .where('wallet_id', '=', walletId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The issued address with this text, if the service ever issued it. */
  async findAddress(address: string): Promise<AddressRow | undefined> {
    return this.db.kysely.selectFrom('addresses').selectAll().where('address', '=', address).executeTakeFirst();
  }

  /** Notes attached to an address, oldest first. */
  async notes(addressId: bigint): Promise<{ info: string; created_at: bigint }[]> {
    return this.db.kysely
      .selectFrom('address_notes')
      .select(['info', 'created_at'])
      .where('address_id', '=', addressId)
      .orderBy('id')
      .execute();
  }

  /** Attaches a note to an address. */
  async addNote(addressId: bigint, info: string, now: number): Promise<void> {
    await this.db.kysely.insertInto('address_notes').values({ address_id: addressId, info, created_at: BigInt(now) }).execute();
  }
}
