// Registers a fresh watch-only regtest wallet straight in a test database (no HTTP), for tests that only need
// an API ID to point commands at.
import type { Db } from '../../src/db/database.ts';
import type { MasterKey } from '../../src/security/master-key.ts';
import { WalletRepository } from '../../src/wallets/wallet-repository.ts';
import { registerWallet } from '../../src/wallets/wallet-registration.ts';
import { generateNewWallet } from '../../src/bitcoin/new-wallet.ts';

/** A new regtest account key registered in `db`; returns its API ID. */
export async function registerRegtestWallet(db: Db, masterKey: MasterKey): Promise<string> {
  const { api_id } = await registerWallet(
    { repo: new WalletRepository(db), masterKey, clock: () => Date.now(), testNetwork: 'regtest', isSupportedCurrency: () => true },
    { pub: generateNewWallet(true).accountKey },
  );
  return api_id;
}
