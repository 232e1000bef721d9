/**
 * Key origins for PSBTs and descriptors. DESIGN.md section 9 "PSBT key origins": a depth-0 key is its own origin;
 * a depth-1 key (Electrum seeds) has its origin inside it (parent fingerprint and child number), so the global xpub
 * is written; deeper keys get each derivation as the account key's own fingerprint with `0/i` or `1/i` and no global
 * xpub (BIP174 wants as many origin steps as the key's depth, and Electrum 4.3 refuses a PSBT that breaks that).
 */
import type { ExtendedPublicKey } from './extended-key.ts';

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
