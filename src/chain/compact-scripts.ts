import { scriptKey } from '../bitcoin/script-index.ts';

/** An issued address the watcher matches outputs against. */
export interface WatchedAddress {
  addressId: bigint;
  walletId: bigint;
}

const EMPTY = 0;
/** Open-addressing tables are kept at most this full, so a probe ends after a step or two. */
const MAX_LOAD = 0.7;
/** Our watched scripts are standard output scripts (34 bytes at most); the length is held in one byte. */
const MAX_SCRIPT_BYTES = 255;

function sameBytesAt(arena: Uint8Array, offset: number, length: number, s: Uint8Array): boolean {
  if (length !== s.length) return false;
  for (let i = 0; i < length; i++) if (arena[offset + i] !== s[i]) return false;
  return true;
}

/** A 32-bit mix of an address id (ids stay below 2^53, so a double holds them exactly). */
function idKey(id: number): number {
  const lo = id % 4294967296;
  const hi = Math.floor(id / 4294967296);
  return Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> 0;
}

function checkedId(addressId: bigint): number {
  if (addressId <= 0n || addressId > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`address id ${addressId} is out of range`);
  return Number(addressId);
}

function checkLength(length: number): void {
  if (length === 0 || length > MAX_SCRIPT_BYTES) throw new RangeError(`a watched script has 1 to ${MAX_SCRIPT_BYTES} bytes, not ${length}`);
}

/** Hex digit values by character code (255: not a hex digit). */
const HEX = new Uint8Array(128).fill(255);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = HEX[65 + i] = 10 + i;

function grow<T extends Uint8Array | Uint32Array | Float64Array>(a: T, size: number): T {
  const next = new (a.constructor as new (n: number) => T)(size);
  next.set(a);
  return next;
}

/**
 * Every watched script with its address, in a handful of typed arrays instead of an object per script
 * (issue 39): the script bytes one after another in one arena, the ids in parallel columns, and two
 * open-addressing tables of entry numbers (by script, by address id). About 50 bytes a P2WPKH address,
 * where a Map of objects took about 380, and loading is a single pass of appends.
 */
export class CompactScripts {
  private arena = new Uint8Array(0);
  private arenaUsed = 0;
  private offsets = new Uint32Array(0);
  private lengths = new Uint8Array(0);
  private addressIds = new Float64Array(0);
  private walletSlots = new Uint32Array(0);
  private readonly walletIds: bigint[] = [];
  private readonly walletSlotOf = new Map<bigint, number>();
  /** Loads come wallet after wallet's addresses mostly in runs: the last wallet's slot saves a map lookup. */
  private lastWalletId = -1n;
  private lastWalletSlot = 0;
  /**
   * Pairs of (script key, entry number + 1) for the first entry holding each distinct script; an entry of 0 is an
   * empty slot. The key sits beside the entry so a probe past other scripts stays in one cache line: most outputs
   * of a block are not watched, and each such miss walks a few occupied slots before an empty one.
   */
  private byScript = new Uint32Array(0);
  /** Entry number + 1 of each address id. */
  private byId = new Uint32Array(0);
  /**
   * A blocked Bloom filter over the scripts (16 bits a script, 3 bits set in one 64-byte block): a couple of
   * megabytes that stay in the CPU's cache, answering most of a block's outputs (not ours) without touching the
   * tables, which at a million scripts do not fit in it.
   */
  private bloom = new Uint32Array(0);
  private entries = 0;
  private distinctScripts = 0;

  constructor(expected = 0, scriptBytes = expected * 34) {
    this.reserve(expected, scriptBytes);
  }

  /** Distinct scripts held. */
  get size(): number {
    return this.distinctScripts;
  }

  /** Address ids held (one script may be issued to several addresses, in different wallets). */
  get addressCount(): number {
    return this.entries;
  }

  /** Bytes of every array behind the set: what it costs outside the few objects above. */
  get byteSize(): number {
    return (
      this.arena.byteLength +
      this.offsets.byteLength +
      this.lengths.byteLength +
      this.addressIds.byteLength +
      this.walletSlots.byteLength +
      this.byScript.byteLength +
      this.bloom.byteLength +
      this.byId.byteLength
    );
  }

  /**
   * Makes room for `n` more addresses whose scripts take `scriptBytes` together (34 each when unknown), in one
   * allocation instead of growth steps, and with no slack when the figures are exact (a load counts them first).
   */
  reserve(n: number, scriptBytes = n * 34): void {
    const need = this.entries + n;
    if (need > this.addressIds.length) this.resizeEntries(need);
    if (this.arenaUsed + scriptBytes > this.arena.length) this.arena = grow(this.arena, this.arenaUsed + scriptBytes);
    this.ensureTables(need);
  }

