// Proof-of-work arithmetic over compact targets ("nBits"), shared by the header chain and its tests.

/** The target a compact "nBits" encodes; 0n for a negative or overflowing encoding (never valid). */
export function targetFromBits(bits: number): bigint {
  const exponent = bits >>> 24;
  const mantissa = bits & 0x007fffff;
  if (bits & 0x00800000) return 0n; // sign bit: a negative target is invalid
  const target = exponent <= 3 ? BigInt(mantissa >>> (8 * (3 - exponent))) : BigInt(mantissa) << BigInt(8 * (exponent - 3));
  return target >= 1n << 256n ? 0n : target;
}

/** The compact encoding of a target, as Bitcoin Core's `GetCompact` rounds it. */
export function bitsFromTarget(target: bigint): number {
  let size = 0;
  for (let t = target; t > 0n; t >>= 8n) size++;
  let compact = size <= 3 ? Number(target << BigInt(8 * (3 - size))) : Number(target >> BigInt(8 * (size - 3)));
  // The mantissa's top bit is a sign bit: shift it out into the exponent.
  if (compact & 0x00800000) {
    compact >>>= 8;
    size++;
  }
  return (compact | (size << 24)) >>> 0;
}

/** Expected number of hashes to find a block at this target: 2^256 / (target + 1), as Core counts work. */
export function workOfBits(bits: number): bigint {
  const target = targetFromBits(bits);
  if (target === 0n) return 0n;
  return (1n << 256n) / (target + 1n);
}

/** The hash, read as a little-endian 256-bit number (display hex is big-endian), meets the target. */
export function meetsTarget(hashDisplayHex: string, bits: number): boolean {
  const target = targetFromBits(bits);
  return target > 0n && BigInt('0x' + hashDisplayHex) <= target;
}
