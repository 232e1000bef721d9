/**
 * Watch-only PSBTs of wallets read as a wallet key (descriptor, multisig and taproot wallets): every field a
 * signer needs comes from the kind's output-kinds row and the wallet key's output at that index, so each cosigner
 * can sign alone: witness and redeem scripts, every cosigner's BIP32 derivation with its origin (multisig), the
 * BIP371 internal key and taproot derivation (taproot), and the cosigners' global xpubs where their origin is whole.
 */
import { Transaction } from '@scure/btc-signer';
import { base64 } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { OUTPUT_KINDS } from '../bitcoin/output-kinds.ts';
import { isTestNetwork } from '../bitcoin/networks.ts';
import { XPUB_VERSIONS } from '../bitcoin/descriptors/key-expression.ts';
import type { WalletKey, WalletOutput } from '../bitcoin/wallet-key.ts';
import { RBF_SEQUENCE } from './build-tx.ts';
import type { PsbtInput } from './psbt.ts';

type Der = { fingerprint: number; path: number[] };

/** The PSBT fields (input or output) of one of the wallet's outputs, as the kind's row lists them. */
function keyFields(key: WalletKey, out: WalletOutput): Record<string, unknown> {
  const row = OUTPUT_KINDS[key.kind];
  const fields: Record<string, unknown> = {};
  if (out.redeemScript && row.psbtInput.includes('redeemScript')) fields.redeemScript = out.redeemScript;
  if (out.witnessScript && row.psbtInput.includes('witnessScript')) fields.witnessScript = out.witnessScript;
  if (row.psbtInput.includes('bip32Derivation')) {
    fields.bip32Derivation = out.keys.map((k): [Uint8Array, Der] => [k.publicKey, { fingerprint: k.fingerprint, path: [...k.path] }]);
  }
  if (row.psbtInput.includes('tapInternalKey')) fields.tapInternalKey = out.tapInternalKey;
  if (row.psbtInput.includes('tapBip32Derivation')) {
    // BIP86 key path: no leaf hashes; the key is x-only (the internal key).
    fields.tapBip32Derivation = out.keys.map((k): [Uint8Array, { hashes: Uint8Array[]; der: Der }] => [
      k.publicKey.length === 33 ? k.publicKey.subarray(1) : k.publicKey,
      { hashes: [], der: { fingerprint: k.fingerprint, path: [...k.path] } },
    ]);
  }
  return fields;
}

/**
 * The cosigners' account keys as BIP174 global xpubs, each only when its origin has as many steps as the key's
 * depth (BIP174; Electrum 4.3 refuses a PSBT that breaks it): a key registered without its origin is left out.
 */
function globalXpubs(key: WalletKey): unknown[] {
  const versions = isTestNetwork(key.network) ? XPUB_VERSIONS.test : XPUB_VERSIONS.mainnet;
  const out = [];
  for (const o of key.origins) {
    const hd = HDKey.fromExtendedKey(o.xpub, versions);
    if (o.path.length !== hd.depth || (hd.depth > 0 && o.path[o.path.length - 1] !== hd.index)) continue;
    out.push([
      { version: versions.public, depth: hd.depth, parentFingerprint: hd.parentFingerprint, childNumber: hd.index, chainCode: hd.chainCode!, publicKey: hd.publicKey! },
      { fingerprint: o.fingerprint, path: [...o.path] },
    ]);
  }
  return out;
}

/** Builds the unsigned PSBT (base64) spending the wallet's coins to `outputs`, plus change to `change(index)`. */
export function buildWalletKeyPsbt(args: {
  key: WalletKey;
  inputs: PsbtInput[];
  outputs: { script: Uint8Array; amount: bigint }[];
  change?: { script: Uint8Array; amount: bigint; index: number };
}): string {
  const { key } = args;
  const row = OUTPUT_KINDS[key.kind];
  const tx = new Transaction({ version: 2, allowLegacyWitnessUtxo: true });
  for (const i of args.inputs) {
    const out = i.branch === 0 ? key.receive(i.index) : key.change(i.index);
    if (!Buffer.from(out.script).equals(Buffer.from(i.script))) throw new Error(`coin ${i.txid}:${i.vout} is not the wallet's output ${i.branch}/${i.index}`);
    tx.addInput({
      txid: i.txid,
      index: i.vout,
      sequence: RBF_SEQUENCE,
      ...(row.psbtInput.includes('nonWitnessUtxo') ? { nonWitnessUtxo: i.prevTx } : {}),
      ...(row.psbtInput.includes('witnessUtxo') ? { witnessUtxo: { script: i.script, amount: i.value } } : {}),
      ...keyFields(key, out),
    });
  }
  for (const o of args.outputs) tx.addOutput({ script: o.script, amount: o.amount });
  if (args.change) {
    const out = key.change(args.change.index);
    if (!Buffer.from(out.script).equals(Buffer.from(args.change.script))) throw new Error(`change script is not the wallet's output 1/${args.change.index}`);
    tx.addOutput({ script: args.change.script, amount: args.change.amount, ...keyFields(key, out) });
  }
  const xpubs = globalXpubs(key);
  if (xpubs.length > 0) (tx as unknown as { global: Record<string, unknown> }).global.xpub = xpubs;
  return base64.encode(tx.toPSBT(0));
}
