import { describe, it, expect } from 'vitest';
import { HDKey } from '@scure/bip32';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { loadVector } from '../../test/support/load-vector.ts';
import {
  InvalidExtendedKeyError,
  keyFitsNetwork,
  kindFor,
  parseExtendedPublicKey,
  versionsForKind,
  type ExtendedKeyKind,
} from './extended-key.ts';

interface Bip32Vectors {
  vectors: { name: string; seed_hex: string; chains: { path: string; xpub: string; xprv: string }[] }[];
}
interface ElectrumVector { kind: ExtendedKeyKind; key: string; script_type: string }

const bip32 = loadVector<Bip32Vectors>('bip32.json');
const KINDS: ExtendedKeyKind[] = ['xpub', 'ypub', 'zpub', 'tpub', 'upub', 'vpub'];
const electrum = KINDS.map((k) => loadVector<ElectrumVector>(`electrum-${k}.json`));
const b58c = createBase58check(sha256);

const depthOf = (path: string) => (path === 'm' ? 0 : path.split('/').length - 1);
const bip32Path = (path: string) => path.replace(/H/g, "'");

/** Re-encode a key after changing its payload bytes, with a correct checksum. */
function tamper(key: string, edit: (payload: Uint8Array, view: DataView) => void): string {
  const payload = Uint8Array.from(b58c.decode(key));
  edit(payload, new DataView(payload.buffer));
  return b58c.encode(payload);
}

function rejection(input: unknown): InvalidExtendedKeyError {
  try {
    parseExtendedPublicKey(input);
  } catch (e) {
    if (e instanceof InvalidExtendedKeyError) return e;
    throw e;
  }
  throw new Error('key was accepted');
}

describe('BIP32 published vectors', () => {
  for (const v of bip32.vectors) {
    for (const chain of v.chains) {
      const depth = depthOf(chain.path);
      it(`${v.name} ${chain.path}: the seed derives the published xpub`, () => {
        const root = HDKey.fromMasterSeed(hexToBytes(v.seed_hex));
        expect(root.derive(bip32Path(chain.path)).publicExtendedKey).toBe(chain.xpub);
      });
      if (depth <= 3) {
        it(`${v.name} ${chain.path}: the xpub is accepted as a legacy mainnet key at depth ${depth}`, () => {
          const key = parseExtendedPublicKey(chain.xpub);
          expect(key).toMatchObject({ kind: 'xpub', testnet: false, defaultScriptType: 'p2pkh', depth, text: chain.xpub });
          expect(key.hd.publicExtendedKey).toBe(chain.xpub);
        });
      } else {
        it(`${v.name} ${chain.path}: the xpub at depth ${depth} is rejected as too deep`, () => {
          expect(rejection(chain.xpub).reason).toBe('too-deep');
        });
      }
      it(`${v.name} ${chain.path}: the xprv is rejected and the error does not repeat it`, () => {
        const err = rejection(chain.xprv);
        expect(err.reason).toBe('private-key');
        expect(err.message).not.toContain(chain.xprv.slice(4, 20));
        expect(err.message).not.toContain(chain.xprv.slice(-16));
      });
    }
    v.chains.forEach((child, i) => {
      const parent = v.chains[i - 1];
      const last = child.path.split('/').pop() ?? '';
      if (!parent || last.endsWith('H')) return;
      it(`${v.name} ${child.path}: public derivation from the parent xpub gives the published child xpub`, () => {
        const node = HDKey.fromExtendedKey(parent.xpub).deriveChild(Number(last));
        expect(node.publicExtendedKey).toBe(child.xpub);
      });
    });
  }
});

describe('key kinds', () => {
  for (const v of electrum) {
    it(`a ${v.kind} is recognised with its network and default script type`, () => {
      const key = parseExtendedPublicKey(v.key);
      expect(key.kind).toBe(v.kind);
      expect(key.testnet).toBe(['tpub', 'upub', 'vpub'].includes(v.kind));
      expect(key.defaultScriptType).toBe(v.script_type);
      expect(key.depth).toBe(3);
      expect(key.publicKey).toHaveLength(33);
      expect(kindFor(key.testnet, key.defaultScriptType)).toBe(v.kind);
    });
  }

  it('mainnet keys fit only mainnet and test keys fit only the test networks', () => {
    const z = parseExtendedPublicKey(electrum[2]!.key);
    const v = parseExtendedPublicKey(electrum[5]!.key);
    expect(keyFitsNetwork(z, 'mainnet')).toBe(true);
    expect(keyFitsNetwork(z, 'regtest')).toBe(false);
    for (const n of ['testnet4', 'signet', 'regtest'] as const) expect(keyFitsNetwork(v, n)).toBe(true);
    expect(keyFitsNetwork(v, 'mainnet')).toBe(false);
  });

  it('surrounding whitespace is ignored', () => {
    expect(parseExtendedPublicKey(`  ${electrum[0]!.key}\n`).text).toBe(electrum[0]!.key);
  });

  it('every kind has distinct version bytes', () => {
    const versions = KINDS.flatMap((k) => [versionsForKind(k).public, versionsForKind(k).private]);
    expect(new Set(versions).size).toBe(12);
  });
});

