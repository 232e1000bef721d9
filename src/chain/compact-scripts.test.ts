import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ScriptIndex } from '../bitcoin/script-index.ts';
import { CompactScripts } from './compact-scripts.ts';

const p2wpkh = () => Uint8Array.from([0x00, 0x14, ...randomBytes(20)]);
const p2tr = () => Uint8Array.from([0x51, 0x20, ...randomBytes(32)]);
const p2pkh = () => Uint8Array.from([0x76, 0xa9, 0x14, ...randomBytes(20), 0x88, 0xac]);
const p2sh = () => Uint8Array.from([0xa9, 0x14, ...randomBytes(20), 0x87]);

describe('the compact watched scripts', () => {
  it('finds every script it holds, with its address and wallet, and no other', () => {
    const set = new CompactScripts();
    const made = [p2wpkh, p2tr, p2pkh, p2sh].flatMap((f) => Array.from({ length: 50 }, f));
    made.forEach((s, i) => set.add(s, { addressId: BigInt(i + 1), walletId: BigInt(i % 3) + 1n }));
    made.forEach((s, i) => expect(set.get(s)).toEqual({ addressId: BigInt(i + 1), walletId: BigInt(i % 3) + 1n }));
    for (const other of [p2wpkh(), p2tr(), p2pkh(), p2sh(), Uint8Array.from([0x6a, 0x01, 0x00])]) expect(set.has(other)).toBe(false);
    expect(set.size).toBe(200);
  });

  it('keeps the first address a script was issued to, and every address id its own script', () => {
    const set = new CompactScripts();
    const shared = p2wpkh();
    set.add(shared, { addressId: 7n, walletId: 1n });
    set.add(shared, { addressId: 9n, walletId: 2n });
    expect(set.get(shared)).toEqual({ addressId: 7n, walletId: 1n });
    expect(set.size).toBe(1);
    expect(set.addressCount).toBe(2);
    expect(set.scriptOf(9n)).toEqual(shared);
    expect([...set.ids()]).toEqual([7n, 9n]);
  });

  it('leaves an address id already held as it is when it is read again after a restart', () => {
    const set = new CompactScripts();
    const first = p2wpkh();
    set.add(first, { addressId: 1n, walletId: 1n });
    set.add(first, { addressId: 1n, walletId: 1n });
    set.add(p2wpkh(), { addressId: 1n, walletId: 1n });
    expect([set.size, set.addressCount]).toEqual([1, 1]);
    expect(set.scriptOf(1n)).toEqual(first);
  });

  it('answers the same as the map it replaced, through growth from empty to 100,000 scripts', () => {
    const set = new CompactScripts();
    const reference = new ScriptIndex<bigint>();
    const scripts: Uint8Array[] = [];
    for (let i = 1; i <= 100_000; i++) {
      const s = i % 10 === 0 ? p2tr() : p2wpkh();
      scripts.push(s);
      set.add(s, { addressId: BigInt(i), walletId: 1n });
      reference.add(s, BigInt(i));
    }
    for (let i = 0; i < scripts.length; i += 97) expect(set.get(scripts[i]!)?.addressId).toBe(reference.get(scripts[i]!));
    for (let i = 0; i < 1000; i++) {
      const miss = p2wpkh();
      expect(set.has(miss)).toBe(reference.has(miss));
    }
    expect(set.hasId(100_000n)).toBe(true);
    expect(set.hasId(100_001n)).toBe(false);
    expect(set.size).toBe(reference.size);
  });

  it('costs under 64 bytes a P2WPKH address once sized for what it will hold', () => {
    const set = new CompactScripts(100_000, 100_000 * 22);
    for (let i = 1; i <= 100_000; i++) set.add(p2wpkh(), { addressId: BigInt(i), walletId: 1n });
    expect(set.byteSize / 100_000).toBeLessThan(64);
  });

  it('refuses an empty or oversized script and an address id it cannot hold exactly', () => {
    const set = new CompactScripts();
    expect(() => set.add(new Uint8Array(0), { addressId: 1n, walletId: 1n })).toThrow(RangeError);
    expect(() => set.add(new Uint8Array(256), { addressId: 1n, walletId: 1n })).toThrow(RangeError);
    expect(() => set.add(p2wpkh(), { addressId: 2n ** 53n, walletId: 1n })).toThrow(RangeError);
    expect(() => set.add(p2wpkh(), { addressId: 0n, walletId: 1n })).toThrow(RangeError);
    expect(set.addressCount).toBe(0);
  });
});

describe('loading the compact watched scripts from hex', () => {
  it('decodes a script read as hex to the same bytes as one added as bytes', () => {
    const set = new CompactScripts();
    const script = p2tr();
    set.addHex(Buffer.from(script).toString('hex').toUpperCase(), 3, 2);
    expect(set.get(script)).toEqual({ addressId: 3n, walletId: 2n });
    expect(set.scriptOf(3n)).toEqual(script);
  });

  it('refuses a script that is not hex, or has an odd number of digits, and holds nothing of it', () => {
    const set = new CompactScripts();
    expect(() => set.addHex('0014zz', 1, 1)).toThrow(RangeError);
    expect(() => set.addHex('00140', 1, 1)).toThrow(RangeError);
    expect(() => set.addHex('0014é0', 1, 1)).toThrow(RangeError);
    expect(set.addressCount).toBe(0);
  });

  it('hands out copies, so a caller cannot change what is watched', () => {
    const set = new CompactScripts();
    const script = p2wpkh();
    set.add(script, { addressId: 1n, walletId: 1n });
    set.scriptOf(1n)!.fill(0);
    expect(set.has(script)).toBe(true);
  });

  it('keeps every script findable after trimming the slack a load left', () => {
    const set = new CompactScripts(5_000);
    const scripts = Array.from({ length: 3_000 }, p2wpkh);
    scripts.forEach((s, i) => set.addHex(Buffer.from(s).toString('hex'), i + 1, 1));
    const before = set.byteSize;
    set.trim();
    expect(set.byteSize).toBeLessThan(before);
    for (const s of scripts) expect(set.has(s)).toBe(true);
    set.add(p2wpkh(), { addressId: 9_999n, walletId: 1n });
    expect(set.addressCount).toBe(3_001);
  });
});
