/** Output scripts from public keys, and address encoding and decoding for every network. */
import { base58, bech32, bech32m } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { NETWORKS, networkParams, type Network } from './networks.ts';
import type { ScriptType } from './script-type.ts';
import { OUTPUT_KINDS } from './output-kinds.ts';
import { OP_0, OP_1, OP_16, OP_CHECKSIG, OP_DUP, OP_EQUAL, OP_EQUALVERIFY, OP_HASH160, hash160, p2pkhScript, p2shScript, witnessScript } from './script-build.ts';
import { ReasonError } from '../core/errors.ts';

/** Kinds of output an address can stand for. */
export type AddressType = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr' | 'witness-unknown';

/** A decoded address: the networks it is valid on and the scriptPubKey it pays. */
export interface DecodedAddress {
  readonly type: AddressType;
  /** Networks whose address format this is (e.g. `tb1…` is valid on testnet4 and signet). */
  readonly networks: readonly Network[];
  readonly script: Uint8Array;
}

/** Why an address was refused; the message says the same in words. */
export type InvalidAddressReason = 'not-a-string' | 'bad-encoding' | 'bad-checksum' | 'unknown-prefix' | 'bad-program' | 'wrong-network';

/** A refused address string. */
export class InvalidAddressError extends ReasonError<InvalidAddressReason> {}

/** RIPEMD160(SHA256(data)). */
export { hash160 };

/** The scriptPubKey paying a 33-byte compressed public key as the given script type. */
export function scriptForPublicKey(publicKey: Uint8Array, scriptType: ScriptType): Uint8Array {
  if (publicKey.length !== 33 || (publicKey[0] !== 0x02 && publicKey[0] !== 0x03)) {
    throw new TypeError('expected a 33-byte compressed public key');
  }
  return OUTPUT_KINDS[scriptType].spend([publicKey]).script;
}

type ScriptInfo =
  | { kind: 'p2pkh'; hash: Uint8Array }
  | { kind: 'p2sh'; hash: Uint8Array }
  | { kind: 'witness'; version: number; program: Uint8Array };

function classifyScript(script: Uint8Array): ScriptInfo | undefined {
  const n = script.length;
  if (n === 25 && script[0] === OP_DUP && script[1] === OP_HASH160 && script[2] === 20 && script[23] === OP_EQUALVERIFY && script[24] === OP_CHECKSIG) {
    return { kind: 'p2pkh', hash: script.subarray(3, 23) };
  }
  if (n === 23 && script[0] === OP_HASH160 && script[1] === 20 && script[22] === OP_EQUAL) {
    return { kind: 'p2sh', hash: script.subarray(2, 22) };
  }
  const op = script[0] ?? -1;
  const version = op === OP_0 ? 0 : op >= OP_1 && op <= OP_16 ? op - OP_1 + 1 : -1;
  if (version >= 0 && n >= 4 && script[1] === n - 2) {
    const program = script.subarray(2);
    if (validProgram(version, program.length)) return { kind: 'witness', version, program };
  }
  return undefined;
}

// BIP141: programs are 2..40 bytes, and version 0 only 20 (key hash) or 32 (script hash).
function validProgram(version: number, length: number): boolean {
  if (length < 2 || length > 40) return false;
  return version !== 0 || length === 20 || length === 32;
}

function base58checkEncode(version: number, hash: Uint8Array): string {
  const payload = Uint8Array.of(version, ...hash);
  const check = sha256(sha256(payload)).subarray(0, 4);
  return base58.encode(Uint8Array.of(...payload, ...check));
}

/** The address of a scriptPubKey on a network, or undefined for a script with no address form. */
export function addressFromScript(script: Uint8Array, network: Network): string | undefined {
  const info = classifyScript(script);
  if (!info) return undefined;
  const params = networkParams(network);
  if (info.kind === 'p2pkh') return base58checkEncode(params.pubKeyHash, info.hash);
  if (info.kind === 'p2sh') return base58checkEncode(params.scriptHash, info.hash);
  const words = [info.version, ...bech32.toWords(info.program)];
  // BIP350: version 0 keeps bech32, versions 1+ use bech32m.
  return info.version === 0 ? bech32.encode(params.bech32, words) : bech32m.encode(params.bech32, words);
}

