import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { hex } from '@scure/base';
import { ScriptIndex, scriptKey } from './script-index.ts';

const p2wpkh = (h: string) => hex.decode('0014' + h);
const p2sh = (h: string) => hex.decode('a914' + h + '87');
const p2pkh = (h: string) => hex.decode('76a914' + h + '88ac');

describe('ScriptIndex', () => {
  it('finds every standard script type it holds and nothing else', () => {
    const idx = new ScriptIndex<number>();
    const scripts = [
      p2wpkh('11'.repeat(20)),
      p2sh('22'.repeat(20)),
      p2pkh('33'.repeat(20)),
      hex.decode('0020' + '44'.repeat(32)),
      hex.decode('5120' + '55'.repeat(32)),
      hex.decode('6a0401020304'),
      new Uint8Array(),
    ];
    scripts.forEach((s, i) => idx.add(s, i));
    expect(idx.size).toBe(scripts.length);
    scripts.forEach((s, i) => expect(idx.get(Uint8Array.from(s))).toBe(i));
    expect(idx.get(p2wpkh('11'.repeat(19) + '12'))).toBeUndefined();
    expect(idx.get(p2sh('11'.repeat(20)))).toBeUndefined();
    expect(idx.has(hex.decode('6a0401020305'))).toBe(false);
  });

  it('keeps scripts that share an integer key apart by their bytes', () => {
    const a = p2wpkh('deadbeef' + '00'.repeat(16));
    const b = p2wpkh('deadbeef' + 'ff'.repeat(16));
    // A p2sh whose first hash byte differs by exactly the length difference lands on the same key.
    const c = p2sh((0xde ^ 22 ^ 23).toString(16) + 'adbeef' + '00'.repeat(16));
    expect(scriptKey(a)).toBe(scriptKey(b));
    expect(scriptKey(a)).toBe(scriptKey(c));
    const idx = new ScriptIndex<string>();
    idx.add(a, 'a');
    idx.add(b, 'b');
    idx.add(c, 'c');
    expect(idx.size).toBe(3);
    expect([idx.get(a), idx.get(b), idx.get(c)]).toEqual(['a', 'b', 'c']);
    expect(idx.get(p2wpkh('deadbeef' + '11'.repeat(16)))).toBeUndefined();
    expect(idx.delete(b)).toBe(true);
    expect(idx.delete(b)).toBe(false);
    expect([idx.get(a), idx.get(b), idx.get(c)]).toEqual(['a', undefined, 'c']);
    expect(idx.delete(a)).toBe(true);
    expect(idx.get(c)).toBe('c');
    expect(idx.size).toBe(1);
  });

  it('replaces the value when the same script is added twice', () => {
    const idx = new ScriptIndex<number>();
    idx.add(p2pkh('99'.repeat(20)), 1);
    idx.add(p2pkh('99'.repeat(20)), 2);
    expect(idx.size).toBe(1);
    expect(idx.get(p2pkh('99'.repeat(20)))).toBe(2);
  });

  it('is not affected when the caller later mutates the script it added', () => {
    const s = p2wpkh('ab'.repeat(20));
    const idx = new ScriptIndex<number>();
    idx.add(s, 7);
    s[5] = 0;
    expect(idx.get(p2wpkh('ab'.repeat(20)))).toBe(7);
  });

  it('behaves like a Map of hex strings under random adds, deletes and lookups', () => {
    // Few distinct hash prefixes so collisions on the integer key are frequent.
    const scriptArb = fc
      .tuple(fc.constantFrom('0014', 'a914', '76a914', '0020', '6a'), fc.constantFrom('aaaaaaaa', 'aaaaaaab'), fc.uint8Array({ minLength: 1, maxLength: 2 }))
      .map(([kind, prefix, tail]) => {
        const body = prefix + hex.encode(tail).padEnd(kind === '0020' ? 56 : 32, '0');
        if (kind === 'a914') return hex.decode(kind + body + '87');
        if (kind === '76a914') return hex.decode(kind + body + '88ac');
        return hex.decode(kind + body);
      });
    const opArb = fc.tuple(fc.constantFrom('add', 'delete', 'get'), scriptArb, fc.nat());
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
        const idx = new ScriptIndex<number>();
        const model = new Map<string, number>();
        for (const [op, s, v] of ops) {
          const k = hex.encode(s);
          if (op === 'add') {
            idx.add(s, v);
            model.set(k, v);
          } else if (op === 'delete') {
            expect(idx.delete(s)).toBe(model.delete(k));
          } else {
            expect(idx.get(s)).toBe(model.get(k));
          }
          expect(idx.size).toBe(model.size);
        }
        const listed = new Map([...idx.entries()].map(([s, v]) => [hex.encode(s), v]));
        expect(listed).toEqual(model);
      }),
      { numRuns: 300 },
    );
  });
});
