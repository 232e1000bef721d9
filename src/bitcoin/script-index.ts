// The watched-script set of DESIGN.md section 4: a Map keyed by a 32-bit integer read from the
// script's hash bytes, then a byte compare. Several times faster than a Set of hex strings.

interface Entry<V> {
  script: Uint8Array;
  value: V;
}

/** Offset of the 4 key bytes for standard scripts, or -1 when the script is not standard. */
function hashOffset(s: Uint8Array): number {
  const n = s.length;
  // p2wpkh 0014{20}, p2wsh 0020{32}, p2tr 5120{32}: the program starts at byte 2.
  if ((n === 22 || n === 34) && s[1] === n - 2 && (s[0] === 0 || (s[0]! >= 0x51 && s[0]! <= 0x60))) return 2;
  // p2pkh 76a914{20}88ac
  if (n === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14) return 3;
  // p2sh a914{20}87
  if (n === 23 && s[0] === 0xa9 && s[1] === 0x14) return 2;
  return -1;
}

/** The integer key of a script: 4 hash bytes for standard scripts, FNV-1a of the bytes otherwise. */
export function scriptKey(s: Uint8Array): number {
  const off = hashOffset(s);
  // Masked to 30 bits so V8 keeps keys as small integers (no heap numbers in the Map).
  if (off >= 0) return ((s[off]! | (s[off + 1]! << 8) | (s[off + 2]! << 16) | (s[off + 3]! << 24)) ^ s.length) & 0x3fffffff;
  let h = 0x811c9dc5 ^ s.length;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s[i]!, 0x01000193);
  return h & 0x3fffffff;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A set of watched scriptPubKeys, each mapped to a value (e.g. an address id). */
export class ScriptIndex<V> {
  // One entry per key almost always; an array only when two scripts share an integer key.
  private readonly map = new Map<number, Entry<V> | Entry<V>[]>();
  private count = 0;

  /** Number of distinct scripts held. */
  get size(): number {
    return this.count;
  }

  /** Add a script (copied) or replace the value of one already held. */
  add(script: Uint8Array, value: V): void {
    const key = scriptKey(script);
    const slot = this.map.get(key);
    const entry: Entry<V> = { script: Uint8Array.from(script), value };
    if (slot === undefined) {
      this.map.set(key, entry);
    } else if (Array.isArray(slot)) {
      const found = slot.find((e) => sameBytes(e.script, script));
      if (found) {
        found.value = value;
        return;
      }
      slot.push(entry);
    } else if (sameBytes(slot.script, script)) {
      slot.value = value;
      return;
    } else {
      this.map.set(key, [slot, entry]);
    }
    this.count++;
  }

  /** The value held for a script, or undefined when it is not watched. */
  get(script: Uint8Array): V | undefined {
    return this.find(script)?.value;
  }

  /** True when the script is watched. */
  has(script: Uint8Array): boolean {
    return this.find(script) !== undefined;
  }

  private find(script: Uint8Array): Entry<V> | undefined {
    const slot = this.map.get(scriptKey(script));
    if (slot === undefined) return undefined;
    if (!Array.isArray(slot)) return sameBytes(slot.script, script) ? slot : undefined;
    for (const e of slot) if (sameBytes(e.script, script)) return e;
    return undefined;
  }

  /** Stop watching a script; returns whether it was held. */
  delete(script: Uint8Array): boolean {
    const key = scriptKey(script);
    const slot = this.map.get(key);
    if (slot === undefined) return false;
    if (!Array.isArray(slot)) {
      if (!sameBytes(slot.script, script)) return false;
      this.map.delete(key);
    } else {
      const i = slot.findIndex((e) => sameBytes(e.script, script));
      if (i < 0) return false;
      slot.splice(i, 1);
      if (slot.length === 1) this.map.set(key, slot[0]!);
    }
    this.count--;
    return true;
  }

  /** Every watched script with its value. */
  *entries(): IterableIterator<[Uint8Array, V]> {
    for (const slot of this.map.values()) {
      if (Array.isArray(slot)) for (const e of slot) yield [e.script, e.value];
      else yield [slot.script, slot.value];
    }
  }
}
