import { describe, expect, it } from 'vitest';
import { dustThreshold, txVsize } from './tx-size.ts';
import { selectCoins, InsufficientFundsError, type Coin } from './coin-selection.ts';
import { expectFeeAtRate } from '../../test/support/fee-rate.ts';

const P2WPKH = new Uint8Array(22).fill(1);
P2WPKH[0] = 0;
P2WPKH[1] = 20;
const P2PKH = Uint8Array.of(0x76, 0xa9, 20, ...new Uint8Array(20), 0x88, 0xac);
const P2SH = Uint8Array.of(0xa9, 20, ...new Uint8Array(20), 0x87);
const P2TR = Uint8Array.of(0x51, 32, ...new Uint8Array(32));

describe('transaction sizes', () => {
  it('match the well-known sizes of one-input, two-output transactions with 72-byte signatures', () => {
    // Widely quoted figures (e.g. bitcoinops.org's size calculator): 1-in 2-out P2WPKH 141 vB, P2PKH 226 B.
    expect(txVsize(['p2wpkh'], [22, 22], 72)).toBe(141);
    expect(txVsize(['p2pkh'], [25, 25], 72)).toBe(226);
    expect(txVsize(['p2sh-p2wpkh'], [23, 23], 72)).toBe(166);
  });

  it('has Bitcoin Core dust thresholds at 3 sat/vB', () => {
    expect(dustThreshold(P2WPKH)).toBe(294n);
    expect(dustThreshold(P2PKH)).toBe(546n);
    expect(dustThreshold(P2SH)).toBe(540n);
    expect(dustThreshold(P2TR)).toBe(330n);
  });
});

const coin = (id: number, value: bigint, confirmed = true): Coin => ({ outputId: BigInt(id), txid: 'aa'.repeat(32), vout: id, value, scriptType: 'p2wpkh', confirmed });

describe('coin selection', () => {
  it('takes confirmed coins largest first and returns change', () => {
    const s = selectCoins([coin(1, 10_000n), coin(2, 50_000n), coin(3, 90_000n, false)], [{ script: P2WPKH, amount: 30_000n }], 2n, P2WPKH);
    expect(s.coins.map((c) => c.outputId)).toEqual([2n]);
    expectFeeAtRate(s.fee, 2n, s.vsize);
    expect(s.change).toBe(50_000n - 30_000n - s.fee);
  });

  it('gives a remainder below dust to the fee instead of making a dust change output', () => {
    const s = selectCoins([coin(1, 30_300n)], [{ script: P2WPKH, amount: 30_000n }], 1n, P2WPKH);
    expect(s.change).toBe(0n);
    expect(s.fee).toBe(300n);
  });

  it('refuses when the coins cannot pay the outputs and the fee', () => {
    expect(() => selectCoins([coin(1, 30_000n)], [{ script: P2WPKH, amount: 30_000n }], 1n, P2WPKH)).toThrow(InsufficientFundsError);
  });
});
