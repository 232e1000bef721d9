/** Virtual sizes of transactions spending a wallet's coins (each kind's input size from its output-kinds row), and dust thresholds. */
import { OUTPUT_KINDS, isMultisigKind, type OutputKind } from '../bitcoin/output-kinds.ts';

/**
 * Length of a DER signature plus its sighash byte. Signing grinds for a low R (`lowR`), so with low S
 * both halves are 32 bytes and the signature is 71 bytes; one in 256 has a shorter S. The builder
 * measures the signed transaction, so this only has to be an upper bound for coin selection.
 */
export const SIGNATURE_BYTES = 71;

function varIntSize(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

/** Non-witness bytes and witness bytes of one input spending a coin of this kind (`m`-of-`n` for multisig). */
export function inputSize(type: OutputKind, sigBytes = SIGNATURE_BYTES, m?: number, n?: number): { base: number; witness: number } {
  return OUTPUT_KINDS[type].inputSize(sigBytes, m, n);
}

/** An input for size estimates: its kind, and for multisig its `m`-of-`n`. */
export type InputSpec = OutputKind | { readonly kind: OutputKind; readonly m: number; readonly n: number };

/** The input spec of a wallet's coins: its kind, with the threshold and cosigner count for multisig. */
export function inputSpecOf(key: { readonly kind: OutputKind; readonly threshold: number; readonly origins: readonly unknown[] }): InputSpec {
  return isMultisigKind(key.kind) ? { kind: key.kind, m: key.threshold, n: key.origins.length } : key.kind;
}

function specSize(spec: InputSpec, sigBytes: number): { base: number; witness: number } {
  return typeof spec === 'string' ? inputSize(spec, sigBytes) : inputSize(spec.kind, sigBytes, spec.m, spec.n);
}

function specSegwit(spec: InputSpec): boolean {
  return OUTPUT_KINDS[typeof spec === 'string' ? spec : spec.kind].segwit;
}

/** Serialized size of an output with a script of this length. */
export function outputSize(scriptLength: number): number {
  return 8 + varIntSize(scriptLength) + scriptLength;
}

/** Weight units of a version-2 transaction with these inputs and output script lengths. */
export function txWeight(inputs: readonly InputSpec[], outputScriptLengths: readonly number[], sigBytes = SIGNATURE_BYTES): number {
  let base = 4 + 4 + varIntSize(inputs.length) + varIntSize(outputScriptLengths.length);
  for (const len of outputScriptLengths) base += outputSize(len);
  let witness = 0;
  const segwit = inputs.some(specSegwit);
  for (const t of inputs) {
    const s = specSize(t, sigBytes);
    base += s.base;
    // In a segwit transaction every input carries a witness stack, empty (one 0x00 byte) for legacy ones.
    witness += segwit ? Math.max(s.witness, 1) : 0;
  }
  if (segwit) witness += 2; // marker and flag
  return base * 4 + witness;
}

/** Virtual size: weight / 4 rounded up. */
export function txVsize(inputs: readonly InputSpec[], outputScriptLengths: readonly number[], sigBytes = SIGNATURE_BYTES): number {
  return Math.ceil(txWeight(inputs, outputScriptLengths, sigBytes) / 4);
}

/** Bitcoin Core's dust relay fee, 3 sat/vB, as in its GetDustThreshold. */
const DUST_RELAY_SAT_PER_KVB = 3000n;

/** The smallest amount an output with this script may carry before Core calls it dust. */
export function dustThreshold(script: Uint8Array): bigint {
  const op = script[0] ?? 0;
  const witnessProgram = script.length >= 4 && script.length <= 42 && (op === 0 || (op >= 0x51 && op <= 0x60)) && script[1] === script.length - 2;
  // Cost of spending it later: a witness input is about 67 vbytes, a legacy one 148 bytes.
  const spend = witnessProgram ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return (BigInt(outputSize(script.length) + spend) * DUST_RELAY_SAT_PER_KVB) / 1000n;
}

/** The largest dust threshold of any standard output (P2PKH, 546 sat): an amount at or above it is never dust. */
export const MAX_DUST_THRESHOLD = 546n;
