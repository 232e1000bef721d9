import type { Transaction } from 'kysely';
import { parseExtendedPublicKey, type ExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { deriveReceiveAddress } from '../bitcoin/receive-address.ts';
import type { Network } from '../bitcoin/networks.ts';
import type { ScriptType } from '../bitcoin/script-type.ts';
import type { Engine } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { lockRow } from '../db/row-locks.ts';
import type { AddressRow, WalletRow } from './wallet-repository.ts';

/** Addresses past the last funded one that wallets scan by default (BIP44 gap limit). */
export const GAP_LIMIT = 20;

type Trx = Transaction<Database>;

/** Hands out receiving addresses: the lowest free one for orders, always a new one for payment requests. */
export class AddressIssuer {
  private readonly keys = new Map<string, ExtendedPublicKey>();

  constructor(
    private readonly engine: Engine,
    private readonly onGapExceeded: (wallet: WalletRow, index: number) => void = () => {},
  ) {}

  /**
   * Reserves the lowest-index address of the wallet that is free: never funded, reserved for orders only,
   * and whose reservation has lapsed; otherwise derives the next index. The reservation lasts until `until`.
   */
  async reserveForOrder(trx: Trx, wallet: WalletRow, now: number, until: number): Promise<AddressRow> {
    await lockRow(trx, this.engine, 'wallets', wallet.id);
    const free = await trx
      .selectFrom('addresses')
      .selectAll()
      .where('wallet_id', '=', wallet.id)
      .where('purpose', '=', 'order')
      .where('first_funded_at', 'is', null)
      .where((eb) => eb.or([eb('reserved_until', 'is', null), eb('reserved_until', '<=', BigInt(now))]))
      .orderBy('derivation_index')
      .limit(1)
      .executeTakeFirst();
    if (free) {
      return trx
        .updateTable('addresses')
        .set({ reserved_until: BigInt(until) })
        .where('id', '=', free.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    return this.deriveNext(trx, wallet, now, 'order', BigInt(until));
  }

  /** Issues a never-used address for a payment request; it is never handed out again. */
  async issueForPayment(trx: Trx, wallet: WalletRow, now: number): Promise<AddressRow> {
    await lockRow(trx, this.engine, 'wallets', wallet.id);
    return this.deriveNext(trx, wallet, now, 'payment', null);
  }

  private async deriveNext(trx: Trx, wallet: WalletRow, now: number, purpose: string, reservedUntil: bigint | null): Promise<AddressRow> {
    const last = await trx
      .selectFrom('addresses')
      .select((eb) => eb.fn.max('derivation_index').as('max'))
      .where('wallet_id', '=', wallet.id)
      .executeTakeFirst();
    const index = last?.max === null || last?.max === undefined ? 0 : Number(last.max) + 1;
    const funded = await trx
      .selectFrom('addresses')
      .select((eb) => eb.fn.max('derivation_index').as('max'))
      .where('wallet_id', '=', wallet.id)
      .where('first_funded_at', 'is not', null)
      .executeTakeFirst();
    const lastFunded = funded?.max === null || funded?.max === undefined ? -1 : Number(funded.max);
    if (index - lastFunded > GAP_LIMIT) this.onGapExceeded(wallet, index);
    const derived = deriveReceiveAddress(this.key(wallet.pub), index, wallet.script_type as ScriptType, wallet.network as Network);
    return trx
      .insertInto('addresses')
      .values({
        wallet_id: wallet.id,
        derivation_index: BigInt(index),
        address: derived.address,
        script_hex: Buffer.from(derived.script).toString('hex'),
        created_at: BigInt(now),
        reserved_until: reservedUntil,
        purpose,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  private key(pub: string): ExtendedPublicKey {
    let key = this.keys.get(pub);
    if (!key) {
      key = parseExtendedPublicKey(pub);
      this.keys.set(pub, key);
    }
    return key;
  }
}
