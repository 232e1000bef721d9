/**
 * BIP380 key expressions as satgate accepts them: an optional origin `[fingerprint/path]`, then a compressed
 * hex key (x-only inside `tr()`) or an xpub/tpub followed by unhardened steps, at most one BIP389 multipath step
 * `<a;b>`, and an optional `*`. Private keys, hardened steps after the xpub and uncompressed keys are refused.
 */
import { HDKey } from '@scure/bip32';
import { base58 } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { refuse } from './errors.ts';

export const HARDENED = 0x80000000;

/** BIP32 version bytes of the keys a descriptor may carry (xpub mainnet, tpub test networks). */
export const XPUB_VERSIONS = { mainnet: { public: 0x0488b21e, private: 0x0488ade4 }, test: { public: 0x043587cf, private: 0x04358394 } } as const;

/** A step below the key: a fixed child, or (BIP389) one child per branch. */
export type Step = number | readonly number[];

export interface KeyOriginInfo {
  readonly fingerprint: number;
  readonly path: readonly number[];
}

export interface ExtendedKeyInfo {
  readonly hd: HDKey;
  readonly testnet: boolean;
  /** The key in its xpub/tpub base58 form. */
  readonly text: string;
}

export interface KeyExpression {
  readonly origin?: KeyOriginInfo;
  /** Set for an xpub/tpub. */
  readonly xpub?: ExtendedKeyInfo;
  /** Set for a hex key: 33 bytes compressed, or 32 bytes x-only (only inside `tr()`). */
  readonly publicKey?: Uint8Array;
  readonly steps: readonly Step[];
  /** True for a ranged key (`…/*`). */
  readonly wildcard: boolean;
}

const short = (text: string): string => (text.length > 24 ? `${text.slice(0, 12)}…${text.slice(-6)}` : text);

function base58check(text: string): Uint8Array | undefined {
  let raw: Uint8Array;
  try {
    raw = base58.decode(text);
  } catch {
    return undefined;
  }
  if (raw.length < 5) return undefined;
  const payload = raw.subarray(0, raw.length - 4);
  const check = sha256(sha256(payload));
  for (let i = 0; i < 4; i++) if (raw[raw.length - 4 + i] !== check[i]) return undefined;
  return payload;
}

