/**
 * BIP174 PSBTs for watch-only wallets, and reading back what their owner signed. Key origins (bitcoin/key-origin.ts)
 * follow DESIGN.md section 9 "PSBT key origins"; the fields per input come from the kind's output-kinds row.
 */
import { Transaction } from '@scure/btc-signer';
import { base64 } from '@scure/base';
import type { ExtendedPublicKey } from '../bitcoin/extended-key.ts';
import type { ScriptType } from '../bitcoin/script-type.ts';
import { keyOrigin } from '../bitcoin/key-origin.ts';
import { OUTPUT_KINDS } from '../bitcoin/output-kinds.ts';
import { RBF_SEQUENCE } from './build-tx.ts';
import { SpendRefusedError } from './spending-errors.ts';
import { checkMultisigSignatures } from './multisig-signatures.ts';

export { parseKeyOrigin, formatKeyOrigin, keyOrigin, type KeyOrigin } from '../bitcoin/key-origin.ts';

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
  const row = OUTPUT_KINDS[args.scriptType];
  const tx = new Transaction({ version: 2, allowLegacyWitnessUtxo: true });
  const der = (branch: number, index: number, publicKey: Uint8Array): [Uint8Array, { fingerprint: number; path: number[] }][] => [
    [publicKey, { fingerprint: origin.fingerprint, path: [...origin.prefix, branch, index] }],
  ];
  for (const i of args.inputs) {
    const publicKey = args.key.hd.deriveChild(i.branch).deriveChild(i.index).publicKey!;
    const { redeemScript } = row.spend([publicKey]);
    tx.addInput({
      txid: i.txid,
      index: i.vout,
      sequence: RBF_SEQUENCE,
      nonWitnessUtxo: i.prevTx,
      ...(row.psbtInput.includes('witnessUtxo') ? { witnessUtxo: { script: i.script, amount: i.value } } : {}),
      ...(redeemScript ? { redeemScript } : {}),
      bip32Derivation: der(i.branch, i.index, publicKey),
    });
  }
  for (const o of args.outputs) tx.addOutput({ script: o.script, amount: o.amount });
  if (args.change) {
    const publicKey = args.key.hd.deriveChild(1).deriveChild(args.change.index).publicKey!;
    const { redeemScript } = row.spend([publicKey]);
    tx.addOutput({
      script: args.change.script,
      amount: args.change.amount,
      ...(redeemScript ? { redeemScript } : {}),
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

/**
 * Reads a signed PSBT (base64 or hex) or a raw transaction (hex), finalising the PSBT; refuses anything unsigned.
 * Several texts are the cosigners' partially signed PSBTs of one transaction: they are combined (BIP174) first.
 */
export function readSignedTransaction(text: string | readonly string[]): SignedTransaction {
  const texts = (typeof text === 'string' ? [text] : text).map((t) => t.trim());
  try {
    if (texts.length === 1) {
      const trimmed = texts[0]!;
      if (isPsbtText(trimmed)) return describe(finalized(psbtOf(trimmed)).extract());
      if (/^([0-9a-f]{2})+$/i.test(trimmed)) return describe(Buffer.from(trimmed, 'hex'));
    } else if (texts.length > 1 && texts.every(isPsbtText)) {
      const [first, ...rest] = texts.map(psbtOf);
      for (const other of rest) {
        try {
          first!.combine(other);
        } catch (err) {
          throw new SpendRefusedError(`the PSBTs are not of one transaction: ${(err as Error).message}`);
        }
      }
      return describe(finalized(first!).extract());
    }
  } catch (err) {
    if (err instanceof SpendRefusedError) throw err;
    throw new SpendRefusedError(`the transaction cannot be read: ${(err as Error).message}`);
  }
  if (texts.length > 1) throw new SpendRefusedError('several texts are combined only when each is a PSBT (base64 or hex)');
  throw new SpendRefusedError('expected a signed PSBT (base64 or hex) or a raw transaction (hex)');
}

const isPsbtText = (t: string): boolean => /^cHNidP/.test(t) || /^70736274ff/i.test(t);

function psbtOf(t: string): Transaction {
  return Transaction.fromPSBT(/^cHNidP/.test(t) ? base64.decode(t) : Buffer.from(t, 'hex'), { allowLegacyWitnessUtxo: true });
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
  checkMultisigSignatures(tx);
  try {
    tx.finalize();
  } catch (err) {
    throw new SpendRefusedError(`the PSBT is not fully signed: ${(err as Error).message}`);
  }
  return tx;
}
