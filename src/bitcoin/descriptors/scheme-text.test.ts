import { describe, expect, it } from 'vitest';
import { cosigner } from '../../../test/support/cosigner-keys.ts';
import { keyOf } from '../wallet-key.ts';
import { derivationSchemeText } from './scheme-text.ts';

describe('the derivation scheme BTCPay shows for a wallet key', () => {
  const [a, b, c] = [cosigner(), cosigner(), cosigner()];
  it.each([
    [`${a.xpub}`, `${a.xpub}`],
    [`${a.xpub}-[p2sh]`, `${a.xpub}-[p2sh]`],
    [`${a.xpub}-[legacy]`, `${a.xpub}-[legacy]`],
    [`${a.xpub}-[taproot]`, `${a.xpub}-[taproot]`],
    [`2-of-${a.xpub}-${b.xpub}-${c.xpub}`, `2-of-${a.xpub}-${b.xpub}-${c.xpub}`],
    [`2-of-${a.xpub}-${b.xpub}-[p2sh]`, `2-of-${a.xpub}-${b.xpub}-[p2sh]`],
    [`1-of-${a.xpub}-${b.xpub}-[legacy]-[keeporder]`, `1-of-${a.xpub}-${b.xpub}-[legacy]-[keeporder]`],
  ])('%s reads back as itself', (scheme, shown) => {
    const key = keyOf({ derivationScheme: scheme }, 'regtest');
    expect(derivationSchemeText(key)).toBe(shown);
    // And the text shown derives the same wallet.
    expect(keyOf({ derivationScheme: shown }, 'regtest').receive(7).address).toBe(key.receive(7).address);
  });

  it('a descriptor with origins and /0/* steps shows its account keys; the same addresses derive from the scheme', () => {
    const key = keyOf({ descriptor: `sh(wsh(multi(2,${a.withOrigin}/0/*,${b.withOrigin}/0/*)))` }, 'regtest');
    const shown = derivationSchemeText(key);
    expect(shown).toBe(`2-of-${a.xpub}-${b.xpub}-[p2sh]-[keeporder]`);
    expect(keyOf({ derivationScheme: shown }, 'regtest').change(3).address).toBe(key.change(3).address);
  });
});
