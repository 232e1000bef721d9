import { describe, it, expect } from 'vitest';
import { scriptTypeForWalletType, scriptTypeForWalletTypeName, walletTypeCode, walletTypeName, SCRIPT_TYPES } from './script-type.ts';

describe('wallet types', () => {
  it('wallet_type 1, 2, 3 map to legacy, p2sh-segwit and native segwit', () => {
    expect(scriptTypeForWalletType(1)).toBe('p2pkh');
    expect(scriptTypeForWalletType(2)).toBe('p2sh-p2wpkh');
    expect(scriptTypeForWalletType(3)).toBe('p2wpkh');
    expect(SCRIPT_TYPES.map(walletTypeName)).toEqual(['legacy', 'p2sh-segwit', 'native segwit']);
  });

  it('any other wallet_type value is not a script type', () => {
    for (const v of [0, 4, -1, 1.5, '1', null, undefined]) expect(scriptTypeForWalletType(v)).toBeUndefined();
  });

  it('codes and names round-trip', () => {
    for (const t of SCRIPT_TYPES) {
      expect(scriptTypeForWalletType(walletTypeCode(t))).toBe(t);
      expect(scriptTypeForWalletTypeName(walletTypeName(t))).toBe(t);
    }
    expect(scriptTypeForWalletTypeName('segwit')).toBeUndefined();
  });
});
