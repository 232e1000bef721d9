/**
 * The cosigners' signatures of a multisig PSBT, checked before it is finalised: each input needs its threshold of
 * valid SIGHASH_ALL signatures. The finaliser does not verify what it puts in the witness, so a cosigner's bad
 * signature is named here rather than left for the node to refuse after the spend is recorded.
 */
import { OutScript, SigHash, Transaction } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { SpendRefusedError } from './spending-errors.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Throws SpendRefusedError naming the input and cosigner when a signature is wrong or too few are present. */
export function checkMultisigSignatures(tx: Transaction): void {
  for (let idx = 0; idx < tx.inputsLength; idx++) {
    const input = tx.getInput(idx);
    if (input.finalScriptSig || input.finalScriptWitness) continue;
    const script = input.witnessScript ?? input.redeemScript;
    if (!script) continue;
    let ms;
    try {
      ms = OutScript.decode(script);
    } catch {
      continue;
    }
    if (ms.type !== 'ms') continue;
    const origins = new Map((input.bip32Derivation ?? []).map(([pub, der]) => [hex(pub), der.fingerprint.toString(16).padStart(8, '0')]));
    const name = (pub: Uint8Array) => (origins.has(hex(pub)) ? `cosigner ${origins.get(hex(pub))}` : `key ${hex(pub)}`);
    let good = 0;
    for (const [pub, sig] of input.partialSig ?? []) {
      if (!ms.pubkeys.some((k) => hex(k) === hex(pub))) continue;
      const hashType = sig[sig.length - 1]!;
      if (hashType !== SigHash.ALL) throw new SpendRefusedError(`input ${idx}: ${name(pub)} signed with sighash type ${hashType}; refunds take SIGHASH_ALL only`);
      if (input.witnessScript) {
        const amount = input.witnessUtxo?.amount ?? (input.nonWitnessUtxo ? input.nonWitnessUtxo.outputs[input.index!]?.amount : undefined);
        if (amount === undefined) throw new SpendRefusedError(`input ${idx} carries neither its witness UTXO nor its previous transaction`);
        const hash = tx.preimageWitnessV0(idx, input.witnessScript, hashType, amount);
        let valid = false;
        try {
          valid = secp256k1.verify(sig.subarray(0, -1), hash, pub, { prehash: false, format: 'der', lowS: false });
        } catch {
          valid = false;
        }
        if (!valid) throw new SpendRefusedError(`input ${idx}: the signature of ${name(pub)} does not verify (signed another transaction?)`);
      }
      good++;
    }
    if (good < ms.m) {
      throw new SpendRefusedError(
        `input ${idx} has ${good} of the ${ms.m} signatures it needs (${ms.m}-of-${ms.pubkeys.length}): post the cosigners' partially signed PSBTs together`,
      );
    }
  }
}
