// The rate provider names the configuration accepts. Kept here, not in rates/providers/registry.ts, so that
// reading the configuration does not load every provider (config sits below rates).

/** Names accepted in SATGATE_RATE_PROVIDERS. */
export const PROVIDER_NAMES = ['coingecko', 'kraken', 'bitstamp', 'coinbase', 'frankfurter', 'file'] as const;
/** One accepted provider name. */
export type ProviderName = (typeof PROVIDER_NAMES)[number];
