/** Parsing and validation of extended public keys (xpub/ypub/zpub, tpub/upub/vpub). */
import { HDKey, type Versions } from '@scure/bip32';
import { base58 } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { Network } from './networks.ts';
import { isTestNetwork } from './networks.ts';
import type { ScriptType } from './script-type.ts';
import { ReasonError } from '../core/errors.ts';

/** The six kinds of extended public key we accept. */
export type ExtendedKeyKind = 'xpub' | 'ypub' | 'zpub' | 'tpub' | 'upub' | 'vpub';

/** Deepest key accepted: a BIP44/49/84 account key (m/purpose'/coin'/account'). */
export const MAX_KEY_DEPTH = 3;

interface KindInfo {
  readonly kind: ExtendedKeyKind;
  readonly testnet: boolean;
  readonly scriptType: ScriptType;
  readonly versions: Versions;
}

const KINDS: readonly KindInfo[] = [
  { kind: 'xpub', testnet: false, scriptType: 'p2pkh', versions: { public: 0x0488b21e, private: 0x0488ade4 } },
  { kind: 'ypub', testnet: false, scriptType: 'p2sh-p2wpkh', versions: { public: 0x049d7cb2, private: 0x049d7878 } },
  { kind: 'zpub', testnet: false, scriptType: 'p2wpkh', versions: { public: 0x04b24746, private: 0x04b2430c } },
  { kind: 'tpub', testnet: true, scriptType: 'p2pkh', versions: { public: 0x043587cf, private: 0x04358394 } },
  { kind: 'upub', testnet: true, scriptType: 'p2sh-p2wpkh', versions: { public: 0x044a5262, private: 0x044a4e28 } },
  { kind: 'vpub', testnet: true, scriptType: 'p2wpkh', versions: { public: 0x045f1cf6, private: 0x045f18bc } },
];

// SLIP-132 multisig versions (Ypub/Zpub/Upub/Vpub and their private forms): recognised only to refuse clearly.
const MULTISIG_PUBLIC = new Set([0x0295b43f, 0x02aa7ed3, 0x024289ef, 0x02575483]);
const MULTISIG_PRIVATE = new Set([0x0295b005, 0x02aa7a99, 0x024285b5, 0x02575048]);

/** Why a key was refused; the message says the same in words. */
export type InvalidExtendedKeyReason =
  | 'not-a-string'
  | 'not-base58'
  | 'bad-checksum'
  | 'bad-length'
  | 'private-key'
  | 'multisig-key'
  | 'unknown-version'
  | 'bad-public-key'
  | 'too-deep'
  | 'bad-root';

/** A refused extended key. The message explains the problem and never contains the key itself. */
export class InvalidExtendedKeyError extends ReasonError<InvalidExtendedKeyReason> {}

/** A validated extended public key. */
export interface ExtendedPublicKey {
  readonly kind: ExtendedKeyKind;
  /** True for tpub/upub/vpub (test networks), false for xpub/ypub/zpub (mainnet). */
  readonly testnet: boolean;
  /** Script type the key's prefix implies (xpub/tpub p2pkh, ypub/upub p2sh-p2wpkh, zpub/vpub p2wpkh). */
  readonly defaultScriptType: ScriptType;
  readonly depth: number;
  readonly parentFingerprint: number;
  readonly childIndex: number;
  /** 33-byte compressed public key of this node. */
  readonly publicKey: Uint8Array;
  readonly chainCode: Uint8Array;
  /** The key as given (surrounding whitespace removed); canonical, since base58check has one spelling. */
  readonly text: string;
  /** The @scure/bip32 node (public only), for derivation. */
  readonly hd: HDKey;
}

const fail = (reason: InvalidExtendedKeyReason, message: string): never => {
  throw new InvalidExtendedKeyError(reason, message);
};

function base58checkPayload(text: string): Uint8Array {
  let raw: Uint8Array;
  try {
    raw = base58.decode(text);
  } catch {
    return fail('not-base58', 'the key is not base58 text (it has characters an extended key cannot contain)');
  }
  if (raw.length < 5) return fail('bad-length', 'the key is too short to be an extended key');
  const payload = raw.subarray(0, raw.length - 4);
  const check = sha256(sha256(payload));
  for (let i = 0; i < 4; i++) {
    if (raw[raw.length - 4 + i] !== check[i]) {
      return fail('bad-checksum', 'the key checksum does not match (a character is mistyped or missing)');
    }
  }
  return payload;
}

