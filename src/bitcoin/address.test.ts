import { describe, it, expect } from 'vitest';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { loadVector } from '../../test/support/load-vector.ts';
import {
  InvalidAddressError,
  addressForPublicKey,
  addressFromScript,
  decodeAddress,
  decodeAddressFor,
  encodeAddress,
  hash160,
  scriptForPublicKey,
} from './address.ts';
import { NETWORKS, type Network } from './networks.ts';

interface Bip350 { valid: { address: string; script_hex: string }[]; invalid: { address: string; reason: string }[] }
interface Bip49 { receive: { public_key_hex: string; key_hash_hex: string; address_bytes_hex: string; address: string }[] }
interface Bip84 { addresses: { public_key_hex: string; address: string }[] }
interface ElectrumVector { kind: string; electrum_network: string; receiving_addresses: string[] }

const bip350 = loadVector<Bip350>('bip350.json');
const bip49 = loadVector<Bip49>('bip49.json');
const bip84 = loadVector<Bip84>('bip84.json');
const electrum = ['xpub', 'ypub', 'zpub', 'tpub', 'upub', 'vpub'].map((k) => loadVector<ElectrumVector>(`electrum-${k}.json`));
const TEST_NETWORKS: Network[] = ['testnet4', 'signet', 'regtest'];

function rejection(input: unknown, network?: Network): InvalidAddressError {
  try {
    if (network) decodeAddressFor(input, network);
    else decodeAddress(input);
  } catch (e) {
    if (e instanceof InvalidAddressError) return e;
    throw e;
  }
  throw new Error('address was accepted');
}

describe('scripts from public keys', () => {
  it('BIP49: the nested segwit script hashes the published redeem script', () => {
    const v = bip49.receive[0]!;
    const pub = hexToBytes(v.public_key_hex);
    expect(bytesToHex(hash160(pub))).toBe(v.key_hash_hex);
    expect(bytesToHex(scriptForPublicKey(pub, 'p2sh-p2wpkh'))).toBe(`a914${v.address_bytes_hex}87`);
    expect(addressForPublicKey(pub, 'p2sh-p2wpkh', 'testnet4')).toBe(v.address);
  });

  it('BIP84: published public keys give the published native segwit addresses', () => {
    for (const v of bip84.addresses) {
      expect(addressForPublicKey(hexToBytes(v.public_key_hex), 'p2wpkh', 'mainnet')).toBe(v.address);
    }
  });

  it('a legacy script is OP_DUP OP_HASH160 <hash> OP_EQUALVERIFY OP_CHECKSIG', () => {
    const pub = hexToBytes(bip84.addresses[0]!.public_key_hex);
    expect(bytesToHex(scriptForPublicKey(pub, 'p2pkh'))).toBe(`76a914${bytesToHex(hash160(pub))}88ac`);
  });

  it('a public key that is not 33 compressed bytes is refused', () => {
    expect(() => scriptForPublicKey(new Uint8Array(65).fill(4), 'p2wpkh')).toThrow(TypeError);
    expect(() => scriptForPublicKey(new Uint8Array(33).fill(4), 'p2wpkh')).toThrow(TypeError);
  });
});

describe('BIP350 segwit address vectors', () => {
  for (const v of bip350.valid) {
    it(`${v.address} decodes to its scriptPubKey and encodes back`, () => {
      const decoded = decodeAddress(v.address);
      expect(bytesToHex(decoded.script)).toBe(v.script_hex);
      const network = decoded.networks[0]!;
      expect(addressFromScript(decoded.script, network)).toBe(v.address.toLowerCase());
    });
  }
  for (const v of bip350.invalid) {
    it(`${v.address} is rejected (${v.reason})`, () => {
      expect(rejection(v.address)).toBeInstanceOf(InvalidAddressError);
    });
  }

  it('address types are told apart', () => {
    const types = bip350.valid.map((v) => decodeAddress(v.address).type);
    expect(types).toEqual(['p2wpkh', 'p2wsh', 'witness-unknown', 'witness-unknown', 'witness-unknown', 'p2wsh', 'p2tr', 'p2tr']);
  });
});

