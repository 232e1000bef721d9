// The interface's values for every wallet kind: `wallet_type` numbers and the wallet `type` names. The single-key
// kinds keep INTERFACE.md's 1, 2, 3 ("legacy", "p2sh-segwit", "native segwit") when registered as one extended
// key; the kinds issue 32 added get 4 (taproot), 5 (multisig) and 6 (a single-key descriptor or derivation scheme).
import { walletKeyOf, type WalletKey, type WalletKeyRow } from '../bitcoin/wallet-key.ts';
import { OUTPUT_KINDS } from '../bitcoin/output-kinds.ts';
import type { Network } from '../bitcoin/networks.ts';
import { walletTypeName, type ScriptType } from '../bitcoin/script-type.ts';

/** `wallet_type` of a taproot (BIP86 key path) wallet. */
export const WALLET_TYPE_TAPROOT = 4;
/** `wallet_type` of a multisig wallet (P2WSH, P2SH-P2WSH or P2SH). */
export const WALLET_TYPE_MULTISIG = 5;
/** `wallet_type` of a single-key wallet registered as a descriptor or derivation scheme (pkh, sh(wpkh), wpkh). */
export const WALLET_TYPE_DESCRIPTOR = 6;

/** The `wallet_type` of a wallet registered as a descriptor, scheme or cosigner list. */
export function walletKindCode(key: WalletKey): number {
  const family = OUTPUT_KINDS[key.kind].family;
  return family === 'taproot' ? WALLET_TYPE_TAPROOT : family === 'multisig' ? WALLET_TYPE_MULTISIG : WALLET_TYPE_DESCRIPTOR;
}

/** The codes, said for an error message. */
export function walletKindCodes(): string {
  return `${WALLET_TYPE_TAPROOT} is taproot, ${WALLET_TYPE_MULTISIG} multisig, ${WALLET_TYPE_DESCRIPTOR} a single-key descriptor`;
}

const MULTISIG_NAMES: Record<string, string> = { 'p2wsh-multisig': 'p2wsh', 'p2sh-p2wsh-multisig': 'p2sh-p2wsh', 'p2sh-multisig': 'p2sh' };

/**
 * The wallet's `type` name: "legacy", "p2sh-segwit" or "native segwit" for the single-key kinds (however
 * registered), "p2tr" for taproot, "p2wsh multisig 2-of-3" (or p2sh-p2wsh, p2sh) for multisig.
 */
export function walletKindName(key: Pick<WalletKey, 'kind' | 'threshold' | 'origins'>): string {
  if (key.kind === 'p2tr') return 'p2tr';
  const multisig = MULTISIG_NAMES[key.kind];
  if (multisig) return `${multisig} multisig ${key.threshold}-of-${key.origins.length}`;
  return walletTypeName(key.kind as ScriptType);
}

/** The `type` name of a stored wallet. */
export function walletTypeNameOf(row: WalletKeyRow & { network: string }): string {
  if (!row.descriptor) return walletTypeName(row.script_type as ScriptType);
  return walletKindName(walletKeyOf(row, row.network as Network));
}
