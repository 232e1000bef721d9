import { expect } from 'vitest';

/**
 * A signed transaction's fee pays its rate on its own vsize: exactly rate × vsize, or one vbyte's worth more
 * when re-signing to settle the fee came out a byte shorter (low-R signatures are 71 bytes, a few 70: the signer
 * then keeps the higher fee rather than pay less than the rate; see spending/build-tx.ts).
 */
export function expectFeeAtRate(fee: bigint, rate: bigint, vsize: bigint | number): void {
  const v = BigInt(vsize);
  expect(fee >= rate * v && fee <= rate * (v + 1n), `fee ${fee} sat at ${rate} sat/vB for ${v} vB`).toBe(true);
}
