// A wallet named by its key text (GET /tx/:public_key, add_pub again): one extended key as before, or any form of a
// descriptor-like wallet. Such a wallet stores the text its merchant registered (`pub`) and its canonical descriptor
// (`descriptor`), so it is found by the exact text registered, and by any other form of it through its canonical one.
import { DescriptorError } from '../bitcoin/descriptors/errors.ts';
import { InvalidExtendedKeyError, parseExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { keyOf, parseWalletText } from '../bitcoin/wallet-key.ts';
import { DomainError } from '../core/domain-errors.ts';
import type { WalletRepository, WalletRow } from './wallet-repository.ts';

/**
 * The canonical descriptor of a descriptor-like text, undefined for one extended key; throws DomainError 'invalid-key'
 * (code 102) naming the refused part. The canonical text does not depend on which test network a tpub serves.
 */
export function canonicalOfWalletText(text: string): string | undefined {
  try {
    const d = parseWalletText(text);
    return d && keyOf({ descriptor: d.text }, d.testnet ? 'regtest' : 'mainnet').describe();
  } catch (err) {
    if (err instanceof DescriptorError) throw new DomainError('invalid-key', `Public key is not valid: ${err.message}`);
    throw err;
  }
}

/** The wallet a key text names (any accepted form), or undefined; an unreadable text answers 102. */
export async function findWalletByKeyText(repo: Pick<WalletRepository, 'findByPub' | 'findByDescriptor'>, text: string): Promise<WalletRow | undefined> {
  if (text !== text.trim()) throw new DomainError('invalid-key', 'Public key is not valid: it has leading or trailing whitespace');
  const canonical = canonicalOfWalletText(text);
  if (canonical !== undefined) return (await repo.findByPub(text)) ?? (await repo.findByDescriptor(canonical));
  try {
    parseExtendedPublicKey(text);
  } catch (err) {
    if (err instanceof InvalidExtendedKeyError) throw new DomainError('invalid-key', `Public key is not valid: ${err.message}`);
    throw err;
  }
  return repo.findByPub(text);
}
