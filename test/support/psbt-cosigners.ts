// Cosigners that hold their seed, for refund tests of multisig and taproot wallets: the account key with its origin
// (for the descriptor), and offline signing of a PSBT the way a hardware wallet does it: each input whose BIP32 (or
// BIP371 taproot) derivation names this seed's fingerprint is signed with the key at that path, nothing else.
import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { Transaction } from '@scure/btc-signer';
import { base64 } from '@scure/base';

const TEST = { private: 0x04358394, public: 0x043587cf };

export interface SigningCosigner {
  readonly root: HDKey;
  readonly fingerprint: string;
  /** `[fingerprint/path]xpub` as a descriptor key expression before its steps. */
  readonly withOrigin: string;
  readonly xpub: string;
  /** Signs every input its seed has a key for; the partially signed PSBT (base64). */
  sign(psbt: string): string;
}

/** A fresh test-network cosigner with its account at `path` (default BIP48 P2WSH, m/48'/1'/0'/2'). */
export function signingCosigner(path = "m/48'/1'/0'/2'"): SigningCosigner {
  const root = HDKey.fromMasterSeed(randomBytes(32), TEST);
  const account = root.derive(path);
  const fingerprint = root.fingerprint.toString(16).padStart(8, '0');
  const origin = `[${fingerprint}${path.slice(1).replaceAll("'", 'h')}]`;
  return {
    root,
    fingerprint,
    xpub: account.publicExtendedKey,
    withOrigin: `${origin}${account.publicExtendedKey}`,
    sign(psbt) {
      const tx = Transaction.fromPSBT(base64.decode(psbt), { allowLegacyWitnessUtxo: true });
      let signed = 0;
      for (let i = 0; i < tx.inputsLength; i++) {
        const input = tx.getInput(i);
        const paths = [
          ...(input.bip32Derivation ?? []).map(([, d]) => d),
          ...(input.tapBip32Derivation ?? []).map(([, d]) => d.der),
        ].filter((d) => d.fingerprint === root.fingerprint);
        for (const d of paths) {
          const key = d.path.reduce((k: HDKey, step: number) => k.deriveChild(step), root);
          tx.signIdx(key.privateKey!, i);
          signed++;
        }
      }
      if (signed === 0) throw new Error(`cosigner ${fingerprint} has no key in this PSBT`);
      return base64.encode(tx.toPSBT(0));
    },
  };
}
