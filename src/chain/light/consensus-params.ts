// The header rules and checkpoints light mode checks per network. Each checkpoint is a block hash the
// code ships with: headers are only accepted on a chain that passes through it.
import type { Network } from '../../bitcoin/networks.ts';

export interface HeaderRules {
  /** Easiest target allowed, compact form. */
  powLimitBits: number;
  /** Retarget every 2016 blocks towards two weeks (false on regtest: the target never changes). */
  retarget: boolean;
  /** Testnet's rule: a block more than 20 minutes after its parent may use the easiest target. */
  minDifficultyBlocks: boolean;
  /** First header satgate keeps; the server must show exactly this hash at this height. */
  checkpoint: { height: number; hash: string; bits: number };
}

export const RETARGET_INTERVAL = 2016;
export const TARGET_TIMESPAN = 14 * 24 * 60 * 60;

const RULES: Record<Network, HeaderRules> = {
  // The fourth halving block; Bitcoin Core uses it as its assumeutxo base.
  mainnet: {
    powLimitBits: 0x1d00ffff,
    retarget: true,
    minDifficultyBlocks: false,
    checkpoint: { height: 840_000, hash: '0000000000000000000320283a032748cef8227873ff4872689bf23f1cda83a5', bits: 0x17034219 },
  },
  testnet4: {
    powLimitBits: 0x1d00ffff,
    retarget: true,
    minDifficultyBlocks: true,
    checkpoint: { height: 0, hash: '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043', bits: 0x1d00ffff },
  },
  signet: {
    powLimitBits: 0x1e0377ae,
    retarget: true,
    minDifficultyBlocks: false,
    checkpoint: { height: 0, hash: '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6', bits: 0x1e0377ae },
  },
  // Regtest from its genesis: the target is fixed at the easiest value, and it is still checked.
  regtest: {
    powLimitBits: 0x207fffff,
    retarget: false,
    minDifficultyBlocks: false,
    checkpoint: { height: 0, hash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206', bits: 0x207fffff },
  },
};

export function headerRules(network: Network): HeaderRules {
  return RULES[network];
}
