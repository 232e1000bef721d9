import { describe, it, expect } from 'vitest';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { loadVector } from '../../test/support/load-vector.ts';
import { parseExtendedPublicKey } from './extended-key.ts';
import { accountKeyFromMnemonic, accountNodeFromMnemonic, bip84AccountPath, generateNewWallet } from './new-wallet.ts';
import { deriveReceiveAddress } from './receive-address.ts';

interface Bip84 { mnemonic: string; account_zpub: string; addresses: { address: string }[] }
const bip84 = loadVector<Bip84>('bip84.json');

describe('BIP84 account keys', () => {
  it("the BIP84 mnemonic gives the published zpub at m/84'/0'/0'", () => {
    expect(bip84AccountPath(false)).toBe("m/84'/0'/0'");
    expect(accountKeyFromMnemonic(bip84.mnemonic, false)).toBe(bip84.account_zpub);
  });

  it("the test-network account key is a vpub at m/84'/1'/0'", () => {
    const vpub = accountKeyFromMnemonic(bip84.mnemonic, true);
    const key = parseExtendedPublicKey(vpub);
    expect(key).toMatchObject({ kind: 'vpub', testnet: true, depth: 3, childIndex: 0x80000000 });
    expect(vpub).toBe(loadVector<{ key: string }>('electrum-vpub.json').key);
  });

  it('the account node can sign for the address its public key derives', () => {
    const node = accountNodeFromMnemonic(bip84.mnemonic, false);
    expect(node.privateKey).not.toBeNull();
    expect(node.publicExtendedKey).toBe(bip84.account_zpub);
  });

  it('an invalid mnemonic is refused', () => {
    const broken = bip84.mnemonic.replace(/about$/, 'abandon');
    expect(() => accountKeyFromMnemonic(broken, false)).toThrow(TypeError);
  });
});

describe('generated wallets', () => {
  it('a new mainnet wallet has a valid 12-word mnemonic and its zpub', () => {
    const w = generateNewWallet(false);
    expect(w.mnemonic.split(' ')).toHaveLength(12);
    expect(validateMnemonic(w.mnemonic, wordlist)).toBe(true);
    expect(w.accountKey).toBe(accountKeyFromMnemonic(w.mnemonic, false));
    const key = parseExtendedPublicKey(w.accountKey);
    expect(key.kind).toBe('zpub');
    expect(deriveReceiveAddress(key, 0, key.defaultScriptType, 'mainnet').address.startsWith('bc1q')).toBe(true);
  });

  it('a new test wallet can have 24 words and a vpub', () => {
    const w = generateNewWallet(true, 24);
    expect(w.mnemonic.split(' ')).toHaveLength(24);
    expect(parseExtendedPublicKey(w.accountKey).kind).toBe('vpub');
  });

  it('two generated wallets differ', () => {
    expect(generateNewWallet(false).mnemonic).not.toBe(generateNewWallet(false).mnemonic);
  });
});
