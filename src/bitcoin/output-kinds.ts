/**
 * Every kind of output a wallet can receive at, as one table (in the manner of @scure/btc-signer's OutScript):
 * per kind its output script from the keys at one index, the address encoding, the input size for fee
 * estimates and the PSBT input fields a signer needs. Code that used to switch on a script type reads a row.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import {
  hash160,
  multisigScript,
  multisigScriptLength,
  p2pkhScript,
  p2shScript,
  sortKeys,
  taprootOutputKey,
  witnessScript,
} from './script-build.ts';
import type { ScriptType } from './script-type.ts';

/** Multisig kinds: `m`-of-`n` CHECKMULTISIG inside P2WSH, P2SH-P2WSH or bare P2SH. */
export type MultisigKind = 'p2wsh-multisig' | 'p2sh-p2wsh-multisig' | 'p2sh-multisig';

/** Every output kind: the single-key script types of today, BIP86 taproot and the multisig kinds. */
export type OutputKind = ScriptType | 'p2tr' | MultisigKind;

/** What an output at one index is, and what spending it needs beyond the signatures. */
export interface OutputSpend {
  /** The scriptPubKey. */
  readonly script: Uint8Array;
  /** P2SH redeem script (P2SH-P2WPKH, P2SH-P2WSH, P2SH multisig). */
  readonly redeemScript?: Uint8Array;
  /** P2WSH witness script (the multisig script). */
  readonly witnessScript?: Uint8Array;
  /** BIP371 x-only internal key of a taproot output. */
  readonly tapInternalKey?: Uint8Array;
}

/** BIP174/BIP371 input fields a kind's watch-only PSBT carries. */
export type PsbtInputField =
  | 'nonWitnessUtxo'
  | 'witnessUtxo'
  | 'redeemScript'
  | 'witnessScript'
  | 'bip32Derivation'
  | 'tapInternalKey'
  | 'tapBip32Derivation';

/** The multisig policy: threshold, and whether keys are sorted (BIP67, `sortedmulti`) or kept in order (`multi`). */
export interface MultisigPolicy {
  readonly threshold: number;
  readonly sorted: boolean;
}

/** One row of the table. */
export interface OutputKindRow {
  readonly kind: OutputKind;
  readonly family: 'single' | 'taproot' | 'multisig';
  /** How its address is written (BIP350: witness v0 bech32, v1 bech32m; P2PKH/P2SH base58check). */
  readonly encoding: 'base58' | 'bech32' | 'bech32m';
  /** True when spending it puts data in the witness (the transaction gets marker and flag). */
  readonly segwit: boolean;
  /** The most cosigner keys its script may hold (policy and consensus limits, see MAX_MULTISIG_KEYS). */
  readonly maxKeys: number;
  /** Output script (and redeem/witness script) from the 33-byte compressed keys at one index. */
  spend(keys: readonly Uint8Array[], policy?: MultisigPolicy): OutputSpend;
  /** Non-witness and witness bytes of one input spending it; `m`/`n` only matter for multisig. */
  inputSize(sigBytes: number, m?: number, n?: number): { base: number; witness: number };
  readonly psbtInput: readonly PsbtInputField[];
  /** The descriptor wrapped around a key expression (single key) or a `multi(…)`/`sortedmulti(…)` fragment. */
  descriptor(inner: string): string;
}

/**
 * Largest multisig per kind. P2SH: the redeem script is one push of at most 520 bytes, and 15 compressed keys
 * (15×34 + 3 = 513 bytes) is the most that fits. P2WSH: CHECKMULTISIG's consensus limit of 20 keys (the 3,600-byte
 * standard witness script limit is not reached: 20×34 + 4 = 684 bytes).
 */
export const MAX_MULTISIG_KEYS = { p2sh: 15, p2wsh: 20 } as const;

// Input sizes. Every input: outpoint 36 + sequence 4, then the scriptSig with its length byte.
const OUTPOINT_AND_SEQUENCE = 40;
const PUBKEY_PUSH = 1 + 33;

function varIntSize(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : 5;
}

/** Bytes of a push of `n` bytes of data: a length opcode, OP_PUSHDATA1 or OP_PUSHDATA2, then the data. */
function pushSize(n: number): number {
  return (n <= 75 ? 1 : n <= 255 ? 2 : 3) + n;
}

