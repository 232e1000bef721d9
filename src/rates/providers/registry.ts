// Builds the configured providers from SATGATE_RATE_PROVIDERS / SATGATE_RATES_FILE.
import { BitstampProvider } from './bitstamp.ts';
import { CoinbaseProvider } from './coinbase.ts';
import { CoinGeckoProvider } from './coingecko.ts';
import { FrankfurterSource } from './frankfurter.ts';
import { KrakenProvider } from './kraken.ts';
import { FileRateProvider } from './rates-file.ts';
import type { FiatRateSource, RateProvider } from './types.ts';

import { PROVIDER_NAMES, type ProviderName } from '../../config/rate-provider-names.ts';

export { PROVIDER_NAMES, type ProviderName };
/** Providers used when none are configured and there is no rates file. */
export const DEFAULT_PROVIDER_NAMES: readonly ProviderName[] = ['coingecko', 'kraken', 'bitstamp', 'coinbase', 'frankfurter'];

/** What {@link createRateSources} needs. */
export interface RateSourcesConfig {
  /** Lowercase names; null means the defaults, or only the file when `ratesFile` is set. */
  names?: readonly string[] | null;
  ratesFile?: string | null;
  timeoutMs?: number;
  /** Base URL per provider name, e.g. a local replay server in tests. */
  baseUrls?: Partial<Record<ProviderName, string>>;
}

/** The BTC price providers and the optional fiat cross-rate source. */
export interface RateSources {
  providers: RateProvider[];
  fiat: FiatRateSource | null;
}

/** Builds providers by name; throws an Error naming any unknown name or a missing rates file. */
export function createRateSources(config: RateSourcesConfig = {}): RateSources {
  const names = config.names ?? (config.ratesFile ? ['file'] : DEFAULT_PROVIDER_NAMES);
  const unknown = names.filter((n) => !(PROVIDER_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new Error(`unknown rate provider(s) ${unknown.join(', ')}; known: ${PROVIDER_NAMES.join(', ')}`);
  }
  const common = (name: ProviderName) => ({
    ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
    ...(config.baseUrls?.[name] !== undefined ? { baseUrl: config.baseUrls[name] } : {}),
  });
  const providers: RateProvider[] = [];
  let fiat: FiatRateSource | null = null;
  for (const name of new Set(names) as Set<ProviderName>) {
    switch (name) {
      case 'coingecko': providers.push(new CoinGeckoProvider(common(name))); break;
      case 'kraken': providers.push(new KrakenProvider(common(name))); break;
      case 'bitstamp': providers.push(new BitstampProvider(common(name))); break;
      case 'coinbase': providers.push(new CoinbaseProvider(common(name))); break;
      case 'frankfurter': fiat = new FrankfurterSource(common(name)); break;
      case 'file':
        if (!config.ratesFile) throw new Error('rate provider "file" needs SATGATE_RATES_FILE');
        providers.push(new FileRateProvider(config.ratesFile));
        break;
    }
  }
  return { providers, fiat };
}