/** Parse and validate an extended public key; throws InvalidExtendedKeyError. */
export function parseExtendedPublicKey(input: unknown): ExtendedPublicKey {
  if (typeof input !== 'string') return fail('not-a-string', 'the key must be a string');
  const text = input.trim();
  if (text.length === 0) return fail('bad-length', 'the key is empty');
  if (text.length > 200) return fail('bad-length', 'the key is too long to be an extended key');
  const payload = base58checkPayload(text);
  if (payload.length !== 78) {
    return fail('bad-length', `the key decodes to ${payload.length} bytes; an extended key has 78`);
  }
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const version = view.getUint32(0, false);
  if (KINDS.some((k) => k.versions.private === version) || MULTISIG_PRIVATE.has(version)) {
    return fail('private-key', 'this is a private extended key; register only the public key (xpub, ypub, zpub, tpub, upub or vpub), and keep the private key secret');
  }
  if (MULTISIG_PUBLIC.has(version)) {
    return fail('multisig-key', 'multisig extended keys (Ypub, Zpub, Upub, Vpub) are not supported');
  }
  const info = KINDS.find((k) => k.versions.public === version);
  if (!info) {
    return fail('unknown-version', `unknown extended key version 0x${version.toString(16).padStart(8, '0')}; expected xpub, ypub, zpub, tpub, upub or vpub`);
  }
  const depth = payload[4] ?? 0;
  const parentFingerprint = view.getUint32(5, false);
  const childIndex = view.getUint32(9, false);
  const keyData = payload.subarray(45, 78);
  if (keyData[0] === 0x00) {
    return fail('private-key', 'this key carries private key data; register only the public key');
  }
  if (keyData[0] !== 0x02 && keyData[0] !== 0x03) {
    return fail('bad-public-key', 'the key data is not a compressed public key (prefix must be 02 or 03)');
  }
  try {
    secp256k1.Point.fromBytes(keyData).assertValidity();
  } catch {
    return fail('bad-public-key', 'the key data is not a valid point on the secp256k1 curve');
  }
  if (depth > MAX_KEY_DEPTH) {
    return fail('too-deep', `the key is at depth ${depth}; give the account key (depth 3, e.g. m/84'/0'/0') or a root key`);
  }
  if (depth === 0 && (parentFingerprint !== 0 || childIndex !== 0)) {
    return fail('bad-root', 'a depth-0 key must have parent fingerprint 0 and child index 0');
  }
  let hd: HDKey;
  try {
    hd = HDKey.fromExtendedKey(text, info.versions);
  } catch {
    return fail('bad-public-key', 'the key could not be loaded as a BIP32 public key');
  }
  return {
    kind: info.kind,
    testnet: info.testnet,
    defaultScriptType: info.scriptType,
    depth,
    parentFingerprint,
    childIndex,
    publicKey: Uint8Array.from(keyData),
    chainCode: payload.slice(13, 45),
    text,
    hd,
  };
}

/** True when the key's prefix belongs to the network (xpub/ypub/zpub mainnet, tpub/upub/vpub test networks). */
export function keyFitsNetwork(key: Pick<ExtendedPublicKey, 'testnet'>, network: Network): boolean {
  return key.testnet === isTestNetwork(network);
}

/** BIP32 version bytes (public and private) of a key kind, e.g. for serializing a derived account key. */
export function versionsForKind(kind: ExtendedKeyKind): Versions {
  const info = KINDS.find((k) => k.kind === kind);
  if (!info) throw new RangeError(`unknown key kind ${String(kind)}`);
  return info.versions;
}

/** The key kind a network and script type use (e.g. testnet + p2wpkh is vpub). */
export function kindFor(testnet: boolean, scriptType: ScriptType): ExtendedKeyKind {
  const info = KINDS.find((k) => k.testnet === testnet && k.scriptType === scriptType);
  if (!info) throw new RangeError(`no key kind for ${scriptType}`);
  return info.kind;
}
