import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { base58 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { keyOf, type WalletKeySource } from './wallet-key.ts';
import { parseExtendedPublicKey } from './extended-key.ts';
import { deriveAddress } from './receive-address.ts';
import { DescriptorError } from './descriptors/errors.ts';
import type { Network } from './networks.ts';
import type { ScriptType } from './script-type.ts';

const load = (name: string) => JSON.parse(readFileSync(new URL(`../../test/vectors/${name}`, import.meta.url), 'utf8'));
const hex = (b: Uint8Array | undefined) => Buffer.from(b ?? []).toString('hex');

function reasonOf(source: WalletKeySource, network: Network = 'mainnet'): string | undefined {
  try {
    keyOf(source, network);
    return undefined;
  } catch (err) {
    if (err instanceof DescriptorError) return err.reason;
    throw err;
  }
}

// Published account keys (BIP32 test vector 1 chain m/0H and BIP86's account) as cosigners.
const bip86 = load('bip86.json');
const bip32 = load('bip32.json');
const A = bip86.accountXpub as string;
const B = bip86.rootXpub as string;
const C = 'xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL'; // BIP380's example key
const TPUB = load('electrum-tpub.json').key as string;

describe('BIP86 taproot (published vectors)', () => {
  it.each([{ descriptor: `tr(${A}/<0;1>/*)` }, { descriptor: `tr(${A}/0/*)` }, { derivationScheme: `${A}-[taproot]` }] as WalletKeySource[])('%o gives the BIP86 outputs', (source) => {
    const key = keyOf(source, 'mainnet');
    expect(key.kind).toBe('p2tr');
    for (const o of bip86.outputs) {
      const out = o.branch === 0 ? key.receive(o.index) : key.change(o.index);
      expect(out.address).toBe(o.address);
      expect(hex(out.script)).toBe(o.scriptPubKey);
      expect(hex(out.tapInternalKey)).toBe(o.internalKey);
    }
  });
});

describe('single-key wallets as today', () => {
  const cases = ['xpub', 'ypub', 'zpub', 'tpub', 'upub', 'vpub'].map((k) => load(`electrum-${k}.json`));
  it.each(cases)('$kind: Electrum 4.3.4 receive addresses, and the same addresses as deriveAddress', (v) => {
    const network: Network = v.electrum_network === 'mainnet' ? 'mainnet' : 'testnet4';
    const key = keyOf({ pub: v.key, scriptType: v.script_type as ScriptType }, network);
    const parsed = parseExtendedPublicKey(v.key);
    (v.receiving_addresses as string[]).forEach((address, i) => expect(key.receive(i).address).toBe(address));
    for (const i of [0, 5, 99]) {
      expect(key.change(i).address).toBe(deriveAddress(parsed, 1, i, v.script_type, network).address);
    }
    // Its canonical descriptor derives the same wallet through the descriptor path.
    const again = keyOf({ descriptor: key.describe() }, network);
    expect(again.kind).toBe(key.kind);
    for (const i of [0, 1, 17]) {
      expect(again.receive(i).address).toBe(key.receive(i).address);
      expect(again.change(i).address).toBe(key.change(i).address);
      expect(again.receive(i).keys).toEqual(key.receive(i).keys);
    }
    expect(again.describe()).toBe(key.describe());
  });

  it('writes the operator-given origin into the descriptor and the derivations', () => {
    const v = load('electrum-zpub.json');
    const key = keyOf({ pub: v.key, scriptType: 'p2wpkh', origin: '[73c5da0a/84h/0h/0h]' }, 'mainnet');
    expect(key.describe()).toMatch(/^wpkh\(\[73c5da0a\/84h\/0h\/0h\]xpub[1-9A-HJ-NP-Za-km-z]+\/<0;1>\/\*\)#[a-z0-9]{8}$/);
    expect(key.change(2).keys[0]!.path).toEqual([0x80000054, 0x80000000, 0x80000000, 1, 2]);
    expect(key.origins[0]!.fingerprint).toBe(0x73c5da0a);
  });

  it('keeps refusing what parseExtendedPublicKey refuses, with its error', () => {
    expect(() => keyOf({ pub: 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi', scriptType: 'p2wpkh' }, 'mainnet')).toThrow(/private/);
  });
});

describe('multisig', () => {
  it('BIP67 sorts each index’s keys; keeporder keeps them as given', () => {
    const sorted = keyOf({ descriptor: `wsh(sortedmulti(2,${A}/<0;1>/*,${B}/<0;1>/*,${C}/<0;1>/*))` }, 'mainnet');
    const reordered = keyOf({ descriptor: `wsh(sortedmulti(2,${C}/<0;1>/*,${A}/<0;1>/*,${B}/<0;1>/*))` }, 'mainnet');
    const kept = keyOf({ descriptor: `wsh(multi(2,${C}/<0;1>/*,${A}/<0;1>/*,${B}/<0;1>/*))` }, 'mainnet');
    for (const i of [0, 1, 2, 3]) {
      expect(reordered.receive(i).address).toBe(sorted.receive(i).address);
      const ws = kept.receive(i).witnessScript!;
      const keys = kept.receive(i).keys.map((k) => hex(k.publicKey));
      expect(hex(ws)).toBe(`52${keys.map((k) => `21${k}`).join('')}53ae`);
    }
    expect(sorted.threshold).toBe(2);
    expect(sorted.origins).toHaveLength(3);
    expect(sorted.describe()).toMatch(/^wsh\(sortedmulti\(2,.*\)\)#[a-z0-9]{8}$/);
  });

  it('BTCPay derivation schemes read as the descriptors they stand for', () => {
    const pairs: [string, string][] = [
      [A, `wpkh(${A}/<0;1>/*)`],
      [`${A}-[p2sh]`, `sh(wpkh(${A}/<0;1>/*))`],
      [`${A}-[legacy]`, `pkh(${A}/<0;1>/*)`],
      [`${A}-[taproot]`, `tr(${A}/<0;1>/*)`],
      [`2-of-${A}-${B}-${C}`, `wsh(sortedmulti(2,${A}/<0;1>/*,${B}/<0;1>/*,${C}/<0;1>/*))`],
      [`2-of-${A}-${B}-${C}-[p2sh]`, `sh(wsh(sortedmulti(2,${A}/<0;1>/*,${B}/<0;1>/*,${C}/<0;1>/*)))`],
      [`2-of-${A}-${B}-${C}-[legacy]`, `sh(sortedmulti(2,${A}/<0;1>/*,${B}/<0;1>/*,${C}/<0;1>/*))`],
      [`2-of-${A}-${B}-${C}-[keeporder]`, `wsh(multi(2,${A}/<0;1>/*,${B}/<0;1>/*,${C}/<0;1>/*))`],
      [`1-of-${A}-${B}-[p2sh]-[keeporder]`, `sh(wsh(multi(1,${A}/<0;1>/*,${B}/<0;1>/*)))`],
    ];
    for (const [scheme, descriptor] of pairs) {
      const a = keyOf({ derivationScheme: scheme }, 'mainnet');
      const b = keyOf({ descriptor }, 'mainnet');
      expect(a.describe(), scheme).toBe(b.describe());
      expect(a.receive(3).address).toBe(b.receive(3).address);
      expect(a.change(3).address).toBe(b.change(3).address);
    }
    expect(reasonOf({ derivationScheme: `${A}-[segwit]` })).toBe('unsupported');
    expect(reasonOf({ derivationScheme: `${A}-[legacy]-[p2sh]` })).toBe('unsupported');
    expect(reasonOf({ derivationScheme: `${A}-[taproot]-[p2sh]` })).toBe('unsupported');
    expect(reasonOf({ derivationScheme: `2-of-${A}-${B}-[taproot]` })).toBe('unsupported');
  });

  it('SLIP-132 Zpub/Ypub cosigners choose P2WSH or P2SH-P2WSH', () => {
    const reversion = (xpub: string, version: number) => {
      const payload = base58.decode(xpub).slice(0, 78);
      new DataView(payload.buffer).setUint32(0, version, false);
      return base58.encode(Uint8Array.of(...payload, ...sha256(sha256(payload)).subarray(0, 4)));
    };
    const Z = [A, B, C].map((k) => reversion(k, 0x02aa7ed3));
    const Y = [A, B, C].map((k) => reversion(k, 0x0295b43f));
    expect(Z[0]!.startsWith('Zpub')).toBe(true);
    expect(Y[0]!.startsWith('Ypub')).toBe(true);
    const z = keyOf({ cosigners: Z, threshold: 2 }, 'mainnet');
    const y = keyOf({ cosigners: Y, threshold: 2 }, 'mainnet');
    expect(z.kind).toBe('p2wsh-multisig');
    expect(y.kind).toBe('p2sh-p2wsh-multisig');
    expect(z.receive(0).address).toBe(keyOf({ derivationScheme: `2-of-${A}-${B}-${C}` }, 'mainnet').receive(0).address);
    expect(y.receive(0).address).toBe(keyOf({ derivationScheme: `2-of-${A}-${B}-${C}-[p2sh]` }, 'mainnet').receive(0).address);
    expect(reasonOf({ cosigners: [Z[0]!, Y[1]!], threshold: 1 })).toBe('unsupported');
  });

  it('gives every cosigner’s BIP32 derivation with the origin the descriptor gave', () => {
    const key = keyOf({ descriptor: `wsh(sortedmulti(2,[d34db33f/48h/0h/0h/2h]${A}/<0;1>/*,[0badf00d/48h/0h/0h/2h]${C}/<0;1>/*))` }, 'mainnet');
    const out = key.change(7);
    const H = 0x80000000;
    expect(out.keys.map((k) => [k.fingerprint, k.path])).toEqual([
      [0xd34db33f, [48 + H, H, H, 2 + H, 1, 7]],
      [0x0badf00d, [48 + H, H, H, 2 + H, 1, 7]],
    ]);
    expect(key.origins.map((o) => o.xpub)).toEqual([A, C]);
  });
});

describe('refused descriptors name the part', () => {
  const body = `wsh(sortedmulti(2,${A}/0/*,${B}/0/*))`;
  const cases: [string, WalletKeySource, string, RegExp][] = [
    ['wrong checksum', { descriptor: `${body}#qqqqqqqq` }, 'bad-checksum', /checksum/],
    ['hardened step after the key', { descriptor: `wpkh(${A}/0h/*)` }, 'hardened-step', /hardened step "0h"/],
    ['hardened wildcard', { descriptor: `wpkh(${A}/0/*h)` }, 'hardened-step', /hardened/],
    ['unsupported fragment', { descriptor: `wsh(and_v(v:pk(${A}/0/*),older(10)))` }, 'unsupported', /and_v\(\) inside wsh\(\)/],
    ['combo', { descriptor: `combo(${A}/0/*)` }, 'unsupported', /combo\(\)/],
    ['raw', { descriptor: 'raw(deadbeef)' }, 'unsupported', /raw\(\)/],
    ['addr', { descriptor: 'addr(bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr)' }, 'unsupported', /addr\(\)/],
    ['taproot script tree', { descriptor: `tr(${A}/0/*,pk(${B}/0/*))` }, 'unsupported', /script tree/],
    ['private key', { descriptor: `wpkh(${bip32.tests?.[0]?.chains?.[0]?.xprv ?? 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi'}/0/*)` }, 'private-key', /private key/],
    ['threshold above keys', { descriptor: `wsh(sortedmulti(3,${A}/0/*,${B}/0/*))` }, 'threshold', /threshold 3/],
    ['threshold 0', { descriptor: `wsh(sortedmulti(0,${A}/0/*,${B}/0/*))` }, 'threshold', /threshold 0/],
    ['duplicate cosigner', { descriptor: `wsh(sortedmulti(1,${A}/0/*,${A}/1/*))` }, 'duplicate-key', /twice/],
    ['mixed networks', { descriptor: `wsh(sortedmulti(1,${A}/0/*,${TPUB}/0/*))` }, 'mixed-networks', /mixes/],
    ['more than 15 keys in P2SH', { descriptor: `sh(sortedmulti(1,${Array.from({ length: 16 }, () => `${A}/0/*`).join(',')}))` }, 'too-many-keys', /at most 15/],
    ['not ranged', { descriptor: `wpkh(${A}/0/5)` }, 'not-ranged', /ranged/],
    ['fixed public key', { descriptor: 'wpkh(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd)' }, 'not-ranged', /ranged/],
    ['no receive branch', { descriptor: `wpkh(${A}/*)` }, 'no-change-branch', /receive branch/],
    ['three branches', { descriptor: `wpkh(${A}/<0;1;2>/*)` }, 'no-change-branch', /two branches/],
    ['wrong network', { descriptor: `wpkh(${TPUB}/0/*)` }, 'wrong-network', /test networks/],
    ['SLIP-132 key in a descriptor', { descriptor: `wpkh(${load('electrum-zpub.json').key}/0/*)` }, 'bad-key', /xpub or tpub/],
    ['bare multisig', { descriptor: `sortedmulti(1,${A}/0/*)` }, 'unsupported', /bare sortedmulti/],
  ];
  it.each(cases)('%s', (_name, source, reason, message) => {
    let error: unknown;
    try {
      keyOf(source, 'mainnet');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DescriptorError);
    expect((error as DescriptorError).reason).toBe(reason);
    expect((error as DescriptorError).message).toMatch(message);
  });
});
