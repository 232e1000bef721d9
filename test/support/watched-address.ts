// A wallet row and its first receive address written straight into a test database (no registration, no
// sealed keys: placeholders), for chain tests that only need a script the node can pay and the ids to watch it with.
import type { Db } from '../../src/db/database.ts';
import { generateNewWallet } from '../../src/bitcoin/new-wallet.ts';
import { parseExtendedPublicKey } from '../../src/bitcoin/extended-key.ts';
import { deriveReceiveAddress } from '../../src/bitcoin/receive-address.ts';

/** Inserts a regtest p2wpkh wallet `apiId` and its receive address 0; returns the address's script and ids. */
export async function insertReceiveAddress(db: Db, apiId: string) {
  const wallet = await db.kysely
    .insertInto('wallets')
    .values({
      api_id: apiId, pub: generateNewWallet(true).accountKey, mode: 'test', network: 'regtest', script_type: 'p2wpkh', wallet_type: 3n,
      local_currency: 'usd', notification_email: null, return_url: null, account_name: null, account_type: null, info: null,
      box_public_key: 'x', box_secret_sealed: 'x', sign_public_key: 'x', sign_secret_sealed: 'x', seed_sealed: null, created_at: 0n, updated_at: 0n,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const derived = deriveReceiveAddress(parseExtendedPublicKey(wallet.pub), 0, 'p2wpkh', 'regtest');
  const address = await db.kysely
    .insertInto('addresses')
    .values({ wallet_id: wallet.id, derivation_index: 0n, address: derived.address, script_hex: Buffer.from(derived.script).toString('hex'), created_at: 0n, reserved_until: null, purpose: 'payment' })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { script: derived.script, addressId: address.id, walletId: wallet.id };
}