  /** Adds an address's script; an address id already held is left as it is (re-reads after a restart). */
  add(script: Uint8Array, address: WatchedAddress): void {
    const id = checkedId(address.addressId);
    checkLength(script.length);
    if (this.findId(id) >= 0) return;
    this.makeRoom(script.length);
    this.arena.set(script, this.arenaUsed);
    this.append(script.length, id, address.walletId);
  }

  /**
   * Adds an address read from the database, its script as hex, decoded straight into the arena: the path of a
   * load, which would otherwise make a buffer, a bigint and an object per address.
   */
  addHex(scriptHex: string, addressId: number, walletId: number): void {
    if (!Number.isSafeInteger(addressId) || addressId <= 0) throw new RangeError(`address id ${addressId} is out of range`);
    const length = scriptHex.length / 2;
    if (!Number.isInteger(length)) throw new RangeError('a watched script in hex has an even number of digits');
    checkLength(length);
    if (this.findId(addressId) >= 0) return;
    this.makeRoom(length);
    const arena = this.arena;
    const at = this.arenaUsed;
    for (let i = 0; i < length; i++) {
      const hi = HEX[scriptHex.charCodeAt(2 * i)] ?? 255;
      const lo = HEX[scriptHex.charCodeAt(2 * i + 1)] ?? 255;
      if ((hi | lo) > 15) throw new RangeError(`a watched script is not hex: ${scriptHex}`);
      arena[at + i] = (hi << 4) | lo;
    }
    this.append(length, addressId, BigInt(walletId));
  }

  /** Gives back the slack growth left, once a load is done (the arrays then hold exactly what they hold). */
  trim(): void {
    this.arena = this.arena.slice(0, this.arenaUsed);
    this.offsets = this.offsets.slice(0, this.entries);
    this.lengths = this.lengths.slice(0, this.entries);
    this.addressIds = this.addressIds.slice(0, this.entries);
    this.walletSlots = this.walletSlots.slice(0, this.entries);
  }

  private makeRoom(scriptLength: number): void {
    if (this.entries === this.addressIds.length) this.resizeEntries(Math.max(1024, Math.ceil(this.entries * 1.5)));
    if (this.arenaUsed + scriptLength > this.arena.length) this.arena = grow(this.arena, Math.max(32 * 1024, Math.ceil((this.arenaUsed + scriptLength) * 1.5)));
    this.ensureTables(this.entries + 1);
  }

  /** Records the script just written at the arena's end as entry number `entries`. */
  private append(length: number, id: number, walletId: bigint): void {
    const e = this.entries++;
    const offset = this.arenaUsed;
    const script = this.arena.subarray(offset, offset + length);
    const key = scriptKey(script);
    this.offsets[e] = offset;
    this.lengths[e] = length;
    this.arenaUsed += length;
    this.addressIds[e] = id;
    this.walletSlots[e] = this.walletSlot(walletId);
    this.insertId(id, e);
    if (this.findScript(script, key) < 0) {
      this.insertScript(key, e);
      this.distinctScripts++;
    }
  }

  /** The address a script was first issued to, or undefined when it is not watched. */
  get(script: Uint8Array): WatchedAddress | undefined {
    const e = this.findScript(script, scriptKey(script));
    return e < 0 ? undefined : { addressId: BigInt(this.addressIds[e]!), walletId: this.walletIds[this.walletSlots[e]!]! };
  }

  has(script: Uint8Array): boolean {
    return this.findScript(script, scriptKey(script)) >= 0;
  }

  /** True when the address id is watched. */
  hasId(addressId: bigint): boolean {
    return this.findId(Number(addressId)) >= 0;
  }

  /** A copy of the script issued to an address id, or undefined. */
  scriptOf(addressId: bigint): Uint8Array | undefined {
    const e = this.findId(Number(addressId));
    return e < 0 ? undefined : this.arena.slice(this.offsets[e]!, this.offsets[e]! + this.lengths[e]!);
  }

  /** Every watched address id, in the order they were added. */
  *ids(): IterableIterator<bigint> {
    for (let e = 0; e < this.entries; e++) yield BigInt(this.addressIds[e]!);
  }

