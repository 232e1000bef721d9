/** Coin selection: which of a wallet's coins pay a set of outputs at a fee rate, and what change is left. */
import { dustThreshold, txVsize, type InputSpec } from './tx-size.ts';

/** A spendable coin of the wallet. */
export interface Coin {
  readonly outputId: bigint;
  readonly txid: string;
  readonly vout: number;
  readonly value: bigint;
  /** Its kind (with `m`-of-`n` for multisig), for the input's size in fee estimates. */
  readonly scriptType: InputSpec;
  /** True when mined; unconfirmed coins (our own change) are used only after confirmed ones. */
  readonly confirmed: boolean;
}

/** What selection decided. `change` is 0 when the remainder went to the fee. */
export interface Selection {
  readonly coins: Coin[];
  readonly fee: bigint;
  readonly change: bigint;
  /** Estimated vsize (upper bound on signature lengths) the fee was computed for. */
  readonly vsize: number;
}

/** The wallet's coins do not cover the outputs and the fee. */
export class InsufficientFundsError extends Error {
  override name = 'InsufficientFundsError';
  constructor(
    readonly available: bigint,
    readonly needed: bigint,
  ) {
    super(`insufficient funds: ${available} sat spendable, at least ${needed} sat needed (outputs and fee)`);
  }
}

/**
 * Picks coins largest first (confirmed before unconfirmed change) until they pay the outputs and the fee
 * of a transaction with a change output; when what is left would be dust the change output is left out and
 * the remainder goes to the fee. Fees are `feeRate` (sat/vB) × the estimated vsize.
 */
export function selectCoins(
  coins: readonly Coin[],
  outputs: readonly { script: Uint8Array; amount: bigint }[],
  feeRate: bigint,
  changeScript: Uint8Array,
): Selection {
  if (feeRate < 1n) throw new RangeError('fee rate must be at least 1 sat/vB');
  const target = outputs.reduce((s, o) => s + o.amount, 0n);
  const lengths = outputs.map((o) => o.script.length);
  const changeDust = dustThreshold(changeScript);
  const ordered = [...coins].sort((a, b) => (a.confirmed !== b.confirmed ? (a.confirmed ? -1 : 1) : a.value > b.value ? -1 : a.value < b.value ? 1 : 0));
  const chosen: Coin[] = [];
  let total = 0n;
  for (const coin of ordered) {
    chosen.push(coin);
    total += coin.value;
    const types = chosen.map((c) => c.scriptType);
    const vsizeWithChange = txVsize(types, [...lengths, changeScript.length]);
    const feeWithChange = feeRate * BigInt(vsizeWithChange);
    if (total >= target + feeWithChange + changeDust) {
      return { coins: chosen, fee: feeWithChange, change: total - target - feeWithChange, vsize: vsizeWithChange };
    }
    const vsizeNoChange = txVsize(types, lengths);
    const feeNoChange = feeRate * BigInt(vsizeNoChange);
    if (total >= target + feeNoChange) {
      // The remainder is below a change output's cost plus dust: it is paid to the miners.
      return { coins: chosen, fee: total - target, change: 0n, vsize: vsizeNoChange };
    }
  }
  const minimum = target + feeRate * BigInt(txVsize(chosen.length ? chosen.map((c) => c.scriptType) : ['p2wpkh'], lengths));
  throw new InsufficientFundsError(total, minimum);
}
