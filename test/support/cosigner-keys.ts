// Random cosigner keys for tests of descriptor, multisig and taproot wallets: account keys (tpub/xpub) with their
// master fingerprint and BIP48/BIP86 path, and SLIP-132 Vpub/Zpub spellings of the same keys.
import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { base58 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';

const TEST = { private: 0x04358394, public: 0x043587cf };
const MAIN = { private: 0x0488ade4, public: 0x0488b21e };

export interface Cosigner {
  /** The account key, xpub/tpub form. */
  readonly xpub: string;
  /** `[fingerprint/path]` in descriptor syntax with h for hardened steps. */
  readonly origin: string;
  /** The account key with its origin, as a descriptor key expression before its steps. */
  readonly withOrigin: string;
}

/** A fresh cosigner's account key below `path` (default BIP48 P2WSH, m/48'/1'/0'/2'). */
export function cosigner(testnet = true, path = "m/48'/1'/0'/2'"): Cosigner {
  const root = HDKey.fromMasterSeed(randomBytes(32), testnet ? TEST : MAIN);
  const account = root.derive(path);
  const fingerprint = root.fingerprint.toString(16).padStart(8, '0');
  const steps = path.split('/').slice(1).map((s) => s.replace("'", 'h'));
  const origin = `[${fingerprint}/${steps.join('/')}]`;
  return { xpub: account.publicExtendedKey, origin, withOrigin: `${origin}${account.publicExtendedKey}` };
}

/** The same key with other SLIP-132 version bytes (e.g. 0x02575483 Vpub, 0x02aa7ed3 Zpub). */
export function withVersion(xpub: string, version: number): string {
  const raw = base58.decode(xpub);
  const payload = Uint8Array.from(raw.subarray(0, raw.length - 4));
  new DataView(payload.buffer).setUint32(0, version, false);
  return base58.encode(Uint8Array.of(...payload, ...sha256(sha256(payload)).subarray(0, 4)));
}

/** The version bytes of Vpub (P2WSH multisig, test networks). */
export const VPUB_VERSION = 0x02575483;
