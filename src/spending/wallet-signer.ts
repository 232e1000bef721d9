/** Private keys of a service-held wallet, derived on the fly from its sealed mnemonic and dropped after use. */
import type { HDKey } from '@scure/bip32';
import { accountNodeFromMnemonic, taprootAccountFromMnemonic } from '../bitcoin/new-wallet.ts';
import type { MasterKey } from '../security/master-key.ts';

/** The key pair of child `branch/index` below the account key. */
export interface ChildKey {
  readonly publicKey: Uint8Array;
  readonly privateKey: Uint8Array;
}

/** A wallet's account node with private keys; `wipe` when done. */
export interface WalletSigner {
  child(branch: 0 | 1, index: number): ChildKey;
  wipe(): void;
}

/** A wallet the service cannot sign for (registered by extended public key). */
export class WatchOnlyWalletError extends Error {
  override name = 'WatchOnlyWalletError';
  constructor() {
    super('this wallet is watch-only (registered by extended public key): the service holds no key to sign with');
  }
}

/**
 * Unseals the wallet's mnemonic and derives its account node; refuses when the account key does not equal
 * the registered one (a seed that is not this wallet's must never sign for it).
 */
export function openSigner(wallet: { seed_sealed: string | null; pub: string; mode: string; script_type?: string }, masterKey: MasterKey): WalletSigner {
  if (!wallet.seed_sealed) throw new WatchOnlyWalletError();
  const mnemonicBytes = masterKey.unseal(wallet.seed_sealed);
  let account: HDKey;
  // What the seed must give to be this wallet's: the BIP84 account key, or a taproot wallet's whole descriptor.
  let registered: string;
  try {
    const mnemonic = mnemonicBytes.toString('utf8');
    if (wallet.script_type === 'p2tr') {
      ({ account, descriptor: registered } = taprootAccountFromMnemonic(mnemonic, wallet.mode === 'test'));
    } else {
      account = accountNodeFromMnemonic(mnemonic, wallet.mode === 'test');
      registered = account.publicExtendedKey;
    }
  } finally {
    mnemonicBytes.fill(0);
  }
  if (registered !== wallet.pub) {
    account.wipePrivateData();
    throw new Error('the sealed seed does not belong to this wallet');
  }
  const branches: [HDKey | undefined, HDKey | undefined] = [undefined, undefined];
  return {
    child(branch, index) {
      const node = (branches[branch] ??= account.deriveChild(branch)).deriveChild(index);
      if (!node.privateKey || !node.publicKey) throw new Error('derived node lacks a key');
      return { publicKey: node.publicKey, privateKey: node.privateKey };
    },
    wipe() {
      branches[0]?.wipePrivateData();
      branches[1]?.wipePrivateData();
      account.wipePrivateData();
    },
  };
}