/**
 * Witness of a P2WSH multisig spend: item count, the empty item CHECKMULTISIG's off-by-one pops, `m` signatures
 * (each with its length byte), then the witness script with its length. 2-of-3 with 72-byte signatures:
 * 1 + 1 + 2×73 + 1 + 105 = 254 weight units, 63.5 vbytes.
 */
function multisigWitness(sigBytes: number, m: number, n: number): number {
  const script = multisigScriptLength(m, n);
  return 1 + 1 + m * (1 + sigBytes) + varIntSize(script) + script;
}

function singleKey(keys: readonly Uint8Array[]): Uint8Array {
  const key = keys[0];
  if (keys.length !== 1 || !key || key.length !== 33 || (key[0] !== 0x02 && key[0] !== 0x03)) {
    throw new TypeError('expected one 33-byte compressed public key');
  }
  return key;
}

function multisig(keys: readonly Uint8Array[], policy: MultisigPolicy | undefined, maxKeys: number): Uint8Array {
  if (!policy) throw new TypeError('a multisig output needs its threshold');
  const { threshold, sorted } = policy;
  if (keys.length < 1 || keys.length > maxKeys) throw new RangeError(`a multisig output holds 1 to ${maxKeys} keys`);
  if (!Number.isInteger(threshold) || threshold < 1 || threshold > keys.length) throw new RangeError('the threshold must be from 1 to the number of keys');
  for (const k of keys) if (k.length !== 33) throw new TypeError('multisig keys must be 33-byte compressed public keys');
  return multisigScript(threshold, sorted ? sortKeys(keys) : keys);
}

