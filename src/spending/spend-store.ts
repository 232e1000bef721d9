/** Database side of spending: spendable coins, change addresses, recorded spends and their reservations. */
import { sql, type Selectable, type Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database, SpendsTable } from '../db/schema.ts';
import type { Coin } from './coin-selection.ts';
import type { InputSpec } from './tx-size.ts';

type Trx = Transaction<Database>;

/** A spend as stored. */
export type SpendRow = Selectable<SpendsTable>;

/** A coin with the address it pays (for the signing key's path). */
export interface WalletCoin extends Coin {
  readonly addressId: bigint;
  /** Stored derivation index: i for the receive child 0/i, -(i+1) for the change child 1/i. */
  readonly derivationIndex: bigint;
  readonly scriptHex: string;
}

/** The BIP32 branch and index of a stored derivation index (see the 0011 migration). */
export function branchAndIndex(derivationIndex: bigint): { branch: 0 | 1; index: number } {
  return derivationIndex < 0n ? { branch: 1, index: Number(-derivationIndex - 1n) } : { branch: 0, index: Number(derivationIndex) };
}

/** The stored derivation index of change child 1/i. */
export function changeDerivationIndex(i: number): bigint {
  return -BigInt(i) - 1n;
}

/**
 * The wallet's coins no transaction we know spends and no spend has reserved: mined ones, and unconfirmed
 * outputs to our own change addresses (nobody but us can replace the transaction that made them).
 */
export async function spendableCoins(trx: Trx, walletId: bigint, scriptType: InputSpec): Promise<WalletCoin[]> {
  const rows = await trx
    .selectFrom('chain_outputs as o')
    .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
    .innerJoin('addresses as a', 'a.id', 'o.address_id')
    .select(['o.id', 't.txid', 'o.vout', 'o.value_sats', 't.state', 'a.id as address_id', 'a.derivation_index', 'a.script_hex'])
    .where('a.wallet_id', '=', walletId)
    .where((eb) => eb.or([eb('t.state', '=', 'block'), eb.and([eb('t.state', '=', 'mempool'), eb('a.purpose', '=', 'change')])]))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('chain_spends as s')
            .innerJoin('chain_txs as st', 'st.id', 's.tx_id')
            .select('s.id')
            .whereRef('s.output_id', '=', 'o.id')
            .where('st.state', '!=', 'withdrawn'),
        ),
      ),
    )
    .where((eb) => eb.not(eb.exists(eb.selectFrom('coin_reservations as r').select('r.output_id').whereRef('r.output_id', '=', 'o.id'))))
    .orderBy('o.id')
    .execute();
  return rows.map((r) => ({
    outputId: r.id,
    txid: r.txid,
    vout: Number(r.vout),
    value: r.value_sats,
    scriptType,
    confirmed: r.state === 'block',
    addressId: r.address_id,
    derivationIndex: r.derivation_index,
    scriptHex: r.script_hex,
  }));
}

/**
 * The change address to use: the lowest change address that was never funded and that no live spend
 * pays (a spend without change leaves its candidate unused), or undefined when a new one is needed.
 */
