// Merkle inclusion proofs as Electrum (`blockchain.transaction.get_merkle`) and Esplora (`/tx/:txid/merkle-proof`)
// send them: the sibling hashes from the leaf up, in display (byte-reversed) hex, and the leaf's position.
import { reversedHex, sha256d } from '../../bitcoin/raw-tx.ts';

function internal(displayHex: string): Buffer {
  if (!/^[0-9a-f]{64}$/i.test(displayHex)) throw new Error('not a 32-byte hash');
  return Buffer.from(displayHex, 'hex').reverse();
}

/**
 * The Merkle root the branch leads to from `txid` at `pos`, display hex; null for a malformed proof (a
 * position that does not fit the branch's depth, or a hash that is not 32 bytes).
 */
export function merkleRootFromBranch(txid: string, branch: readonly string[], pos: number): string | null {
  if (!Number.isSafeInteger(pos) || pos < 0 || branch.length > 32 || pos >= 2 ** branch.length) return null;
  try {
    let h = internal(txid);
    let index = pos;
    for (const sibling of branch) {
      const s = internal(sibling);
      h = index & 1 ? sha256d(Buffer.concat([s, h])) : sha256d(Buffer.concat([h, s]));
      index = Math.floor(index / 2);
    }
    return reversedHex(h);
  } catch {
    return null;
  }
}

/** The branch proving the leaf at `pos` in a block whose transactions are `txids` (display hex), in the same form. */
export function merkleBranch(txids: readonly string[], pos: number): string[] {
  let level = txids.map(internal);
  const branch: string[] = [];
  let index = pos;
  while (level.length > 1) {
    if (level.length % 2 === 1) level.push(level[level.length - 1]!);
    branch.push(reversedHex(level[index ^ 1]!));
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Buffer.concat([level[i]!, level[i + 1]!])));
    level = next;
    index = Math.floor(index / 2);
  }
  return branch;
}

/** The Merkle root of a block whose transactions are `txids` (display hex), in the same form. */
export function merkleRoot(txids: readonly string[]): string {
  let level = txids.map(internal);
  while (level.length > 1) {
    if (level.length % 2 === 1) level.push(level[level.length - 1]!);
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Buffer.concat([level[i]!, level[i + 1]!])));
    level = next;
  }
  return reversedHex(level[0]!);
}
