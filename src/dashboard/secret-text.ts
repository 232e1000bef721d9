// Text that is, or nearly is, a private key or a recovery phrase: refused by name when given where a public key
// belongs, and never written back into a form. By shape only (a mistyped private key is still a secret), so it
// errs towards calling text secret.

const BASE58 = '[1-9A-HJ-NP-Za-km-z]';
const SHAPES = [
  // Extended private keys: xprv, tprv, yprv, zprv, uprv, vprv and the multisig Yprv, Zprv, Uprv, Vprv.
  new RegExp(`[xyztuvYZUV]prv${BASE58}{20,}`),
  // WIF: 5… (mainnet, uncompressed), K…/L… (mainnet), 9…/c… (test networks).
  new RegExp(`^[5KL9c]${BASE58}{49,51}$`),
  // A raw 32-byte private key in hex.
  /^(?:0x)?[0-9a-fA-F]{64}$/,
  // A recovery phrase: 12 or more lowercase words.
  /^(?:[a-z]{3,8}\s+){11,}[a-z]{3,8}$/,
];

/** Whether the text looks like a private key or a recovery phrase. */
export function looksLikePrivateKey(text: string): boolean {
  const t = text.trim();
  return SHAPES.some((shape) => shape.test(t));
}
