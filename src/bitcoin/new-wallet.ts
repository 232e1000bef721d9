/** Service-generated wallets (`pub = "new_wallet"`): a BIP39 mnemonic and its BIP84 account key. */
import { HDKey } from '@scure/bip32';
import { generateMnemonic, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { versionsForKind } from './extended-key.ts';
import { descriptorChecksum } from './descriptors/checksum.ts';
import { XPUB_VERSIONS } from './descriptors/key-expression.ts';

/** A freshly generated wallet: keep `mnemonic` secret; register `accountKey`. */
export interface NewWallet {
  readonly mnemonic: string;
  /** The BIP84 account key: zpub (mainnet) or vpub (test networks). */
  readonly accountKey: string;
}

/** BIP84 account path: m/84'/0'/0' on mainnet, m/84'/1'/0' on test networks. */
export function bip84AccountPath(testnet: boolean): string {
  return testnet ? "m/84'/1'/0'" : "m/84'/0'/0'";
}

/** The BIP84 account node (with its private key) for a mnemonic; for signing from service-held wallets. */
export function accountNodeFromMnemonic(mnemonic: string, testnet: boolean, passphrase = ''): HDKey {
  if (!validateMnemonic(mnemonic, wordlist)) throw new TypeError('invalid BIP39 mnemonic');
  const seed = mnemonicToSeedSync(mnemonic, passphrase);
  const root = HDKey.fromMasterSeed(seed, versionsForKind(testnet ? 'vpub' : 'zpub'));
  return root.derive(bip84AccountPath(testnet));
}

/** The BIP84 account public key (zpub or vpub) of a mnemonic. */
export function accountKeyFromMnemonic(mnemonic: string, testnet: boolean, passphrase = ''): string {
  return accountNodeFromMnemonic(mnemonic, testnet, passphrase).publicExtendedKey;
}

/** Generate a new 12- or 24-word English mnemonic and its BIP84 account key. */
export function generateNewWallet(testnet: boolean, words: 12 | 24 = 12): NewWallet {
  const mnemonic = generateMnemonic(wordlist, words === 24 ? 256 : 128);
  return { mnemonic, accountKey: accountKeyFromMnemonic(mnemonic, testnet) };
}

/** BIP86 account path: m/86'/0'/0' on mainnet, m/86'/1'/0' on test networks. */
export function bip86AccountPath(testnet: boolean): string {
  return testnet ? "m/86'/1'/0'" : "m/86'/0'/0'";
}

/** The BIP86 (taproot) account node with its private key, and the wallet's descriptor, for a mnemonic. */
export function taprootAccountFromMnemonic(mnemonic: string, testnet: boolean): { account: HDKey; descriptor: string } {
  if (!validateMnemonic(mnemonic, wordlist)) throw new TypeError('invalid BIP39 mnemonic');
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic), testnet ? XPUB_VERSIONS.test : XPUB_VERSIONS.mainnet);
  const account = root.derive(bip86AccountPath(testnet));
  const fingerprint = root.fingerprint.toString(16).padStart(8, '0');
  root.wipePrivateData();
  const body = `tr([${fingerprint}/86h/${testnet ? 1 : 0}h/0h]${account.publicExtendedKey}/<0;1>/*)`;
  return { account, descriptor: `${body}#${descriptorChecksum(body)!}` };
}

/** A freshly generated taproot (BIP86) wallet: keep `mnemonic` secret; register `descriptor` (tpub/xpub, receive and change as <0;1>). */
export function generateTaprootWallet(testnet: boolean, words: 12 | 24 = 12): { mnemonic: string; descriptor: string } {
  const mnemonic = generateMnemonic(wordlist, words === 24 ? 256 : 128);
  const { account, descriptor } = taprootAccountFromMnemonic(mnemonic, testnet);
  account.wipePrivateData();
  return { mnemonic, descriptor };
}
