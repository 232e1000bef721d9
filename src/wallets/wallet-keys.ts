// Every wallet's key as its derivations use it: read once from the row (walletKeyOf) and kept, so the parsed key
// and its chain nodes (which cost as much as an address to derive) serve every later address of the wallet.
import { walletKeyOf, type WalletKey, type WalletKeyRow } from '../bitcoin/wallet-key.ts';
import type { Network } from '../bitcoin/networks.ts';

/** One derived receiving address as the issuer and the pool store it. */
export interface IssuedOutput {
  readonly index: number;
  readonly address: string;
  /** The scriptPubKey, which is what the chain watcher matches on. */
  readonly script: Uint8Array;
}

/** Most wallet keys kept; past it the cache starts again (a key is read again on its next use). */
const MAX_KEPT = 10_000;

/** The wallet keys of the wallets this process derives for. */
export class WalletKeys {
  private readonly kept = new Map<string, WalletKey>();

  /** The wallet's key; the row's key columns name it, so a wallet_type change (before any address) reads a new one. */
  of(row: WalletKeyRow & { network: string }): WalletKey {
    const id = row.descriptor ? `${row.network} ${row.descriptor}` : `${row.network} ${row.pub} ${row.script_type} ${row.key_origin ?? ''}`;
    let key = this.kept.get(id);
    if (!key) {
      if (this.kept.size >= MAX_KEPT) this.kept.clear();
      key = walletKeyOf(row, row.network as Network);
      this.kept.set(id, key);
    }
    return key;
  }

  /** Receiving address `index` (child 0/index on every cosigner key) of the wallet. */
  receive(row: WalletKeyRow & { network: string }, index: number): IssuedOutput {
    const out = this.of(row).receive(index);
    return { index, address: out.address, script: out.script };
  }
}
