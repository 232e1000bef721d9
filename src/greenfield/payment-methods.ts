// The store's on-chain payment method on both of BTCPay's path generations: 2.x `…/payment-methods/BTC-CHAIN`
// (GenericPaymentMethodData) and 1.x `…/payment-methods/OnChain[/BTC]` (OnChainPaymentMethodData), its address
// preview, and PUT, which satgate can only answer for the scheme the store already has: a store is one wallet,
// bound to its key (its API ID, its addresses, its payments), so a new scheme is a new wallet (add_pub).
import type { Selectable } from 'kysely';
import type { WalletsTable } from '../db/schema.ts';
import { isJsonObject, type JsonValue } from '../money/exact-json.ts';
import { walletKeyOf } from '../bitcoin/wallet-key.ts';
import type { Network } from '../bitcoin/networks.ts';
import { ONCHAIN } from './invoice-request.ts';
import { onchainConfig } from './stores.ts';
import { GreenfieldError, GreenfieldValidationError } from './errors.ts';

type WalletRow = Selectable<WalletsTable>;

/** Which generation a path segment names: 2.x `BTC-CHAIN` (also `BTC`), 1.x `OnChain` (case-insensitive as BTCPay). */
export function methodGeneration(segment: string): '2.x' | '1.x' | null {
  const s = segment.toUpperCase();
  if (s === ONCHAIN || s === 'BTC') return '2.x';
  if (s === 'ONCHAIN') return '1.x';
  return null;
}

/** 404 for a payment method the store does not have. */
export const paymentMethodNotFound = () => new GreenfieldError(404, 'paymentmethod-not-found', 'The store has no such payment method (it has BTC-CHAIN, 1.x OnChain/BTC).');

/** Checks a 1.x crypto code segment. */
export function checkCryptoCode(code: string): void {
  if (code.toUpperCase() !== 'BTC') throw paymentMethodNotFound();
}

/** 2.x GenericPaymentMethodData. */
export function genericMethodJson(wallet: WalletRow, includeConfig: boolean): Record<string, unknown> {
  return { paymentMethodId: ONCHAIN, enabled: true, ...(includeConfig ? { config: onchainConfig(wallet) } : {}) };
}

/** 1.x OnChainPaymentMethodData. */
export function onChainMethodJson(wallet: WalletRow): Record<string, unknown> {
  const config = onchainConfig(wallet);
  return {
    enabled: true,
    cryptoCode: 'BTC',
    paymentMethod: 'BTC',
    derivationScheme: config.derivationScheme ?? null,
    label: config.label ?? wallet.account_name ?? '',
    accountKeyPath: config.accountKeyPath ?? null,
  };
}

/** The preview's paging: offset (default 0) and count/amount (default 10, at most 1000). */
export function previewJson(wallet: WalletRow, offset: number, count: number): Record<string, unknown> {
  if (count > 1000) throw new GreenfieldValidationError([{ path: 'count', message: 'must be at most 1000' }]);
  const key = walletKeyOf(wallet, wallet.network as Network);
  const addresses = [];
  for (let i = offset; i < offset + count; i++) addresses.push({ keyPath: `0/${i}`, address: key.receive(i).address });
  return { addresses };
}

/**
 * PUT: the same scheme (or none) with enabled true is answered as it is; anything else is 422, because a store's
 * scheme is the wallet it is.
 */
export function checkPut(wallet: WalletRow, body: JsonValue | undefined, generation: '1.x' | '2.x'): void {
  if (!isJsonObject(body)) throw new GreenfieldValidationError([{ path: '', message: 'must be a JSON object' }]);
  if (body.enabled === false) throw new GreenfieldValidationError([{ path: 'enabled', message: 'on-chain bitcoin is the only payment method of a satgate store and cannot be disabled' }]);
  const config = generation === '2.x' ? body.config : body;
  const asked = isJsonObject(config) ? (config.derivationScheme ?? config.accountDerivation) : typeof config === 'string' ? config : undefined;
  if (asked === undefined || asked === null) return;
  const current = onchainConfig(wallet).derivationScheme;
  if (asked !== current) {
    const path = generation === '2.x' ? 'config' : 'derivationScheme';
    throw new GreenfieldValidationError([
      { path, message: 'a satgate store is bound to its wallet key and cannot change its derivation scheme; register the new key as a new store (POST /add_pub) instead' },
    ]);
  }
}
