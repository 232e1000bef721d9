import { describe, expect, it } from 'vitest';
import { parseBlockHeader } from '../../bitcoin/raw-block.ts';
import { bitsFromTarget, meetsTarget, targetFromBits, workOfBits } from './pow.ts';

const MAINNET_GENESIS =
  '0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a29ab5f49ffff001d1dac2b7c';

describe('proof of work', () => {
  it('the mainnet genesis header hashes to its known id and meets its target', () => {
    const h = parseBlockHeader(Buffer.from(MAINNET_GENESIS, 'hex'));
    expect(h.hash).toBe('000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f');
    expect(meetsTarget(h.hash, h.bits)).toBe(true);
  });

  it('a hash above the target fails, even on regtest’s easiest target', () => {
    expect(meetsTarget('8' + '0'.repeat(63), 0x207fffff)).toBe(false);
    expect(meetsTarget('7fffff' + '0'.repeat(58), 0x207fffff)).toBe(true);
  });

  it('compact targets convert both ways as Core encodes them', () => {
    expect(targetFromBits(0x1d00ffff)).toBe(0xffffn << 208n);
    for (const bits of [0x1d00ffff, 0x17034219, 0x207fffff, 0x1e0377ae, 0x1b0404cb]) expect(bitsFromTarget(targetFromBits(bits))).toBe(bits);
    // A target whose top byte has the sign bit set moves up an exponent.
    expect(bitsFromTarget(0x80n << 200n)).toBe(0x1b008000);
  });

  it('a negative or zero target is never valid, and harder targets weigh more work', () => {
    expect(targetFromBits(0x1d80ffff)).toBe(0n);
    expect(meetsTarget('0'.repeat(64), 0x1d80ffff)).toBe(false);
    expect(workOfBits(0x17034219) > workOfBits(0x1d00ffff)).toBe(true);
    expect(workOfBits(0x1d00ffff)).toBe(0x100010001n);
  });
});