/** Parses one path step (`12`, `12h`, `12'`); BIP380 allows no other hardened marker. */
export function parseStep(text: string, where: string): number {
  const m = /^(\d+)(['h]?)$/.exec(text);
  if (!m) return refuse('bad-path', `${where}: "${short(text)}" is not a path step (a number, with h or ' for hardened)`);
  const n = Number(m[1]);
  if (!Number.isSafeInteger(n) || n >= HARDENED) return refuse('bad-path', `${where}: step ${short(text)} is out of range (below 2^31)`);
  return m[2] ? n + HARDENED : n;
}

function parseOrigin(text: string): KeyOriginInfo {
  const parts = text.split('/');
  const fp = parts[0]!;
  if (!/^[0-9a-fA-F]{8}$/.test(fp)) return refuse('bad-origin', `key origin [${short(text)}]: the fingerprint must be 8 hex digits`);
  const path = parts.slice(1).map((s) => parseStep(s, `key origin [${short(text)}]`));
  return { fingerprint: parseInt(fp, 16), path };
}

// Private keys are recognised to refuse them by name, not to use them.
function isPrivate(text: string): boolean {
  if (/^[xt]prv/.test(text)) return true;
  const payload = base58check(text);
  if (!payload) return false;
  // WIF: 0x80 (mainnet) or 0xef (test), 32 bytes, and 0x01 for a compressed key.
  if ((payload[0] === 0x80 || payload[0] === 0xef) && (payload.length === 33 || (payload.length === 34 && payload[33] === 1))) return true;
  if (payload.length === 78) {
    const version = new DataView(payload.buffer, payload.byteOffset).getUint32(0, false);
    return version === XPUB_VERSIONS.mainnet.private || version === XPUB_VERSIONS.test.private || payload[45] === 0;
  }
  return false;
}

function parseExtended(text: string): ExtendedKeyInfo {
  const payload = base58check(text);
  if (!payload || payload.length !== 78) return refuse('bad-key', `key ${short(text)} is not a valid xpub or tpub (bad encoding or checksum)`);
  const version = new DataView(payload.buffer, payload.byteOffset).getUint32(0, false);
  const testnet = version === XPUB_VERSIONS.test.public;
  if (!testnet && version !== XPUB_VERSIONS.mainnet.public) {
    return refuse('bad-key', `key ${short(text)}: a descriptor takes xpub or tpub keys (convert SLIP-132 ypub/zpub/Ypub/Zpub keys, or give them as cosigners)`);
  }
  try {
    const hd = HDKey.fromExtendedKey(text, testnet ? XPUB_VERSIONS.test : XPUB_VERSIONS.mainnet);
    return { hd, testnet, text };
  } catch {
    return refuse('bad-key', `key ${short(text)} is not a valid BIP32 public key`);
  }
}

function parseHexKey(text: string, xonly: boolean): Uint8Array {
  const bytes = Uint8Array.from(Buffer.from(text, 'hex'));
  if (bytes.length === 65 && bytes[0] === 0x04) return refuse('uncompressed-key', `key ${short(text)} is uncompressed; satgate takes compressed keys only`);
  if (bytes.length === 32) {
    if (!xonly) return refuse('bad-key', `key ${short(text)} is x-only, which only tr() takes`);
    try {
      secp256k1.Point.fromBytes(Uint8Array.of(0x02, ...bytes)).assertValidity();
    } catch {
      return refuse('bad-key', `key ${short(text)} is not a point on secp256k1`);
    }
    return bytes;
  }
  if (bytes.length !== 33 || (bytes[0] !== 0x02 && bytes[0] !== 0x03)) return refuse('bad-key', `key ${short(text)} is not a compressed public key`);
  try {
    secp256k1.Point.fromBytes(bytes).assertValidity();
  } catch {
    return refuse('bad-key', `key ${short(text)} is not a point on secp256k1`);
  }
  return bytes;
}

/** Parses one key expression; `xonly` allows 32-byte hex keys (inside `tr()`). Throws DescriptorError. */
export function parseKeyExpression(input: string, xonly = false): KeyExpression {
  let text = input;
  let origin: KeyOriginInfo | undefined;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return refuse('bad-origin', `key origin in ${short(input)} has no closing ]`);
    origin = parseOrigin(text.slice(1, close));
    text = text.slice(close + 1);
  }
  if (text.includes('[') || text.includes(']')) return refuse('bad-origin', `key ${short(input)}: one key origin [fingerprint/path] at the start, at most`);
  if (text === '') return refuse('bad-key', `key origin ${short(input)} is followed by no key`);
  const [keyText, ...rest] = text.split('/');
  if (isPrivate(keyText!)) return refuse('private-key', 'a private key was given; register only public keys (xpub/tpub), and keep private keys secret');
  if (/^[0-9a-fA-F]+$/.test(keyText!)) {
    if (rest.length > 0) return refuse('bad-path', `key ${short(keyText!)}: a hex key cannot have derivation steps`);
    return { origin, publicKey: parseHexKey(keyText!, xonly), steps: [], wildcard: false };
  }
  const xpub = parseExtended(keyText!);
  const steps: Step[] = [];
  let wildcard = false;
  let multipath = false;
  rest.forEach((part, i) => {
    const where = `key ${short(keyText!)}`;
    if (wildcard) return refuse('bad-path', `${where}: * must be the last step`);
    if (part === '*') {
      wildcard = true;
      return;
    }
    if (/^\*['hH]$/.test(part) || /^\d+['hH]$/.test(part) || /<[^>]*['hH][;>]/.test(part)) {
      return refuse('hardened-step', `${where}: hardened step "${part}" after the xpub cannot be derived from a public key`);
    }
    if (part.startsWith('<') || part.endsWith('>') || part.includes(';')) {
      const m = /^<(\d+(?:;\d+)+)>$/.exec(part);
      if (!m) return refuse('multipath', `${where}: "${short(part)}" is not a multipath step like <0;1>`);
      if (multipath) return refuse('multipath', `${where}: only one multipath step per key`);
      multipath = true;
      const branches = m[1]!.split(';').map((s) => parseStep(s, where));
      if (new Set(branches).size !== branches.length) return refuse('multipath', `${where}: a multipath step repeats a branch`);
      steps.push(branches);
      return;
    }
    if (part === '' && i === rest.length - 1) return refuse('bad-path', `${where}: trailing /`);
    steps.push(parseStep(part, where));
  });
  return { origin, xpub, steps, wildcard };
}

const stepText = (n: number): string => (n >= HARDENED ? `${n - HARDENED}h` : String(n));

/** The canonical text of an origin, `[d34db33f/48h/0h/0h/2h]`. */
export function formatOrigin(origin: KeyOriginInfo): string {
  return `[${origin.fingerprint.toString(16).padStart(8, '0')}${origin.path.map((n) => `/${stepText(n)}`).join('')}]`;
}

/** The canonical text of a key expression (`h` for hardened). */
export function formatKeyExpression(key: KeyExpression): string {
  const origin = key.origin ? formatOrigin(key.origin) : '';
  const base = key.xpub ? key.xpub.text : Buffer.from(key.publicKey!).toString('hex');
  const steps = key.steps.map((s) => `/${typeof s === 'number' ? stepText(s) : `<${s.map(stepText).join(';')}>`}`).join('');
  return `${origin}${base}${steps}${key.wildcard ? '/*' : ''}`;
}

/** Number of branches of a key's multipath step (1 when it has none). */
export function multipathLength(key: KeyExpression): number {
  const m = key.steps.find((s) => typeof s !== 'number');
  return m ? (m as readonly number[]).length : 1;
}