describe('invalid keys', () => {
  const good = electrum[2]!.key;

  it('a corrupted key (one character changed) is rejected at every position', () => {
    for (let i = 0; i < good.length; i++) {
      const replacement = good[i] === 'a' ? 'b' : 'a';
      const bad = good.slice(0, i) + replacement + good.slice(i + 1);
      expect(['bad-checksum', 'bad-length']).toContain(rejection(bad).reason);
    }
  });

  it('a truncated key is rejected', () => {
    expect(rejection(good.slice(0, -1)).reason).toMatch(/bad-checksum|bad-length/);
  });

  it('a key with characters outside base58 is rejected', () => {
    expect(rejection(good.slice(0, 10) + '0' + good.slice(11)).reason).toBe('not-base58');
  });

  it('an unknown version (a Litecoin Ltub) is rejected', () => {
    const bad = tamper(good, (_p, view) => view.setUint32(0, 0x019da462, false));
    const err = rejection(bad);
    expect(err.reason).toBe('unknown-version');
    expect(err.message).not.toContain(bad);
  });

  it('a multisig Zpub is rejected as unsupported', () => {
    expect(rejection(tamper(good, (_p, view) => view.setUint32(0, 0x02aa7ed3, false))).reason).toBe('multisig-key');
  });

  for (const kind of KINDS) {
    it(`a private ${kind.replace('pub', 'prv')} is rejected without echoing it`, () => {
      const root = HDKey.fromMasterSeed(new Uint8Array(32).fill(7), versionsForKind(kind));
      const prv = root.derive("m/84'/1'/0'").privateExtendedKey;
      const err = rejection(prv);
      expect(err.reason).toBe('private-key');
      expect(err.message).not.toContain(prv.slice(4, 24));
    });
  }

  it('private key data under a public version is rejected', () => {
    const bad = tamper(good, (p) => {
      p[45] = 0;
    });
    expect(rejection(bad).reason).toBe('private-key');
  });

  it('a depth-4 key is rejected', () => {
    const parent = parseExtendedPublicKey(good);
    const deep = parent.hd.deriveChild(0).deriveChild(0);
    expect(deep.depth).toBe(5);
    expect(rejection(deep.publicExtendedKey).reason).toBe('too-deep');
    expect(rejection(tamper(good, (p) => { p[4] = 4; })).reason).toBe('too-deep');
  });

  it('depth 0 with a non-zero parent fingerprint or child index is rejected', () => {
    const root = bip32.vectors[0]!.chains[0]!.xpub;
    expect(rejection(tamper(root, (_p, view) => view.setUint32(5, 1, false))).reason).toBe('bad-root');
    expect(rejection(tamper(root, (_p, view) => view.setUint32(9, 1, false))).reason).toBe('bad-root');
  });

  it('an uncompressed-prefix (04) public key is rejected', () => {
    expect(rejection(tamper(good, (p) => { p[45] = 0x04; })).reason).toBe('bad-public-key');
  });

  it('a public key that is not on the curve is rejected', () => {
    const bad = tamper(good, (p) => {
      p.set(hexToBytes('020000000000000000000000000000000000000000000000000000000000000007'), 45);
    });
    expect(rejection(bad).reason).toBe('bad-public-key');
  });

  it('a wrong length payload is rejected', () => {
    expect(rejection(b58c.encode(b58c.decode(good).subarray(0, 77))).reason).toBe('bad-length');
  });

  it('empty input and non-strings are rejected', () => {
    expect(rejection('').reason).toBe('bad-length');
    expect(rejection(undefined).reason).toBe('not-a-string');
    expect(rejection(42).reason).toBe('not-a-string');
  });
});
