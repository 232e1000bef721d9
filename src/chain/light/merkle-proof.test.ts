import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { merkleBranch, merkleRootFromBranch } from './merkle-proof.ts';

// Block 100000 of mainnet: four transactions and the Merkle root in its header.
const BLOCK_100000 = {
  root: 'f3e94742aca4b5ef85488dc37c06c3282295ffec960994b2c0d5ac2a25a95766',
  txids: [
    '8c14f0db3df150123e6f3dbbf30f8b955a8249b62ac1d1ff16284aefa3d06d87',
    'fff2525b8931402dd09222c50775608f75787bd2b87e56995a7bdd30f79702c4',
    '6359f0868171b1d194cbee1af2f16ea598ae8fad666d9b012c8ed2b79a236ec4',
    'e9a66845e05d5abc0ad04ec80f774a7e585c6e8db975962d069a522137b80c1d',
  ],
};

describe('Merkle proofs', () => {
  it('each transaction of mainnet block 100000 proves into its header root', () => {
    BLOCK_100000.txids.forEach((txid, pos) => {
      expect(merkleRootFromBranch(txid, merkleBranch(BLOCK_100000.txids, pos), pos)).toBe(BLOCK_100000.root);
    });
  });

  it('a proof for another position or another transaction leads elsewhere', () => {
    const branch = merkleBranch(BLOCK_100000.txids, 1);
    expect(merkleRootFromBranch(BLOCK_100000.txids[1]!, branch, 0)).not.toBe(BLOCK_100000.root);
    expect(merkleRootFromBranch(BLOCK_100000.txids[2]!, branch, 1)).not.toBe(BLOCK_100000.root);
  });

  it('odd levels duplicate their last hash, as Bitcoin does', () => {
    const txids = Array.from({ length: 5 }, () => randomBytes(32).toString('hex'));
    const root = merkleRootFromBranch(txids[0]!, merkleBranch(txids, 0), 0);
    for (let pos = 1; pos < 5; pos++) expect(merkleRootFromBranch(txids[pos]!, merkleBranch(txids, pos), pos)).toBe(root);
  });

  it('a malformed proof is refused rather than trusted', () => {
    expect(merkleRootFromBranch(BLOCK_100000.txids[0]!, ['zz'], 0)).toBeNull();
    expect(merkleRootFromBranch(BLOCK_100000.txids[0]!, [], 1)).toBeNull();
    expect(merkleRootFromBranch(BLOCK_100000.txids[0]!, [BLOCK_100000.txids[1]!], -1)).toBeNull();
  });
});
