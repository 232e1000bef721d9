/** Output script types for addresses derived from a merchant key, and the interface's wallet types. */
export type ScriptType = 'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh';

/** The interface's `wallet_type` integers: 1 legacy, 2 p2sh-segwit, 3 native segwit. */
export type WalletTypeCode = 1 | 2 | 3;

/** The interface's wallet type names (INTERFACE.md 1 and 2.1). */
export type WalletTypeName = 'legacy' | 'p2sh-segwit' | 'native segwit';

/** Every script type, in `wallet_type` order. */
export const SCRIPT_TYPES: readonly ScriptType[] = ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh'];

const BY_CODE: Record<WalletTypeCode, ScriptType> = { 1: 'p2pkh', 2: 'p2sh-p2wpkh', 3: 'p2wpkh' };
const CODE: Record<ScriptType, WalletTypeCode> = { p2pkh: 1, 'p2sh-p2wpkh': 2, p2wpkh: 3 };
const NAME: Record<ScriptType, WalletTypeName> = {
  p2pkh: 'legacy',
  'p2sh-p2wpkh': 'p2sh-segwit',
  p2wpkh: 'native segwit',
};

/** Script type for an `add_pub` `wallet_type` value, or undefined when it is not 1, 2 or 3. */
export function scriptTypeForWalletType(code: unknown): ScriptType | undefined {
  if (code === 1 || code === 2 || code === 3) return BY_CODE[code];
  return undefined;
}

/** The `wallet_type` integer of a script type. */
export function walletTypeCode(scriptType: ScriptType): WalletTypeCode {
  return CODE[scriptType];
}

/** The interface's wallet type name of a script type ('legacy', 'p2sh-segwit', 'native segwit'). */
export function walletTypeName(scriptType: ScriptType): WalletTypeName {
  return NAME[scriptType];
}

/** Script type for an interface wallet type name, or undefined for an unknown name. */
export function scriptTypeForWalletTypeName(name: string): ScriptType | undefined {
  const found = SCRIPT_TYPES.find((t) => NAME[t] === name);
  return found;
}