  private walletSlot(walletId: bigint): number {
    if (walletId === this.lastWalletId) return this.lastWalletSlot;
    let slot = this.walletSlotOf.get(walletId);
    if (slot === undefined) {
      slot = this.walletIds.push(walletId) - 1;
      this.walletSlotOf.set(walletId, slot);
    }
    this.lastWalletId = walletId;
    this.lastWalletSlot = slot;
    return slot;
  }

  private resizeEntries(size: number): void {
    this.offsets = grow(this.offsets, size);
    this.lengths = grow(this.lengths, size);
    this.addressIds = grow(this.addressIds, size);
    this.walletSlots = grow(this.walletSlots, size);
  }

  private ensureTables(entries: number): void {
    if (entries <= this.byId.length * MAX_LOAD) return;
    const size = Math.max(2048, Math.ceil(entries / MAX_LOAD) + 1, this.byId.length * 2);
    this.byId = new Uint32Array(size);
    this.byScript = new Uint32Array(size * 2);
    // 16 bits a script at the table's capacity, in whole 512-bit blocks.
    this.bloom = new Uint32Array(Math.ceil((size * MAX_LOAD * 16) / 512) * 16);
    for (let e = 0; e < this.entries; e++) {
      this.insertId(this.addressIds[e]!, e);
      const offset = this.offsets[e]!;
      const script = this.arena.subarray(offset, offset + this.lengths[e]!);
      const key = scriptKey(script);
      if (this.findScript(script, key) < 0) this.insertScript(key, e);
    }
  }

  private insertScript(key: number, e: number): void {
    const table = this.byScript;
    const slots = table.length / 2;
    let i = key % slots;
    while (table[2 * i + 1] !== EMPTY) i = i + 1 === slots ? 0 : i + 1;
    table[2 * i] = key;
    table[2 * i + 1] = e + 1;
    this.bloomAdd(this.arena.subarray(this.offsets[e]!, this.offsets[e]! + this.lengths[e]!), key);
  }

  /** The Bloom filter's block (word offset) for a script: from other bytes than its key's, so the two are independent. */
  private bloomBlock(script: Uint8Array): number {
    let h = 0x811c9dc5;
    for (let i = Math.max(0, script.length - 10); i < script.length; i++) h = Math.imul(h ^ script[i]!, 0x01000193);
    return ((h >>> 0) % (this.bloom.length >>> 4)) << 4;
  }

  private bloomAdd(script: Uint8Array, key: number): void {
    const b = this.bloomBlock(script);
    const bloom = this.bloom;
    bloom[b + ((key & 511) >>> 5)]! |= 1 << (key & 31);
    bloom[b + (((key >>> 9) & 511) >>> 5)]! |= 1 << ((key >>> 9) & 31);
    bloom[b + (((key >>> 18) & 511) >>> 5)]! |= 1 << ((key >>> 18) & 31);
  }

  private mayHold(script: Uint8Array, key: number): boolean {
    const b = this.bloomBlock(script);
    const bloom = this.bloom;
    return (
      (bloom[b + ((key & 511) >>> 5)]! & (1 << (key & 31))) !== 0 &&
      (bloom[b + (((key >>> 9) & 511) >>> 5)]! & (1 << ((key >>> 9) & 31))) !== 0 &&
      (bloom[b + (((key >>> 18) & 511) >>> 5)]! & (1 << ((key >>> 18) & 31))) !== 0
    );
  }

  private findScript(script: Uint8Array, key: number): number {
    const table = this.byScript;
    const slots = table.length / 2;
    if (slots === 0 || !this.mayHold(script, key)) return -1;
    let i = key % slots;
    for (;;) {
      const slot = table[2 * i + 1]!;
      if (slot === EMPTY) return -1;
      if (table[2 * i] === key) {
        const e = slot - 1;
        if (sameBytesAt(this.arena, this.offsets[e]!, this.lengths[e]!, script)) return e;
      }
      i = i + 1 === slots ? 0 : i + 1;
    }
  }

  private insertId(id: number, e: number): void {
    const table = this.byId;
    let i = idKey(id) % table.length;
    while (table[i] !== EMPTY) i = i + 1 === table.length ? 0 : i + 1;
    table[i] = e + 1;
  }

  private findId(id: number): number {
    const table = this.byId;
    if (table.length === 0) return -1;
    let i = idKey(id) % table.length;
    for (;;) {
      const slot = table[i]!;
      if (slot === EMPTY) return -1;
      if (this.addressIds[slot - 1] === id) return slot - 1;
      i = i + 1 === table.length ? 0 : i + 1;
    }
  }
}
