// Greenfield stores and server info. A store is one satgate wallet; its id is the wallet's API ID (decisions.md).
// Written from BTCPay's StoreData and ServerInfo as the PHP client reads them (every string it reads is a
// string, never null).
import type { Selectable } from 'kysely';
import type { WalletsTable } from '../db/schema.ts';
import { VERSION } from '../core/version.ts';
import { ONCHAIN, DEFAULT_EXPIRATION_MINUTES } from './invoice-request.ts';
import { speedPolicyOf } from './invoices.ts';

/**
 * The Greenfield API level satgate answers like: BTCPay Server 2.0's (payment method ids like BTC-CHAIN, lists
 * not maps). Plugins gate features on it (the WooCommerce plugin offers refunds from 1.7.6).
 */
export const GREENFIELD_API_VERSION = '2.0.0';

/** The Greenfield store of a wallet. */
export function storeJson(wallet: Selectable<WalletsTable>, monitorWindowMs: number): Record<string, unknown> {
  return {
    id: wallet.api_id,
    name: wallet.account_name ?? wallet.api_id,
    website: '',
    defaultCurrency: wallet.local_currency.toUpperCase(),
    invoiceExpiration: DEFAULT_EXPIRATION_MINUTES * 60,
    monitoringExpiration: Math.floor(monitorWindowMs / 1000),
    speedPolicy: speedPolicyOf(Number(wallet.required_confirmations)),
    paymentTolerance: 0,
    defaultPaymentMethod: ONCHAIN,
    defaultLang: 'en',
    anyoneCanCreateInvoice: false,
    requiresRefundEmail: false,
    checkoutType: 'V2',
    lightningAmountInSatoshi: false,
    lightningPrivateRouteHints: false,
    onChainWithLnInvoiceFallback: false,
    lazyPaymentMethods: false,
    redirectAutomatically: false,
    showRecommendedFee: true,
    recommendedFeeBlockTarget: 1,
    networkFeeMode: 'Never',
    payJoinEnabled: false,
    archived: false,
    receipt: { enabled: true, showQR: null, showPayments: null },
  };
}

/** The store's payment methods: on-chain bitcoin only, in BTCPay 2's list shape with 1.x's names beside. */
export function storePaymentMethodsJson(): Record<string, unknown>[] {
  return [{ paymentMethodId: ONCHAIN, paymentMethod: ONCHAIN, cryptoCode: 'BTC', enabled: true, config: {} }];
}

/** GET /api/v1/server/info for a key's store, from its chain's sync state. */
export function serverInfoJson(sync: { synched: boolean; height: number | null }): Record<string, unknown> {
  const synched = sync.synched;
  return {
    version: GREENFIELD_API_VERSION,
    satgateVersion: VERSION,
    onion: '',
    supportedPaymentMethods: [ONCHAIN],
    fullySynched: synched,
    syncStatus: [
      {
        paymentMethodId: ONCHAIN,
        cryptoCode: 'BTC',
        chainHeight: sync.height ?? 0,
        syncHeight: synched ? sync.height : null,
        available: synched,
      },
    ],
  };
}
