// Near-valid output descriptors for add_pub's `pub`: a well-formed descriptor of an accepted shape with one thing made
// wrong (checksum, a hardened step after the key, an unsupported fragment, threshold beyond the keys, a cosigner twice,
// mainnet and test keys mixed, cut short, a stray character inside). Each must be refused with code 102 and store
// nothing. Keys come from generated seeds, so a failing case replays from its fast-check seed.
import fc from 'fast-check';
import { HDKey } from '@scure/bip32';
import { descriptorChecksum } from '../../src/bitcoin/descriptors/checksum.ts';

const VERSIONS = { test: { private: 0x04358394, public: 0x043587cf }, main: { private: 0x0488ade4, public: 0x0488b21e } };

/** An account key below m/48'/1'/0'/2' with its origin, in descriptor key syntax (no steps after the key). */
function accountKey(seed: Uint8Array, network: 'test' | 'main' = 'test'): string {
  const root = HDKey.fromMasterSeed(seed, VERSIONS[network]);
  const fp = root.fingerprint.toString(16).padStart(8, '0');
  return `[${fp}/48h/1h/0h/2h]${root.derive("m/48'/1'/0'/2'").publicExtendedKey}`;
}

const seed = fc.uint8Array({ minLength: 32, maxLength: 32 });
const steps = fc.constantFrom('/0/*', '/<0;1>/*');

/** A body (no checksum) of every accepted shape, keys ranged as given. */
function body(shape: string, keys: string[], k: number, tail: string): string {
  const ks = keys.map((key) => `${key}${tail}`);
  switch (shape) {
    case 'wpkh': return `wpkh(${ks[0]})`;
    case 'sh-wpkh': return `sh(wpkh(${ks[0]}))`;
    case 'pkh': return `pkh(${ks[0]})`;
    case 'tr': return `tr(${ks[0]})`;
    case 'wsh-sortedmulti': return `wsh(sortedmulti(${k},${ks.join(',')}))`;
    case 'sh-wsh-sortedmulti': return `sh(wsh(sortedmulti(${k},${ks.join(',')})))`;
    case 'wsh-multi': return `wsh(multi(${k},${ks.join(',')}))`;
    default: return `sh(sortedmulti(${k},${ks.join(',')}))`;
  }
}
const SHAPES = ['wpkh', 'sh-wpkh', 'pkh', 'tr', 'wsh-sortedmulti', 'sh-wsh-sortedmulti', 'wsh-multi', 'sh-sortedmulti'] as const;
const MULTI = SHAPES.filter((s) => s.includes('multi'));

const withChecksum = (b: string) => `${b}#${descriptorChecksum(b)!}`;

/** A valid descriptor with its checksum: the base every mutation starts from (valid-descriptors.test.ts checks it is accepted). */
export const validDescriptor: fc.Arbitrary<string> = fc
  .record({ shape: fc.constantFrom(...SHAPES), seeds: fc.array(seed, { minLength: 3, maxLength: 3 }), k: fc.integer({ min: 1, max: 3 }), tail: steps })
  .map(({ shape, seeds, k, tail }) => withChecksum(body(shape, seeds.map((s) => accountKey(s)), k, tail)));

/** A descriptor that must be refused, and what was made wrong. */
export interface BadDescriptor {
  text: string;
  why: string;
}

const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

