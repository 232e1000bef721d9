// How much a partner merchant wallet can still withdraw: its confirmed outputs that no known transaction
// spends and no spend has reserved, less the withdrawals confirmed but not yet handed to spending.
// Unconfirmed change of our own withdrawals counts only once mined: slower, never overspent.
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

type Trx = Transaction<Database>;

/** A wallet's withdrawable funds, in satoshis. */
export interface WithdrawableBalance {
  /** Confirmed outputs (with the wallet's required confirmations) that no known transaction spends or spend reserves. */
  confirmedUnspent: bigint;
  /** Their values, largest first (for the fee estimate). */
  coinValues: bigint[];
  /** Confirmed withdrawals not yet sent (amount plus fee estimate). */
  inFlight: bigint;
  /** What a new withdrawal may use: confirmedUnspent − inFlight. */
  available: bigint;
}

/** Reads the withdrawable balance inside the caller's transaction (which holds the wallet's row lock). */
export async function withdrawableBalance(
  trx: Trx,
  wallet: { id: bigint; mode: string; required_confirmations: bigint },
  excludeWithdrawal?: bigint,
): Promise<WithdrawableBalance> {
  const tip = await trx.selectFrom('chain_tips').select('tip_height').where('chain', '=', wallet.mode).executeTakeFirst();
  const tipHeight = tip ? tip.tip_height : -1n;
  // Mined at or below this height: at least the wallet's required confirmations.
  const maxHeight = tipHeight - wallet.required_confirmations + 1n;
  const coins = await trx
    .selectFrom('chain_outputs as o')
    .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
    .innerJoin('addresses as a', 'a.id', 'o.address_id')
    .select(['o.value_sats'])
    .where('a.wallet_id', '=', wallet.id)
    .where('t.state', '=', 'block')
    .where('t.block_height', '<=', maxHeight)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('chain_spends as s')
            .innerJoin('chain_txs as st', 'st.id', 's.tx_id')
            .select('s.id')
            .whereRef('s.output_id', '=', 'o.id')
            .where('st.state', '!=', 'withdrawn'),
        ),
      ),
    )
    // Coins a spend (of any purpose) has reserved are not the wallet's to promise again.
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('coin_reservations as r').select('r.output_id').whereRef('r.output_id', '=', 'o.id'))))
    .execute();
  const confirmedUnspent = coins.reduce((s, c) => s + c.value_sats, 0n);

  // Once a withdrawal's spend exists its coins are reserved (and later spent), so only unsent ones count here.
  let pending = trx
    .selectFrom('withdrawals as w')
    .select(['w.crypto_sats', 'w.fee_estimate_sats'])
    .where('w.wallet_id', '=', wallet.id)
    .where('w.status', '=', 'pending')
    .where('w.spend_id', 'is', null);
  if (excludeWithdrawal !== undefined) pending = pending.where('w.id', '!=', excludeWithdrawal);
  const inFlight = (await pending.execute()).reduce((s, w) => s + w.crypto_sats + w.fee_estimate_sats, 0n);
  return { confirmedUnspent, coinValues: coins.map((c) => c.value_sats).sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)), inFlight, available: confirmedUnspent - inFlight };
}

/**
 * A generous fee estimate for sending from `inputs` P2WPKH coins to one output plus change: 11 vB overhead,
 * 68 vB per input, 43 vB for the payment output (the largest standard one, P2TR/P2WSH) and 31 vB for change.
 */
export function estimateFee(feeRate: bigint, inputs: number): bigint {
  const vsize = 11n + 68n * BigInt(Math.max(1, inputs)) + 43n + 31n;
  return feeRate * vsize;
}

/** How many of the coins (largest first) a payment of `sats` needs, fee aside; at least one. */
export function inputsNeeded(coinValues: readonly bigint[], sats: bigint): number {
  let total = 0n;
  for (let i = 0; i < coinValues.length; i++) {
    total += coinValues[i]!;
    if (total >= sats) return i + 1;
  }
  return Math.max(1, coinValues.length);
}
