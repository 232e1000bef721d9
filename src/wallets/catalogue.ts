import { readFileSync } from 'node:fs';

/** A wallet in the catalogue (INTERFACE.md 2.1). */
export interface CatalogueWallet {
  type: string;
  name: string;
  description: string;
  url: string;
}

/** The supported wallets, read once from catalogue.json beside this file. */
export const WALLET_CATALOGUE: readonly CatalogueWallet[] = (
  JSON.parse(readFileSync(new URL('./catalogue.json', import.meta.url), 'utf8')) as { wallets: CatalogueWallet[] }
).wallets;