export const badDescriptors: fc.Arbitrary<BadDescriptor> = fc.oneof(
  // A checksum of the right length that is not the descriptor's.
  fc.record({ d: validDescriptor, sum: fc.string({ unit: fc.constantFrom(...CHECKSUM_CHARSET), minLength: 8, maxLength: 8 }) })
    .filter(({ d, sum }) => !d.endsWith(`#${sum}`))
    .map(({ d, sum }) => ({ text: `${d.slice(0, d.indexOf('#'))}#${sum}`, why: 'wrong checksum' })),
  // A hardened step after the extended key (BIP32 cannot derive it from a public key).
  fc.record({ shape: fc.constantFrom(...SHAPES), seeds: fc.array(seed, { minLength: 3, maxLength: 3 }), tail: fc.constantFrom("/0'/*", '/0h/*', '/1h/*', "/0/*'", '/0/*h', '/<0;1>/*h', "/2147483648/*") })
    .map(({ shape, seeds, tail }) => ({ text: withChecksum(body(shape, seeds.map((s) => accountKey(s)), 2, tail)), why: `hardened step after the key (${tail})` })),
  // Fragments satgate does not take: miniscript beyond multi/sortedmulti, combo, raw, addr, pk, script trees, multi_a.
  fc.record({ a: seed, b: seed, tail: steps }).chain(({ a, b, tail }) => {
    const [ka, kb] = [accountKey(a) + tail, accountKey(b) + tail];
    return fc.constantFrom(
      `combo(${ka})`,
      'raw(0014751e76e8199196d454941c45d1b3a323f1433bd6)',
      'addr(bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080)',
      `pk(${ka})`,
      `wsh(pk(${ka}))`,
      `wsh(and_v(v:pk(${ka}),pk(${kb})))`,
      `wsh(thresh(1,pk(${ka}),s:pk(${kb})))`,
      `wsh(or_d(pk(${ka}),pk(${kb})))`,
      `tr(${ka},pk(${kb}))`,
      `tr(${ka},{pk(${ka}),pk(${kb})})`,
      `tr(multi_a(1,${ka},${kb}))`,
      `sh(wsh(pkh(${ka})))`,
      `wsh(wpkh(${ka}))`,
      `sh(sh(wpkh(${ka})))`,
      `wsh(wsh(sortedmulti(1,${ka},${kb})))`,
      `multi(1,${ka},${kb})`,
      `sortedmulti(1,${ka},${kb})`,
    ).chain((b) => fc.boolean().map((sum) => ({ text: sum ? withChecksum(b) : b, why: `unsupported fragment ${b.slice(0, b.indexOf('('))}` })));
  }),
  // A threshold outside 1..keys.
  fc.record({ shape: fc.constantFrom(...MULTI), seeds: fc.array(seed, { minLength: 1, maxLength: 4 }), over: fc.integer({ min: 1, max: 30 }), zero: fc.boolean(), tail: steps })
    .map(({ shape, seeds, over, zero, tail }) => {
      const k = zero ? 0 : seeds.length + over;
      return { text: withChecksum(body(shape, seeds.map((s) => accountKey(s)), k, tail)), why: `threshold ${k} of ${seeds.length} keys` };
    }),
  // One cosigner twice (same key and steps; or the same key under another origin).
  fc.record({ shape: fc.constantFrom(...MULTI), a: seed, b: seed, tail: steps, reorigin: fc.boolean() }).map(({ shape, a, b, tail, reorigin }) => {
    const key = accountKey(a);
    const twin = reorigin ? key.replace(/^\[[0-9a-f]{8}/, '[00000000') : key;
    return { text: withChecksum(body(shape, [key, accountKey(b), twin], 2, tail)), why: 'duplicate cosigner key' };
  }),
  // Mainnet and test keys in one descriptor.
  fc.record({ shape: fc.constantFrom(...MULTI), seeds: fc.array(seed, { minLength: 2, maxLength: 3 }), at: fc.nat(), tail: steps }).map(({ shape, seeds, at, tail }) => {
    const keys = seeds.map((s, i) => accountKey(s, i === at % seeds.length ? 'main' : 'test'));
    return { text: withChecksum(body(shape, keys, 1, tail)), why: 'mainnet and test keys mixed' };
  }),
  // Cut short: inside the body (its last ")" is gone), or inside the checksum.
  fc.record({ d: validDescriptor, at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }) }).map(({ d, at }) => {
    const hash = d.indexOf('#');
    // Past the first "(", so the text still reads as a descriptor (a shorter one is refused as a key).
    const open = d.indexOf('(') + 1;
    const cut = at < 0.8 ? open + Math.floor((at / 0.8) * (hash - open)) : hash + 2 + Math.floor(((at - 0.8) / 0.2) * 6);
    return { text: d.slice(0, cut), why: `truncated at ${cut} of ${d.length}` };
  }),
  // A stray character inside (never a letter or digit, which could make another valid key or step); the checksum
  // recomputed when it can be, so the parser must refuse the structure rather than only the checksum.
  fc.record({ d: validDescriptor, at: fc.nat(), ch: fc.oneof(fc.integer({ min: 0, max: 0x2ff }).map((c) => String.fromCharCode(c)), fc.constantFrom('(', ')', ',', '[', ']', '/', '*', '#', "'", '<', '>', ';', ' ', '\u0000', '\u00e9')), resum: fc.boolean() })
    .filter(({ ch }) => !/[A-Za-z0-9]/.test(ch))
    .map(({ d, at, ch, resum }) => {
      const b = d.slice(0, d.indexOf('#'));
      const i = at % (b.length + 1);
      const changed = b.slice(0, i) + ch + b.slice(i);
      const sum = resum ? descriptorChecksum(changed) : undefined;
      return { text: sum ? `${changed}#${sum}` : `${changed}${d.slice(d.indexOf('#'))}`, why: `${JSON.stringify(ch)} inserted at ${i}${sum ? ', checksum recomputed' : ''}` };
    }),
);