describe('address round trips', () => {
  for (const v of electrum) {
    it(`Electrum ${v.kind} addresses decode, re-encode identically and name their networks`, () => {
      const networks = v.electrum_network === 'mainnet' ? ['mainnet'] : v.kind === 'vpub' ? ['testnet4', 'signet'] : TEST_NETWORKS;
      for (const address of v.receiving_addresses) {
        const decoded = decodeAddress(address);
        expect(decoded.networks).toEqual(networks);
        expect(encodeAddress(decoded.script, networks[0] as Network)).toBe(address);
      }
    });
  }

  it('regtest segwit addresses use bcrt and decode to regtest only', () => {
    const script = decodeAddress(electrum[5]!.receiving_addresses[0]).script;
    const regtest = encodeAddress(script, 'regtest');
    expect(regtest.startsWith('bcrt1q')).toBe(true);
    const decoded = decodeAddressFor(regtest, 'regtest');
    expect(decoded.networks).toEqual(['regtest']);
    expect(decoded.script).toEqual(script);
    expect(rejection(regtest, 'testnet4').reason).toBe('wrong-network');
  });

  it('regtest legacy and p2sh addresses share testnet versions', () => {
    for (const address of [electrum[3]!.receiving_addresses[0], electrum[4]!.receiving_addresses[0]]) {
      const { script } = decodeAddressFor(address, 'regtest');
      expect(encodeAddress(script, 'regtest')).toBe(address);
    }
  });

  it('a p2tr script encodes with bech32m on every network', () => {
    const script = hexToBytes(bip350.valid[7]!.script_hex);
    for (const n of NETWORKS) {
      const address = encodeAddress(script, n);
      expect(decodeAddressFor(address, n).type).toBe('p2tr');
    }
  });
});

describe('invalid addresses', () => {
  const legacy = electrum[0]!.receiving_addresses[0]!;
  const segwit = electrum[2]!.receiving_addresses[0]!;

  it('a base58 address with one character changed fails its checksum', () => {
    const bad = legacy.slice(0, 5) + (legacy[5] === 'a' ? 'b' : 'a') + legacy.slice(6);
    expect(rejection(bad).reason).toBe('bad-checksum');
  });

  it('a bech32 address with one character changed fails its checksum', () => {
    const bad = segwit.slice(0, 10) + (segwit[10] === 'q' ? 'p' : 'q') + segwit.slice(11);
    expect(rejection(bad).reason).toBe('bad-checksum');
  });

  it('a mainnet address is refused for a test network and the reverse', () => {
    expect(rejection(legacy, 'testnet4').reason).toBe('wrong-network');
    expect(rejection(segwit, 'signet').reason).toBe('wrong-network');
    expect(rejection(electrum[5]!.receiving_addresses[0], 'mainnet').reason).toBe('wrong-network');
    expect(rejection(electrum[3]!.receiving_addresses[0], 'mainnet').reason).toBe('wrong-network');
  });

  it('uppercase segwit addresses are accepted, mixed case is not', () => {
    expect(decodeAddress(segwit.toUpperCase()).script).toEqual(decodeAddress(segwit).script);
    expect(rejection(segwit.slice(0, 8) + segwit.slice(8).toUpperCase()).reason).toBe('bad-checksum');
  });

  it('garbage, empty and non-string input is rejected', () => {
    for (const bad of ['', 'hello world', '0x1234', 'bc1', legacy + legacy]) expect(rejection(bad)).toBeInstanceOf(InvalidAddressError);
    expect(rejection(null).reason).toBe('not-a-string');
  });

  it('a script with no address form has no address', () => {
    expect(addressFromScript(hexToBytes('6a0401020304'), 'mainnet')).toBeUndefined();
    expect(() => encodeAddress(hexToBytes('6a0401020304'), 'mainnet')).toThrow(TypeError);
    expect(addressFromScript(hexToBytes('0015' + '00'.repeat(21)), 'mainnet')).toBeUndefined();
  });
});
