/**
 * BIP174 PSBTs for watch-only wallets, and reading back what their owner signed. Key origins follow
 * DESIGN.md section 9 "PSBT key origins": a depth-0 key is its own origin; a depth-1 key (Electrum seeds)
 * has its origin inside it (parent fingerprint and child number), so the global xpub is written; deeper
 * keys get each derivation as the account key's own fingerprint with `0/i` or `1/i` and no global xpub
 * (BIP174 wants as many origin steps as the key's depth, and Electrum 4.3 refuses a PSBT that breaks that).
 */
import { Transaction, p2wpkh, p2sh } from '@scure/btc-signer';
import { base64 } from '@scure/base';
import type { ExtendedPublicKey } from '../bitcoin/extended-key.ts';
import type { ScriptType } from '../bitcoin/script-type.ts';
import { RBF_SEQUENCE } from './build-tx.ts';
import { SpendRefusedError } from './spending-errors.ts';

/** Where the key sits below its master: the fingerprint derivations name and the path steps before `0/i`. */
export interface KeyOrigin {
  fingerprint: number;
  prefix: number[];
  /** True when the global xpub can carry a correct origin (as many steps as the key's depth). */
  writeGlobalXpub: boolean;
}

/** Parses a key origin, `[d34db33f/84'/1'/0']` (descriptor syntax; `h` for hardened too); throws RangeError. */
export function parseKeyOrigin(text: string): { fingerprint: number; path: number[] } {
  const m = /^\[?([0-9a-fA-F]{8})((?:\/\d+['hH]?)*)\]?$/.exec(text.trim());
  if (!m) throw new RangeError('a key origin looks like [d34db33f/84h/1h/0h]: 8 hex digits of master fingerprint, then the path');
  const path = m[2]!
    .split('/')
    .filter((p) => p !== '')
    .map((step) => {
      const hardened = /['hH]$/.test(step);
      const n = Number(hardened ? step.slice(0, -1) : step);
      if (!Number.isSafeInteger(n) || n >= 0x80000000) throw new RangeError(`path step ${step} is out of range`);
      return hardened ? n + 0x80000000 : n;
    });
  return { fingerprint: parseInt(m[1]!, 16), path };
}

/** Writes an origin back in descriptor syntax with `h` for hardened steps. */
export function formatKeyOrigin(origin: { fingerprint: number; path: number[] }): string {
  const steps = origin.path.map((n) => (n >= 0x80000000 ? `${n - 0x80000000}h` : String(n)));
  return `[${origin.fingerprint.toString(16).padStart(8, '0')}${steps.map((s) => `/${s}`).join('')}]`;
}

/**
 * The origin written for a key (see the module comment). A stored origin (given by the operator) wins when it has
 * as many steps as the key's depth and ends with the key's own child number.
 */
export function keyOrigin(key: ExtendedPublicKey, stored?: string | null): KeyOrigin {
  if (stored) {
    const o = parseKeyOrigin(stored);
    if (o.path.length === key.depth && (key.depth === 0 || o.path[o.path.length - 1] === key.childIndex)) {
      return { fingerprint: o.fingerprint, prefix: o.path, writeGlobalXpub: true };
    }
  }
  if (key.depth === 0) return { fingerprint: key.hd.fingerprint, prefix: [], writeGlobalXpub: true };
  if (key.depth === 1) return { fingerprint: key.parentFingerprint, prefix: [key.childIndex], writeGlobalXpub: true };
  return { fingerprint: key.hd.fingerprint, prefix: [], writeGlobalXpub: false };
}

/** An input of a watch-only PSBT: the coin, the transaction that made it, and its key's path below the account key. */
export interface PsbtInput {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
  /** The whole previous transaction (legacy signers need it; Electrum and hardware wallets check amounts with it). */
  prevTx: Uint8Array;
  branch: 0 | 1;
  index: number;
}

/** Builds the unsigned PSBT (base64) paying `outputs`, plus change to the key's child `1/changeIndex`. */
export function buildWatchOnlyPsbt(args: {
  key: ExtendedPublicKey;
  /** The operator-given origin of the key (`wallets.key_origin`), if any. */
  origin?: string | null;
  scriptType: ScriptType;
  inputs: PsbtInput[];
  outputs: { script: Uint8Array; amount: bigint }[];
  change?: { script: Uint8Array; amount: bigint; index: number };
  testnet: boolean;
}): string {
  const origin = keyOrigin(args.key, args.origin);
  const tx = new Transaction({ version: 2, allowLegacyWitnessUtxo: true });
  const der = (branch: number, index: number, publicKey: Uint8Array): [Uint8Array, { fingerprint: number; path: number[] }][] => [
    [publicKey, { fingerprint: origin.fingerprint, path: [...origin.prefix, branch, index] }],
  ];
  for (const i of args.inputs) {
    const publicKey = args.key.hd.deriveChild(i.branch).deriveChild(i.index).publicKey!;
    tx.addInput({
      txid: i.txid,
      index: i.vout,
      sequence: RBF_SEQUENCE,
      nonWitnessUtxo: i.prevTx,
      ...(args.scriptType !== 'p2pkh' ? { witnessUtxo: { script: i.script, amount: i.value } } : {}),
      ...(args.scriptType === 'p2sh-p2wpkh' ? { redeemScript: p2sh(p2wpkh(publicKey)).redeemScript } : {}),
      bip32Derivation: der(i.branch, i.index, publicKey),
    });
  }
  for (const o of args.outputs) tx.addOutput({ script: o.script, amount: o.amount });
  if (args.change) {
    const publicKey = args.key.hd.deriveChild(1).deriveChild(args.change.index).publicKey!;
    tx.addOutput({
      script: args.change.script,
      amount: args.change.amount,
      ...(args.scriptType === 'p2sh-p2wpkh' ? { redeemScript: p2sh(p2wpkh(publicKey)).redeemScript } : {}),
      bip32Derivation: der(1, args.change.index, publicKey),
    });
  }
  if (origin.writeGlobalXpub) {
    // The xpub in its BIP32 form (xpub/tpub version bytes): the SLIP-132 forms are not BIP32 serializations.
    (tx as unknown as { global: Record<string, unknown> }).global.xpub = [
      [
        {
          version: args.testnet ? 0x043587cf : 0x0488b21e,
          depth: args.key.depth,
          parentFingerprint: args.key.parentFingerprint,
          childNumber: args.key.childIndex,
          chainCode: args.key.chainCode,
          publicKey: args.key.publicKey,
        },
        { fingerprint: origin.fingerprint, path: origin.prefix },
      ],
    ];
  }
  return base64.encode(tx.toPSBT(0));
}

/** A fully signed transaction read from a posted PSBT or raw transaction. */
export interface SignedTransaction {
  txid: string;
  hex: string;
  vsize: number;
  inputs: { txid: string; vout: number }[];
  outputs: { script: Uint8Array; amount: bigint }[];
}

/** Reads a signed PSBT (base64 or hex) or a raw transaction (hex), finalising the PSBT; refuses anything unsigned. */
export function readSignedTransaction(text: string): SignedTransaction {
  const trimmed = text.trim();
  try {
    if (/^cHNidP/.test(trimmed)) return describe(finalized(Transaction.fromPSBT(base64.decode(trimmed), { allowLegacyWitnessUtxo: true })).extract());
    if (/^70736274ff/i.test(trimmed)) return describe(finalized(Transaction.fromPSBT(Buffer.from(trimmed, 'hex'), { allowLegacyWitnessUtxo: true })).extract());
    if (/^([0-9a-f]{2})+$/i.test(trimmed)) return describe(Buffer.from(trimmed, 'hex'));
  } catch (err) {
    if (err instanceof SpendRefusedError) throw err;
    throw new SpendRefusedError(`the transaction cannot be read: ${(err as Error).message}`);
  }
  throw new SpendRefusedError('expected a signed PSBT (base64 or hex) or a raw transaction (hex)');
}

/** Reads a serialized transaction; every input must carry a signature (scriptSig or witness). */
function describe(raw: Uint8Array): SignedTransaction {
  const tx = Transaction.fromRaw(raw, { allowUnknownOutputs: true, allowUnknownInputs: true });
  const inputs = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    const signed = (input.finalScriptWitness?.length ?? 0) > 0 || (input.finalScriptSig?.length ?? 0) > 0;
    if (!signed) throw new SpendRefusedError(`input ${i} is not signed`);
    inputs.push({ txid: Buffer.from(input.txid!).toString('hex'), vout: input.index! });
  }
  const outputs = [];
  for (let i = 0; i < tx.outputsLength; i++) {
    const o = tx.getOutput(i);
    outputs.push({ script: o.script!, amount: o.amount! });
  }
  return { txid: tx.id, hex: Buffer.from(raw).toString('hex'), vsize: tx.vsize, inputs, outputs };
}

function finalized(tx: Transaction): Transaction {
  if (tx.isFinal) return tx;
  try {
    tx.finalize();
  } catch (err) {
    throw new SpendRefusedError(`the PSBT is not fully signed: ${(err as Error).message}`);
  }
  return tx;
}
