/** BIP380 descriptor checksums: eight characters after `#`, a BCH code over the descriptor's characters. */
const INPUT_CHARSET = "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];

function polymod(symbols: readonly number[]): bigint {
  let chk = 1n;
  for (const value of symbols) {
    const top = chk >> 35n;
    chk = ((chk & 0x7ffffffffn) << 5n) ^ BigInt(value);
    for (let i = 0; i < 5; i++) if ((top >> BigInt(i)) & 1n) chk ^= GENERATOR[i]!;
  }
  return chk;
}

// Each character becomes its position in a group of 32 (one symbol) and, every three characters, one symbol of
// their group numbers, so case and class errors are caught as well as substitutions (BIP380 "descsum_expand").
function expand(text: string): number[] | undefined {
  const out: number[] = [];
  const groups: number[] = [];
  for (const ch of text) {
    const v = INPUT_CHARSET.indexOf(ch);
    if (v < 0) return undefined;
    out.push(v & 31);
    groups.push(v >> 5);
    if (groups.length === 3) {
      out.push(groups[0]! * 9 + groups[1]! * 3 + groups[2]!);
      groups.length = 0;
    }
  }
  if (groups.length === 1) out.push(groups[0]!);
  else if (groups.length === 2) out.push(groups[0]! * 3 + groups[1]!);
  return out;
}

/** True when every character may appear in a descriptor. */
export function validDescriptorCharacters(text: string): boolean {
  return expand(text) !== undefined;
}

/** The checksum of a descriptor body (without `#`); undefined when it has a character descriptors do not use. */
export function descriptorChecksum(body: string): string | undefined {
  const symbols = expand(body);
  if (!symbols) return undefined;
  const c = polymod([...symbols, 0, 0, 0, 0, 0, 0, 0, 0]) ^ 1n;
  let out = '';
  for (let i = 0; i < 8; i++) out += CHECKSUM_CHARSET[Number((c >> (5n * BigInt(7 - i))) & 31n)];
  return out;
}