/** Like addressFromScript, but throws for a script with no address form. */
export function encodeAddress(script: Uint8Array, network: Network): string {
  const address = addressFromScript(script, network);
  if (address === undefined) throw new TypeError('this output script has no standard address form');
  return address;
}

/** The address a public key receives at as the given script type. */
export function addressForPublicKey(publicKey: Uint8Array, scriptType: ScriptType, network: Network): string {
  return encodeAddress(scriptForPublicKey(publicKey, scriptType), network);
}

const fail = (reason: InvalidAddressReason, message: string): never => {
  throw new InvalidAddressError(reason, message);
};

function decodeBase58(text: string): DecodedAddress {
  let raw: Uint8Array;
  try {
    raw = base58.decode(text);
  } catch {
    return fail('bad-encoding', 'the address has characters that are not valid in a bitcoin address');
  }
  if (raw.length !== 25) return fail('bad-encoding', 'the address has the wrong length');
  const payload = raw.subarray(0, 21);
  const check = sha256(sha256(payload));
  for (let i = 0; i < 4; i++) {
    if (raw[21 + i] !== check[i]) return fail('bad-checksum', 'the address checksum does not match (a character is mistyped)');
  }
  const version = payload[0];
  const hash = payload.slice(1);
  const p2pkh = NETWORKS.filter((n) => networkParams(n).pubKeyHash === version);
  if (p2pkh.length > 0) return { type: 'p2pkh', networks: p2pkh, script: p2pkhScript(hash) };
  const p2sh = NETWORKS.filter((n) => networkParams(n).scriptHash === version);
  if (p2sh.length > 0) return { type: 'p2sh', networks: p2sh, script: p2shScript(hash) };
  return fail('unknown-prefix', 'the address version byte belongs to no supported network');
}

function decodeSegwit(text: string, hrp: string): DecodedAddress {
  const networks = NETWORKS.filter((n) => networkParams(n).bech32 === hrp);
  let words: number[];
  let isBech32m: boolean;
  try {
    words = bech32.decode(text as `${string}1${string}`, 90).words;
    isBech32m = false;
  } catch {
    try {
      words = bech32m.decode(text as `${string}1${string}`, 90).words;
      isBech32m = true;
    } catch {
      return fail('bad-checksum', 'the address checksum does not match (a character is mistyped or the case is mixed)');
    }
  }
  const version = words[0];
  if (version === undefined || version > 16) return fail('bad-program', 'the address has no valid witness version');
  // BIP350: version 0 must use bech32, versions 1..16 must use bech32m.
  if ((version === 0) === isBech32m) return fail('bad-checksum', 'the address uses the wrong checksum variant for its witness version');
  let program: Uint8Array;
  try {
    program = bech32.fromWords(words.slice(1));
  } catch {
    return fail('bad-program', 'the address witness program is badly padded');
  }
  if (!validProgram(version, program.length)) return fail('bad-program', 'the address witness program has an invalid length');
  const type: AddressType =
    version === 0 ? (program.length === 20 ? 'p2wpkh' : 'p2wsh') : version === 1 && program.length === 32 ? 'p2tr' : 'witness-unknown';
  return { type, networks, script: witnessScript(version, program) };
}

/** Decode and fully validate an address string; throws InvalidAddressError. */
export function decodeAddress(input: unknown): DecodedAddress {
  if (typeof input !== 'string') return fail('not-a-string', 'the address must be a string');
  const text = input.trim();
  if (text.length === 0) return fail('bad-encoding', 'the address is empty');
  if (text.length > 90) return fail('bad-encoding', 'the address is too long');
  const sep = text.lastIndexOf('1');
  const hrp = sep > 0 ? text.slice(0, sep).toLowerCase() : '';
  if (NETWORKS.some((n) => networkParams(n).bech32 === hrp)) return decodeSegwit(text, hrp);
  return decodeBase58(text);
}

/** Decode an address and require it to be valid on the given network; throws InvalidAddressError. */
export function decodeAddressFor(input: unknown, network: Network): DecodedAddress {
  const decoded = decodeAddress(input);
  if (!decoded.networks.includes(network)) {
    return fail('wrong-network', `the address is for ${decoded.networks.join('/')}, not ${network}`);
  }
  return decoded;
}