export async function reusableChangeAddress(trx: Trx, walletId: bigint): Promise<{ id: bigint; derivation_index: bigint; script_hex: string; address: string } | undefined> {
  return trx
    .selectFrom('addresses as a')
    .select(['a.id', 'a.derivation_index', 'a.script_hex', 'a.address'])
    .where('a.wallet_id', '=', walletId)
    .where('a.purpose', '=', 'change')
    .where('a.first_funded_at', 'is', null)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('spends as s').select('s.id').whereRef('s.change_address_id', '=', 'a.id').where('s.status', '!=', 'failed'))))
    .orderBy('a.derivation_index', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The next unused change child index i (child 1/i) of the wallet. */
export async function nextChangeIndex(trx: Trx, walletId: bigint): Promise<number> {
  const row = await trx
    .selectFrom('addresses')
    .select((eb) => eb.fn.min('derivation_index').as('min'))
    .where('wallet_id', '=', walletId)
    .where('purpose', '=', 'change')
    .executeTakeFirst();
  const min = row?.min === null || row?.min === undefined ? 0n : BigInt(row.min);
  return min < 0n ? Number(-min) : 0;
}

/** A spend to record. */
export interface NewSpend {
  walletId: bigint;
  purpose: string;
  reference: string | null;
  kind: 'signed' | 'external';
  txid: string;
  hex: string;
  fee: bigint;
  feeRate: bigint;
  vsize: number;
  changeAddressId: bigint | null;
  inputs: { outputId: bigint; txid: string; vout: number; value: bigint }[];
  outputs: { address: string; scriptHex: string; amount: bigint; change: boolean }[];
  status: 'signed' | 'broadcast';
}

/** Records a spend, its inputs and outputs, and reserves its coins (a coin reserved twice fails the transaction). */
export async function insertSpend(trx: Trx, s: NewSpend, now: number): Promise<SpendRow> {
  const row = await trx
    .insertInto('spends')
    .values({
      wallet_id: s.walletId,
      purpose: s.purpose,
      reference: s.reference,
      kind: s.kind,
      status: s.status,
      txid: s.txid,
      raw_hex: s.hex,
      fee_sats: s.fee,
      fee_rate: s.feeRate,
      vsize: BigInt(s.vsize),
      change_address_id: s.changeAddressId,
      last_error: null,
      created_at: BigInt(now),
      updated_at: BigInt(now),
      broadcast_at: null,
      confirmed_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (s.inputs.length > 0) {
    await trx
      .insertInto('spend_inputs')
      .values(s.inputs.map((i, n) => ({ spend_id: row.id, n: BigInt(n), output_id: i.outputId, txid: i.txid, vout: BigInt(i.vout), value_sats: i.value })))
      .execute();
    await trx
      .insertInto('coin_reservations')
      .values(s.inputs.map((i) => ({ output_id: i.outputId, spend_id: row.id, created_at: BigInt(now) })))
      .execute();
  }
  await trx
    .insertInto('spend_outputs')
    .values(s.outputs.map((o, n) => ({ spend_id: row.id, n: BigInt(n), address: o.address, script_hex: o.scriptHex, amount_sats: o.amount, is_change: o.change ? 1n : 0n })))
    .execute();
  return row;
}

/** The spend with this (wallet, purpose, reference), if any. */
export async function findByReference(q: Trx | Db['kysely'], walletId: bigint, purpose: string, reference: string): Promise<SpendRow | undefined> {
  return q.selectFrom('spends').selectAll().where('wallet_id', '=', walletId).where('purpose', '=', purpose).where('reference', '=', reference).executeTakeFirst();
}

/** True when the error is a unique or primary-key violation (a coin already reserved, a reference reused). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(e?.message ?? '');
}

/** Releases the coins of a spend that can no longer happen. */
export async function releaseCoins(trx: Trx, spendId: bigint): Promise<void> {
  await trx.deleteFrom('coin_reservations').where('spend_id', '=', spendId).execute();
}

/** Spends that are not yet final, and confirmed ones whose transaction is no longer mined (a reorg). */
export async function openSpends(db: Db): Promise<(SpendRow & { mode: string; required_confirmations: bigint })[]> {
  const rows = await db.kysely
    .selectFrom('spends as s')
    .innerJoin('wallets as w', 'w.id', 's.wallet_id')
    .selectAll('s')
    .select(['w.mode', 'w.required_confirmations'])
    .where((eb) =>
      eb.or([
        eb('s.status', 'in', ['signed', 'broadcast']),
        eb.and([
          eb('s.status', '=', 'confirmed'),
          eb.not(
            eb.exists(
              eb.selectFrom('chain_txs as t').select('t.id').whereRef('t.txid', '=', 's.txid').whereRef('t.chain', '=', 'w.mode').where('t.state', '=', 'block'),
            ),
          ),
        ]),
      ]),
    )
    .orderBy('s.id')
    .execute();
  return rows;
}

/** Sets a spend's status (and its times), returning the previous one. */
export async function setSpendStatus(trx: Trx, id: bigint, status: string, now: number, extra: Partial<Pick<SpendRow, 'broadcast_at' | 'confirmed_at' | 'last_error'>> = {}): Promise<void> {
  await trx.updateTable('spends').set({ status, updated_at: BigInt(now), ...extra }).where('id', '=', id).execute();
}

/** Counts a broadcast attempt and its error. */
export async function noteBroadcastAttempt(db: Db, id: bigint, error: string | null, now: number): Promise<void> {
  await db.kysely
    .updateTable('spends')
    .set({ broadcast_attempts: sql<bigint>`broadcast_attempts + 1`, last_error: error, updated_at: BigInt(now) })
    .where('id', '=', id)
    .execute();
}
