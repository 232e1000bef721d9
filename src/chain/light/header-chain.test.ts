import { describe, expect, it } from 'vitest';
import { grindHeader, hash256, serializeHeader, toDisplayHex } from '../../devchain/block-builder.ts';
import { parseBlockHeader } from '../../bitcoin/raw-block.ts';
import { HeaderChain, HeaderLie } from './header-chain.ts';
import { meetsTarget } from './pow.ts';

const REGTEST_GENESIS = serializeHeader({
  version: 1,
  prevHash: '0'.repeat(64),
  merkleRoot: Buffer.from('4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b', 'hex').reverse(),
  time: 1296688602,
  bits: 0x207fffff,
  nonce: 2,
});

/** `n` headers on `parent`, each ground to meet regtest's target; `salt` makes a branch distinct. */
function branch(parent: Uint8Array, n: number, salt = 0, bits = 0x207fffff): Uint8Array[] {
  const out: Uint8Array[] = [];
  let prev = parent;
  for (let i = 0; i < n; i++) {
    const p = parseBlockHeader(prev);
    const h = grindHeader(
      serializeHeader({ version: 0x20000000, prevHash: p.hash, merkleRoot: hash256(Buffer.from(`${salt}:${i}`)), time: p.time + 600, bits, nonce: 0 }),
      bits,
    );
    out.push(h);
    prev = h;
  }
  return out;
}

function failingPow(h: Uint8Array): Uint8Array {
  const copy = new Uint8Array(h);
  const view = new DataView(copy.buffer);
  for (let nonce = 0; ; nonce++) {
    view.setUint32(76, nonce, true);
    if (!meetsTarget(toDisplayHex(hash256(copy)), 0x207fffff)) return copy;
  }
}

describe('the verified header chain', () => {
  it('starts at the regtest genesis and extends with linked headers that meet their target', () => {
    const chain = new HeaderChain('regtest');
    expect(parseBlockHeader(REGTEST_GENESIS).hash).toBe('0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206');
    const headers = [REGTEST_GENESIS, ...branch(REGTEST_GENESIS, 5)];
    expect(chain.connect(0, headers)).toMatchObject({ kind: 'extended', tip: { height: 5 } });
    expect(chain.connect(3, headers.slice(3))).toEqual({ kind: 'unchanged' });
    expect(chain.tip()!.chainWork).toBe(6n * 2n);
  });

  it('refuses a first header that is not the checkpoint', () => {
    const chain = new HeaderChain('regtest');
    expect(() => chain.connect(0, branch(REGTEST_GENESIS, 1))).toThrow(HeaderLie);
    expect(chain.tip()).toBeUndefined();
  });

  it('refuses a header failing proof of work, a broken link and a changed target, keeping what it had', () => {
    const chain = new HeaderChain('regtest');
    const main = branch(REGTEST_GENESIS, 3);
    chain.connect(0, [REGTEST_GENESIS, ...main]);
    const next = branch(main[2]!, 1)[0]!;
    expect(() => chain.connect(4, [failingPow(next)])).toThrow(/proof-of-work/);
    expect(() => chain.connect(4, branch(main[1]!, 1, 9))).toThrow(/does not link/);
    expect(() => chain.connect(4, branch(main[2]!, 1, 0, 0x1f7fffff))).toThrow(/fixed target/);
    expect(chain.tip()!.height).toBe(3);
    expect(chain.connect(4, [next]).kind).toBe('extended');
  });

  it('refuses a header not after the median time of the last eleven', () => {
    const chain = new HeaderChain('regtest');
    const main = branch(REGTEST_GENESIS, 3);
    chain.connect(0, [REGTEST_GENESIS, ...main]);
    const p = parseBlockHeader(main[2]!);
    const early = grindHeader(
      serializeHeader({ version: 0x20000000, prevHash: p.hash, merkleRoot: new Uint8Array(32), time: parseBlockHeader(REGTEST_GENESIS).time, bits: 0x207fffff, nonce: 0 }),
      0x207fffff,
    );
    expect(() => chain.connect(4, [early])).toThrow(/median time/);
  });

  it('follows a branch with more work from the fork point, and keeps its own against one with no more', () => {
    const chain = new HeaderChain('regtest');
    const main = branch(REGTEST_GENESIS, 4);
    chain.connect(0, [REGTEST_GENESIS, ...main]);
    const equal = branch(main[1]!, 2, 7); // heights 3..4: same work as ours
    expect(chain.connect(3, equal)).toEqual({ kind: 'less-work', forkHeight: 2 });
    expect(chain.tip()!.hash).toBe(parseBlockHeader(main[3]!).hash);
    const longer = branch(main[1]!, 3, 8); // heights 3..5
    expect(chain.connect(3, longer)).toMatchObject({ kind: 'reorg', forkHeight: 2, tip: { height: 5 } });
    expect(chain.at(3)!.hash).toBe(parseBlockHeader(longer[0]!).hash);
  });

  it('on mainnet starts only at the built-in checkpoint', () => {
    const chain = new HeaderChain('mainnet');
    expect(chain.baseHeight).toBe(840_000);
    expect(() => chain.connect(0, [REGTEST_GENESIS])).toThrow(/below the checkpoint/);
    expect(() => chain.connect(840_000, [REGTEST_GENESIS])).toThrow(/not the checkpoint/);
  });
});
