/** Builds and signs a version-2, RBF-signalling transaction with @scure/btc-signer, fee from its exact vsize. */
import { Transaction } from '@scure/btc-signer';
import type { ScriptType } from '../bitcoin/script-type.ts';
import { OUTPUT_KINDS } from '../bitcoin/output-kinds.ts';
import type { ChildKey } from './wallet-signer.ts';

/** An input to sign: the coin and the key that owns it. */
export interface SignInput {
  readonly txid: string;
  readonly vout: number;
  readonly value: bigint;
  readonly script: Uint8Array;
  /** A one-key kind: a service-held wallet is BIP84 (or another single-key type) or BIP86 taproot. */
  readonly scriptType: ScriptType | 'p2tr';
  readonly key: ChildKey;
}

/** A signed transaction and what it pays. */
export interface SignedTx {
  readonly txid: string;
  readonly hex: string;
  readonly vsize: number;
  readonly fee: bigint;
  /** The change actually paid (0 when none). */
  readonly change: bigint;
}

/** BIP125: any sequence below 0xfffffffe signals replaceability. */
export const RBF_SEQUENCE = 0xfffffffd;

function addInput(tx: Transaction, input: SignInput): void {
  const base = { txid: input.txid, index: input.vout, sequence: RBF_SEQUENCE, witnessUtxo: { script: input.script, amount: input.value } };
  // A taproot input names its internal key: the signer then makes the BIP86 key-path (tweaked Schnorr) signature.
  const { redeemScript, tapInternalKey } = OUTPUT_KINDS[input.scriptType].spend([input.key.publicKey]);
  tx.addInput({ ...base, ...(redeemScript ? { redeemScript } : {}), ...(tapInternalKey ? { tapInternalKey } : {}) });
}

function buildOnce(inputs: readonly SignInput[], outputs: readonly { script: Uint8Array; amount: bigint }[], change?: { script: Uint8Array; amount: bigint }): Transaction {
  // Legacy inputs are signed from the coin's script and amount (we are the signer, so we know both).
  const tx = new Transaction({ version: 2, lowR: true, allowLegacyWitnessUtxo: true });
  for (const i of inputs) addInput(tx, i);
  for (const o of outputs) tx.addOutput({ script: o.script, amount: o.amount });
  if (change && change.amount > 0n) tx.addOutput({ script: change.script, amount: change.amount });
  inputs.forEach((i, idx) => tx.signIdx(i.key.privateKey, idx));
  tx.finalize();
  return tx;
}

/**
 * Signs the transaction paying `outputs` (and change when `changeScript` is given) at `feeRate` sat/vB of
 * the signed transaction's own vsize: the change is set, the transaction signed and measured, and signed
 * again if the measured vsize asks for another fee. Without change the fee is whatever the inputs leave.
 */
export function buildSignedTx(
  inputs: readonly SignInput[],
  outputs: readonly { script: Uint8Array; amount: bigint }[],
  feeRate: bigint,
  changeScript: Uint8Array | undefined,
  estimatedFee: bigint,
): SignedTx {
  const inTotal = inputs.reduce((s, i) => s + i.value, 0n);
  const outTotal = outputs.reduce((s, o) => s + o.amount, 0n);
  if (!changeScript) {
    const tx = buildOnce(inputs, outputs);
    return finish(tx, inTotal - outTotal, 0n);
  }
  let fee = estimatedFee;
  for (let round = 0; round < 4; round++) {
    const change = inTotal - outTotal - fee;
    if (change <= 0n) throw new RangeError('the change would not be positive');
    const tx = buildOnce(inputs, outputs, { script: changeScript, amount: change });
    const exact = feeRate * BigInt(tx.vsize);
    // Settle once the fee is exactly rate × vsize, or when a shorter signature would only lower it (never
    // pay less than the rate).
    if (exact === fee || (round >= 2 && exact < fee)) return finish(tx, fee, change);
    fee = exact;
  }
  throw new Error('fee did not settle');
}

function finish(tx: Transaction, fee: bigint, change: bigint): SignedTx {
  return { txid: tx.id, hex: tx.hex, vsize: tx.vsize, fee, change };
}