const ROWS: readonly OutputKindRow[] = [
  {
    kind: 'p2pkh',
    family: 'single',
    encoding: 'base58',
    segwit: false,
    maxKeys: 1,
    spend: (keys) => ({ script: p2pkhScript(hash160(singleKey(keys))) }),
    // scriptSig: <sig> <pubkey>; 72-byte signature: 40 + 1 + 73 + 34 = 148 bytes.
    inputSize: (sig) => ({ base: OUTPOINT_AND_SEQUENCE + 1 + 1 + sig + PUBKEY_PUSH, witness: 0 }),
    psbtInput: ['nonWitnessUtxo', 'bip32Derivation'],
    descriptor: (k) => `pkh(${k})`,
  },
  {
    kind: 'p2sh-p2wpkh',
    family: 'single',
    encoding: 'base58',
    segwit: true,
    maxKeys: 1,
    spend: (keys) => {
      const redeemScript = witnessScript(0, hash160(singleKey(keys)));
      return { script: p2shScript(hash160(redeemScript)), redeemScript };
    },
    // scriptSig pushes the 22-byte redeem script (23 bytes); witness as P2WPKH.
    inputSize: (sig) => ({ base: OUTPOINT_AND_SEQUENCE + 1 + 23, witness: 1 + 1 + sig + PUBKEY_PUSH }),
    psbtInput: ['nonWitnessUtxo', 'witnessUtxo', 'redeemScript', 'bip32Derivation'],
    descriptor: (k) => `sh(wpkh(${k}))`,
  },
  {
    kind: 'p2wpkh',
    family: 'single',
    encoding: 'bech32',
    segwit: true,
    maxKeys: 1,
    spend: (keys) => ({ script: witnessScript(0, hash160(singleKey(keys))) }),
    // Empty scriptSig; witness: count, <sig>, <pubkey>: 1 + 73 + 34 = 108 WU, so 41 + 27 = 68 vbytes.
    inputSize: (sig) => ({ base: OUTPOINT_AND_SEQUENCE + 1, witness: 1 + 1 + sig + PUBKEY_PUSH }),
    psbtInput: ['nonWitnessUtxo', 'witnessUtxo', 'bip32Derivation'],
    descriptor: (k) => `wpkh(${k})`,
  },
  {
    kind: 'p2tr',
    family: 'taproot',
    encoding: 'bech32m',
    segwit: true,
    maxKeys: 1,
    spend: (keys) => {
      const internal = singleKey(keys).subarray(1);
      return { script: witnessScript(1, taprootOutputKey(internal)), tapInternalKey: Uint8Array.from(internal) };
    },
    // BIP86 key path: empty scriptSig; witness: count, one 64-byte Schnorr signature (SIGHASH_DEFAULT, no sighash
    // byte) with its length byte: 1 + 1 + 64 = 66 WU, so 41 + 16.5 = 57.5 vbytes. `sig` (an ECDSA length) does not apply.
    inputSize: () => ({ base: OUTPOINT_AND_SEQUENCE + 1, witness: 1 + 1 + 64 }),
    psbtInput: ['witnessUtxo', 'tapInternalKey', 'tapBip32Derivation'],
    descriptor: (k) => `tr(${k})`,
  },
  {
    kind: 'p2wsh-multisig',
    family: 'multisig',
    encoding: 'bech32',
    segwit: true,
    maxKeys: MAX_MULTISIG_KEYS.p2wsh,
    spend: (keys, policy) => {
      const ws = multisig(keys, policy, MAX_MULTISIG_KEYS.p2wsh);
      return { script: witnessScript(0, sha256(ws)), witnessScript: ws };
    },
    // Empty scriptSig; witness see multisigWitness. 2-of-3: 41 + 254/4 = 104.5 vbytes.
    inputSize: (sig, m = 1, n = 1) => ({ base: OUTPOINT_AND_SEQUENCE + 1, witness: multisigWitness(sig, m, n) }),
    psbtInput: ['nonWitnessUtxo', 'witnessUtxo', 'witnessScript', 'bip32Derivation'],
    descriptor: (ms) => `wsh(${ms})`,
  },
  {
    kind: 'p2sh-p2wsh-multisig',
    family: 'multisig',
    encoding: 'base58',
    segwit: true,
    maxKeys: MAX_MULTISIG_KEYS.p2wsh,
    spend: (keys, policy) => {
      const ws = multisig(keys, policy, MAX_MULTISIG_KEYS.p2wsh);
      const redeemScript = witnessScript(0, sha256(ws));
      return { script: p2shScript(hash160(redeemScript)), redeemScript, witnessScript: ws };
    },
    // scriptSig pushes the 34-byte P2WSH program (35 bytes); witness as P2WSH. 2-of-3: 76 + 63.5 = 139.5 vbytes.
    inputSize: (sig, m = 1, n = 1) => ({ base: OUTPOINT_AND_SEQUENCE + 1 + 35, witness: multisigWitness(sig, m, n) }),
    psbtInput: ['nonWitnessUtxo', 'witnessUtxo', 'redeemScript', 'witnessScript', 'bip32Derivation'],
    descriptor: (ms) => `sh(wsh(${ms}))`,
  },
  {
    kind: 'p2sh-multisig',
    family: 'multisig',
    encoding: 'base58',
    segwit: false,
    maxKeys: MAX_MULTISIG_KEYS.p2sh,
    spend: (keys, policy) => {
      const redeemScript = multisig(keys, policy, MAX_MULTISIG_KEYS.p2sh);
      return { script: p2shScript(hash160(redeemScript)), redeemScript };
    },
    // scriptSig: OP_0, `m` signatures with their length bytes, then the redeem script pushed (OP_PUSHDATA1 past 75
    // bytes). 2-of-3 with 72-byte signatures: 1 + 146 + (2 + 105) = 254 bytes, whose length takes 3 bytes (254 ≥ 0xfd):
    // 40 + 3 + 254 = 297 bytes.
    inputSize: (sig, m = 1, n = 1) => {
      const scriptSig = 1 + m * (1 + sig) + pushSize(multisigScriptLength(m, n));
      return { base: OUTPOINT_AND_SEQUENCE + varIntSize(scriptSig) + scriptSig, witness: 0 };
    },
    psbtInput: ['nonWitnessUtxo', 'redeemScript', 'bip32Derivation'],
    descriptor: (ms) => `sh(${ms})`,
  },
];

/** The table, by kind. */
export const OUTPUT_KINDS: Readonly<Record<OutputKind, OutputKindRow>> = Object.fromEntries(ROWS.map((r) => [r.kind, r])) as Record<OutputKind, OutputKindRow>;

/** Every kind, in table order. */
export const ALL_OUTPUT_KINDS: readonly OutputKind[] = ROWS.map((r) => r.kind);

/** The row of a kind; throws for a name that is not one. */
export function outputKind(kind: OutputKind): OutputKindRow {
  const row = OUTPUT_KINDS[kind];
  if (!row) throw new RangeError(`unknown output kind ${String(kind)}`);
  return row;
}

/** True for the multisig kinds. */
export function isMultisigKind(kind: OutputKind): kind is MultisigKind {
  return outputKind(kind).family === 'multisig';
}
