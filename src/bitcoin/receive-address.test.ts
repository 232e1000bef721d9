import { describe, it, expect } from 'vitest';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { loadVector } from '../../test/support/load-vector.ts';
import { decodeAddress } from './address.ts';
import { parseExtendedPublicKey, versionsForKind, type ExtendedKeyKind } from './extended-key.ts';
import type { Network } from './networks.ts';
import { deriveAddress, deriveReceiveAddress, deriveReceiveAddresses } from './receive-address.ts';
import type { ScriptType } from './script-type.ts';

interface ElectrumVector { kind: ExtendedKeyKind; key: string; electrum_network: string; script_type: ScriptType; receiving_addresses: string[] }
interface Bip84 { account_zpub: string; addresses: { chain: 0 | 1; index: number; public_key_hex: string; address: string }[] }
interface Bip49 { account_upub: string; receive: { index: number; public_key_hex: string; address: string }[] }

const KINDS: ExtendedKeyKind[] = ['xpub', 'ypub', 'zpub', 'tpub', 'upub', 'vpub'];
const electrum = KINDS.map((k) => loadVector<ElectrumVector>(`electrum-${k}.json`));
const bip84 = loadVector<Bip84>('bip84.json');
const bip49 = loadVector<Bip49>('bip49.json');

describe('receiving addresses match Electrum', () => {
  for (const v of electrum) {
    const network: Network = v.electrum_network === 'mainnet' ? 'mainnet' : 'testnet4';
    it(`the first 20 addresses of a ${v.kind} equal Electrum ${v.kind}`, () => {
      const key = parseExtendedPublicKey(v.key);
      const derived = deriveReceiveAddresses(key, 0, 20, key.defaultScriptType, network);
      expect(derived.map((d) => d.address)).toEqual(v.receiving_addresses);
      derived.forEach((d, i) => {
        expect(d.index).toBe(i);
        expect(d.script).toEqual(decodeAddress(d.address).script);
      });
    });
  }

  it('signet and regtest derive the same scripts as testnet4', () => {
    const key = parseExtendedPublicKey(electrum[5]!.key);
    const t = deriveReceiveAddress(key, 3, 'p2wpkh', 'testnet4');
    const s = deriveReceiveAddress(key, 3, 'p2wpkh', 'signet');
    const r = deriveReceiveAddress(key, 3, 'p2wpkh', 'regtest');
    expect(s.address).toBe(t.address);
    expect(r.address.startsWith('bcrt1q')).toBe(true);
    expect(r.script).toEqual(t.script);
  });
});

describe('BIP vectors', () => {
  it('BIP84: the zpub derives the published receive and change addresses and keys', () => {
    const key = parseExtendedPublicKey(bip84.account_zpub);
    for (const v of bip84.addresses) {
      const d = deriveAddress(key, v.chain, v.index, 'p2wpkh', 'mainnet');
      expect(d.address).toBe(v.address);
      expect(bytesToHex(d.publicKey)).toBe(v.public_key_hex);
    }
  });

  it('BIP49: the upub derives the published first receive address and key', () => {
    const key = parseExtendedPublicKey(bip49.account_upub);
    for (const v of bip49.receive) {
      const d = deriveReceiveAddress(key, v.index, key.defaultScriptType, 'testnet4');
      expect(d.address).toBe(v.address);
      expect(bytesToHex(d.publicKey)).toBe(v.public_key_hex);
    }
  });

  it('an xpub registered as native segwit (wallet_type 3) derives the same addresses as the zpub of that node', () => {
    const b58c = createBase58check(sha256);
    const payload = Uint8Array.from(b58c.decode(bip84.account_zpub));
    new DataView(payload.buffer).setUint32(0, versionsForKind('xpub').public, false);
    const xpub = parseExtendedPublicKey(b58c.encode(payload));
    expect(xpub.kind).toBe('xpub');
    expect(deriveReceiveAddress(xpub, 1, 'p2wpkh', 'mainnet').address).toBe(bip84.addresses[1]!.address);
    expect(deriveReceiveAddress(xpub, 1, 'p2pkh', 'mainnet').address.startsWith('1')).toBe(true);
  });
});

describe('derivation rules', () => {
  const zpub = parseExtendedPublicKey(bip84.account_zpub);

  it('an index outside 0..2^31-1 is refused', () => {
    for (const bad of [-1, 0x80000000, 1.5, Number.NaN]) {
      expect(() => deriveReceiveAddress(zpub, bad, 'p2wpkh', 'mainnet')).toThrow(RangeError);
    }
    expect(deriveReceiveAddress(zpub, 0x7fffffff, 'p2wpkh', 'mainnet').index).toBe(0x7fffffff);
  });

  it('a key cannot derive addresses for the other kind of network', () => {
    expect(() => deriveReceiveAddress(zpub, 0, 'p2wpkh', 'testnet4')).toThrow(RangeError);
    const vpub = parseExtendedPublicKey(electrum[5]!.key);
    expect(() => deriveReceiveAddress(vpub, 0, 'p2wpkh', 'mainnet')).toThrow(RangeError);
  });

  it('a run of a thousand addresses derived together is the same as each derived alone', () => {
    const key = parseExtendedPublicKey(bip84.account_zpub);
    const first = deriveReceiveAddresses(key, 0, 1000, 'p2wpkh', 'mainnet');
    expect(new Set(first.map((a) => a.address)).size).toBe(1000);
    first.forEach((a, i) => {
      const alone = deriveReceiveAddress(key, i, 'p2wpkh', 'mainnet');
      expect(a.index).toBe(i);
      expect(a.address).toBe(alone.address);
      expect(Buffer.from(a.script).equals(Buffer.from(alone.script))).toBe(true);
    });
    expect(deriveReceiveAddresses(key, 5, 0, 'p2wpkh', 'mainnet')).toEqual([]);
    expect(() => deriveReceiveAddresses(key, 0x7fffffff, 2, 'p2wpkh', 'mainnet')).toThrow(RangeError);
  });
});
