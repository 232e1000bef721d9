/**
 * The BTCPay Server / NBXplorer derivation scheme of a wallet key, as BTCPay shows a store's on-chain payment method
 * (the inverse of derivation-scheme.ts): each account key in xpub/tpub form, the kind as an -[option], the
 * threshold as `m-of-`, and -[keeporder] for `multi`. Every wallet key derives 0/i and 1/i below its account keys,
 * so every wallet has one.
 */
import type { OutputKind } from '../output-kinds.ts';

const SUFFIX: Record<OutputKind, string> = {
  p2wpkh: '',
  'p2sh-p2wpkh': '-[p2sh]',
  p2pkh: '-[legacy]',
  p2tr: '-[taproot]',
  'p2wsh-multisig': '',
  'p2sh-p2wsh-multisig': '-[p2sh]',
  'p2sh-multisig': '-[legacy]',
};

/** `xpub…`, `xpub…-[p2sh]`, `2-of-xpub1-xpub2-xpub3-[keeporder]` … for the key's kind and cosigners. */
export function derivationSchemeText(key: {
  readonly kind: OutputKind;
  readonly threshold: number;
  readonly sorted: boolean;
  readonly origins: readonly { readonly xpub: string }[];
}): string {
  const keys = key.origins.map((o) => o.xpub);
  const multisig = key.kind.endsWith('-multisig');
  const body = multisig ? `${key.threshold}-of-${keys.join('-')}` : keys[0]!;
  return `${body}${SUFFIX[key.kind]}${multisig && !key.sorted ? '-[keeporder]' : ''}`;
}
