// Greenfield stores and server info. A store is one satgate wallet; its id is the wallet's API ID (decisions.md).
// Written from BTCPay's StoreData and ServerInfo as the PHP client reads them (every string it reads is a
// string, never null).
import type { Selectable } from 'kysely';
import type { WalletsTable } from '../db/schema.ts';
import { VERSION } from '../core/version.ts';
import { ONCHAIN, DEFAULT_EXPIRATION_MINUTES } from './invoice-request.ts';
import { speedPolicyOf } from './invoices.ts';
import { walletKeyOf } from '../bitcoin/wallet-key.ts';
import { formatKeyOrigin } from '../bitcoin/key-origin.ts';
import { derivationSchemeText } from '../bitcoin/descriptors/scheme-text.ts';
import type { Network } from '../bitcoin/networks.ts';

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
    defaultLang: wallet.default_language ?? 'en',
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
    // The PHP client types these as strings (a null would be a TypeError there), so empty rather than null.
    lightningDescriptionTemplate: '',
    customLogo: '',
    customCSS: '',
    htmlTitle: '',
    payJoinEnabled: false,
    archived: false,
    receipt: { enabled: true, showQR: null, showPayments: null },
  };
}

/**
 * The store's payment methods: on-chain bitcoin only, in BTCPay 2's list shape with 1.x's names beside. Its config
 * is the wallet as BTCPay shows it: the derivation scheme (1.x `derivationScheme`, 2.x `accountDerivation`), and
 * each account key with its master fingerprint and path (`accountKeySettings`; 1.x `accountKeyPath` for one key).
 * A service-held wallet's key is not shown.
 */
export function storePaymentMethodsJson(wallet: Selectable<WalletsTable>): Record<string, unknown>[] {
  return [{ paymentMethodId: ONCHAIN, paymentMethod: ONCHAIN, cryptoCode: 'BTC', enabled: true, config: onchainConfig(wallet) }];
}

export function onchainConfig(wallet: Selectable<WalletsTable>): Record<string, unknown> {
  if (wallet.seed_sealed !== null) return {};
  const key = walletKeyOf(wallet, wallet.network as Network);
  const scheme = derivationSchemeText(key);
  const settings = key.origins.map((o) => ({
    rootFingerprint: o.fingerprint.toString(16).padStart(8, '0'),
    accountKeyPath: keyPathText(o.fingerprint, o.path),
    accountKey: o.xpub,
  }));
  return {
    derivationScheme: scheme,
    accountDerivation: scheme,
    ...(settings.length === 1 ? { accountKeyPath: settings[0]!.accountKeyPath } : {}),
    accountKeySettings: settings,
    label: wallet.account_name ?? '',
  };
}

/** BTCPay's `fingerprint/84'/0'/0'` (the descriptor origin without brackets, ' for hardened). */
function keyPathText(fingerprint: number, path: readonly number[]): string {
  return formatKeyOrigin({ fingerprint, path: [...path] }).slice(1, -1).replaceAll('h', "'");
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
        // satgate reads a node (or a light server) it does not run: it has no node details of its own to give.
        nodeInformation: null,
        chainHeight: sync.height ?? 0,
        syncHeight: synched ? sync.height : null,
        available: synched,
      },
    ],
  };
}
