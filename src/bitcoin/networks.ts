/** Bitcoin networks satgate runs on and their address parameters. */
export type Network = 'mainnet' | 'testnet4' | 'signet' | 'regtest';

/** Address-encoding parameters of one network. */
export interface NetworkParams {
  readonly name: Network;
  /** Base58check version byte of P2PKH addresses. */
  readonly pubKeyHash: number;
  /** Base58check version byte of P2SH addresses. */
  readonly scriptHash: number;
  /** Human-readable part of segwit (bech32/bech32m) addresses. */
  readonly bech32: string;
}

/** Every supported network, mainnet first. */
export const NETWORKS: readonly Network[] = ['mainnet', 'testnet4', 'signet', 'regtest'];

const PARAMS: Record<Network, NetworkParams> = {
  mainnet: { name: 'mainnet', pubKeyHash: 0x00, scriptHash: 0x05, bech32: 'bc' },
  testnet4: { name: 'testnet4', pubKeyHash: 0x6f, scriptHash: 0xc4, bech32: 'tb' },
  signet: { name: 'signet', pubKeyHash: 0x6f, scriptHash: 0xc4, bech32: 'tb' },
  // Bitcoin Core's regtest: testnet base58 versions, its own bech32 prefix.
  regtest: { name: 'regtest', pubKeyHash: 0x6f, scriptHash: 0xc4, bech32: 'bcrt' },
};

/** Address parameters of a network. */
export function networkParams(network: Network): NetworkParams {
  return PARAMS[network];
}

/** True for the test networks (sandbox mode, `testBTC`), false for mainnet. */
export function isTestNetwork(network: Network): boolean {
  return network !== 'mainnet';
}

/** Type guard for a network name read from configuration. */
export function isNetwork(value: unknown): value is Network {
  return typeof value === 'string' && (NETWORKS as readonly string[]).includes(value);
}
