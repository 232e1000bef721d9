import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import { parseExtendedPublicKey, type ExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { deriveReceiveAddress, type DerivedAddress } from '../bitcoin/receive-address.ts';
import type { Network } from '../bitcoin/networks.ts';
import type { ScriptType } from '../bitcoin/script-type.ts';
import type { Engine } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { lockRow } from '../db/row-locks.ts';
import { claimPooledAddress, lowestFreeOrderAddress, nextDerivationIndex, reserveFreeOrderAddress, type IssueAs } from '../db/address-claims.ts';
import type { AddressPool } from './address-pool.ts';
import type { AddressRow, WalletRow } from './wallet-repository.ts';

/** Addresses past the last funded one that wallets scan by default (BIP44 gap limit). */
export const GAP_LIMIT = 20;

type Trx = Transaction<Database>;

/**
 * Asks a wallet's chain source, now, whether a script has any transaction: true or false from a light server,
 * null from a node (whose records are complete already, see ChainSource.freshHistory).
 */
export type FreshHistoryCheck = (mode: string, script: Uint8Array) => Promise<boolean | null>;

/**
 * Which expired order address an order may take, decided before its transaction (the question to a light
 * server is not asked inside one): any free one (a node's records answer), only the one just checked, or
 * none (a new address is issued).
 */
export type OrderReuse = { kind: 'any' } | { kind: 'only'; addressId: bigint } | { kind: 'none' };

/** Expired addresses checked per order before giving up and issuing a new one. */
const REUSE_CHECKS = 5;

/**
 * Hands out receiving addresses: the lowest free one for orders, always a new one for payment requests.
 * A new address is claimed from the wallet's pool of pre-derived ones (see address-pool.ts) when it has
 * one, else derived here under the wallet's lock.
 */
export class AddressIssuer {
  private readonly keys = new Map<string, ExtendedPublicKey>();
  private pool: AddressPool | undefined;
  private freshCheck: { check: FreshHistoryCheck; log: Logger } | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly onGapExceeded: (wallet: WalletRow, index: number) => void = () => {},
  ) {}

  /** Issues new addresses from this pool (which `derive` fills); without one every address is derived on demand. */
  usePool(pool: AddressPool): void {
    this.pool = pool;
  }

  /** Checks an expired order address with the chain source before it is reused (light sources). */
  useFreshHistoryCheck(check: FreshHistoryCheck, log: Logger): void {
    this.freshCheck = { check, log };
  }

  /**
   * Before an order reuses an expired address, its history is asked fresh of a light server: a light watcher
   * asks about cold addresses only in its slow sweep, so a late payment may not be recorded yet. An address
   * with any transaction is marked funded (never reused; warm, so the watcher verifies and records it soon)
   * and the next one is checked. A node's watcher has scanned every block for every issued address, so its
   * records answer (`any`). When the server cannot be asked, no address is reused (`none`).
   */
  async vetOrderReuse(db: Kysely<Database>, wallet: WalletRow, now: number): Promise<OrderReuse> {
    if (!this.freshCheck) return { kind: 'any' };
    const { check, log } = this.freshCheck;
    for (let i = 0; i < REUSE_CHECKS; i++) {
      const candidate = await lowestFreeOrderAddress(db, wallet.id, now);
      if (!candidate) return { kind: 'none' };
      let used: boolean | null;
      try {
        used = await check(wallet.mode, Buffer.from(candidate.script_hex, 'hex'));
      } catch (err) {
        log.warn({ api_id: wallet.api_id, err: err instanceof Error ? err.message : String(err) }, 'cannot check an expired address with the chain source; issuing a new one instead of reusing it');
        return { kind: 'none' };
      }
      if (used === null) return { kind: 'any' };
      if (!used) return { kind: 'only', addressId: candidate.id };
      log.info({ api_id: wallet.api_id, address: candidate.address }, 'an expired order address has transactions on the chain; it is not reused');
      await db.updateTable('addresses').set({ first_funded_at: BigInt(now) }).where('id', '=', candidate.id).where('first_funded_at', 'is', null).execute();
    }
    return { kind: 'none' };
  }

  /** True when new addresses come from a pool (so a caller may claim from it in its own statement). */
  get pooled(): boolean {
    return this.pool !== undefined;
  }

  /**
   * Bookkeeping for a pool claim made by another statement (PostgreSQL's one-statement payment creation):
   * refills the pool when low, and warns past the gap limit as issuing here would.
   */
  noteClaimed(wallet: WalletRow, claimed: { index: number; lastFunded: number } | undefined): void {
    this.pool?.noteClaim(wallet, claimed !== undefined);
    if (claimed && claimed.index - claimed.lastFunded > GAP_LIMIT) this.onGapExceeded(wallet, claimed.index);
  }

  /** Receiving address `index` of the wallet, as issued (cached parsed key, fast derivation). */
  derive(wallet: WalletRow, index: number): DerivedAddress {
    return deriveReceiveAddress(this.key(wallet.pub), index, wallet.script_type as ScriptType, wallet.network as Network);
  }

  /**
   * Reserves the lowest-index address of the wallet that is free: never funded, reserved for orders only,
   * and whose reservation has lapsed; otherwise issues a new one. The reservation lasts until `until`.
   * `reuse` is vetOrderReuse's answer; without one, an issuer that checks with the chain source reuses nothing.
   */
  async reserveForOrder(trx: Trx, wallet: WalletRow, now: number, until: number, reuse?: OrderReuse): Promise<AddressRow> {
    const allowed: OrderReuse = reuse ?? (this.freshCheck ? { kind: 'none' } : { kind: 'any' });
    const free =
      allowed.kind === 'none'
        ? undefined
        : await reserveFreeOrderAddress(trx, this.engine, wallet.id, now, until, allowed.kind === 'only' ? allowed.addressId : undefined);
    if (free) return free;
    return this.issueNew(trx, wallet, { purpose: 'order', createdAt: now, reservedUntil: BigInt(until) });
  }

  /** Issues a never-used address for a payment request; it is never handed out again. */
  async issueForPayment(trx: Trx, wallet: WalletRow, now: number): Promise<AddressRow> {
    return this.issueNew(trx, wallet, { purpose: 'payment', createdAt: now, reservedUntil: null });
  }

  private async issueNew(trx: Trx, wallet: WalletRow, as: IssueAs): Promise<AddressRow> {
    if (this.pool) {
      const claimed = await claimPooledAddress(trx, this.engine, wallet.id, wallet.script_type, as);
      this.pool.noteClaim(wallet, claimed !== undefined);
      if (claimed) {
        await this.checkGap(trx, wallet, Number(claimed.derivation_index));
        return claimed;
      }
    }
    await lockRow(trx, this.engine, 'wallets', wallet.id);
    if (this.pool && this.engine === 'postgres') {
      // A refill may have committed while this waited for the wallet lock: its rows come first, so issued
      // indexes stay in order (a derived index past a freshly pooled run would open a gap).
      const claimed = await claimPooledAddress(trx, this.engine, wallet.id, wallet.script_type, as);
      if (claimed) {
        this.pool.noteClaim(wallet, true);
        await this.checkGap(trx, wallet, Number(claimed.derivation_index));
        return claimed;
      }
    }
    const index = await nextDerivationIndex(trx, wallet.id);
    await this.checkGap(trx, wallet, index);
    const derived = this.derive(wallet, index);
    // The pool was empty: fill the next indexes in this same transaction (past every issued and pooled index,
    // so nothing collides), so the issuers queued on the wallet lock claim them instead of deriving in turn.
    if (this.pool) await this.pool.topUpInline(trx, wallet, index + 1, as.createdAt);
    return trx
      .insertInto('addresses')
      .values({
        wallet_id: wallet.id,
        derivation_index: BigInt(index),
        address: derived.address,
        script_hex: Buffer.from(derived.script).toString('hex'),
        created_at: BigInt(as.createdAt),
        reserved_until: as.reservedUntil,
        purpose: as.purpose,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Warns when the index lies more than GAP_LIMIT past the last funded issued address (pooled ones do not count). */
  private async checkGap(trx: Trx, wallet: WalletRow, index: number): Promise<void> {
    if (index < GAP_LIMIT) return;
    const funded = await trx
      .selectFrom('addresses')
      .select((eb) => eb.fn.max('derivation_index').as('max'))
      .where('wallet_id', '=', wallet.id)
      .where('first_funded_at', 'is not', null)
      .executeTakeFirst();
    const lastFunded = funded?.max === null || funded?.max === undefined ? -1 : Number(funded.max);
    if (index - lastFunded > GAP_LIMIT) this.onGapExceeded(wallet, index);
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
