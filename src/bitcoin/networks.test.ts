import { describe, it, expect } from 'vitest';
import { NETWORKS, isNetwork, isTestNetwork, networkParams } from './networks.ts';

describe('networks', () => {
  it('only mainnet is live; testnet4, signet and regtest are test networks', () => {
    expect(NETWORKS.filter(isTestNetwork)).toEqual(['testnet4', 'signet', 'regtest']);
    expect(isTestNetwork('mainnet')).toBe(false);
  });

  it('address parameters follow Bitcoin Core (regtest uses bcrt and testnet base58 versions)', () => {
    expect(NETWORKS.map((n) => networkParams(n).bech32)).toEqual(['bc', 'tb', 'tb', 'bcrt']);
    expect(networkParams('mainnet')).toMatchObject({ pubKeyHash: 0x00, scriptHash: 0x05 });
    for (const n of ['testnet4', 'signet', 'regtest'] as const) {
      expect(networkParams(n)).toMatchObject({ pubKeyHash: 0x6f, scriptHash: 0xc4 });
    }
  });

  it('network names from configuration are checked', () => {
    expect(isNetwork('signet')).toBe(true);
    expect(isNetwork('testnet')).toBe(false);
    expect(isNetwork(3)).toBe(false);
  });
});
