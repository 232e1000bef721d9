// The dashboard's wallets view: each of a profile's wallets with its settings and balance (BTC and the local
// currency at the current rate), adding a wallet by key under DESIGN.md section 9's proof rule, and editing a
// wallet's name, local currency, notification e-mail and webhook URL through add_pub's own validation (the owner's
// path: add_pub itself cannot change the webhook URL, and flags a name it changed until the owner saves it).
import type { Db } from '../db/database.ts';
import { DomainError } from '../core/domain-errors.ts';
import { parseExtendedPublicKey, InvalidExtendedKeyError } from '../bitcoin/extended-key.ts';
import { btcFromSats, satsToFiat } from '../money/money.ts';
import type { Rates } from '../rates/rates-port.ts';
import { changeOwnedWallet, registerWallet, type RegistrationDeps } from '../wallets/wallet-registration.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';
import { accountOf, associate, associateByEmail, profileWalletByApiId, profileWallets, type Account } from './accounts.ts';
import { recordAudit } from '../security/audit.ts';
import { looksLikePrivateKey } from './secret-text.ts';
import { walletTypeNameOf } from '../wallets/wallet-kinds.ts';
import { walletKeyOf } from '../bitcoin/wallet-key.ts';
import { formatKeyOrigin } from '../bitcoin/key-origin.ts';
import type { Network } from '../bitcoin/networks.ts';
import { LANGUAGES, supportedLanguage } from '../i18n/languages.ts';

/** A wallet as the dashboard shows it. */
export interface WalletOverview extends Account {
  mode: 'live' | 'test';
  network: string;
  /** "legacy", "p2sh-segwit", "native segwit", "p2tr" or e.g. "p2wsh multisig 2-of-3" (wallets/wallet-kinds.ts). */
  wallet_type: string;
  /** Multisig wallets only: each cosigner's key origin, `[fingerprint/path]`, in the descriptor's order. */
  cosigners?: string[];
  notification_email: string | null;
  webhook_url: string | null;
  /** The language payer pages and e-mails use when the payer chose none (`?lang=`, picker) and before the browser's; null: none. */
  default_language: string | null;
  /**
   * Set when the name payers see was changed through add_pub, which needs no sign-in: when, and the name you last
   * saw. Check it; saving the name (changed or not) clears this. Null when there is nothing to check.
   */
  account_name_check: { changed_at: string; previous: string | null } | null;
  required_confirmations: number;
  balance: {
    confirmed: string;
    unconfirmed: string;
    /** Local currency values at `rate`; null when no current rate is available. */
    confirmed_local: string | null;
    unconfirmed_local: string | null;
    rate: string | null;
  };
}

/** What the wallet operations need. */
export interface MerchantWalletDeps {
  db: Db;
  clock: () => number;
  rates: Pick<Rates, 'spot'>;
  registration: RegistrationDeps;
}

/** Confirmed and unconfirmed balance of a wallet: what its addresses received minus what was spent from them. */
async function balanceSats(db: Db, walletId: bigint): Promise<{ confirmed: bigint; unconfirmed: bigint }> {
  const credits = await db.kysely
    .selectFrom('chain_outputs as o')
    .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
    .innerJoin('addresses as a', 'a.id', 'o.address_id')
    .select(['t.state', 'o.value_sats'])
    .where('a.wallet_id', '=', walletId)
    .where('t.state', '!=', 'withdrawn')
    .execute();
  const debits = await db.kysely
    .selectFrom('chain_spends as s')
    .innerJoin('chain_txs as t', 't.id', 's.tx_id')
    .innerJoin('chain_outputs as o', 'o.id', 's.output_id')
    .innerJoin('addresses as a', 'a.id', 'o.address_id')
    .select(['t.state', 'o.value_sats'])
    .where('a.wallet_id', '=', walletId)
    .where('t.state', '!=', 'withdrawn')
    .execute();
  let confirmed = 0n;
  let unconfirmed = 0n;
  for (const c of credits) c.state === 'block' ? (confirmed += c.value_sats) : (unconfirmed += c.value_sats);
  for (const d of debits) d.state === 'block' ? (confirmed -= d.value_sats) : (unconfirmed -= d.value_sats);
  return { confirmed, unconfirmed };
}

function signedFiat(sats: bigint, rate: string, currency: string): string {
  return sats < 0n ? `-${satsToFiat(-sats, rate, currency)}` : satsToFiat(sats, rate, currency);
}

function signedBtc(sats: bigint): string {
  return sats < 0n ? `-${btcFromSats(-sats)}` : btcFromSats(sats);
}

function cosignersOf(w: WalletRow): { cosigners?: string[] } {
  if (!w.descriptor) return {};
  const key = walletKeyOf(w, w.network as Network);
  return key.origins.length > 1 ? { cosigners: key.origins.map((o) => formatKeyOrigin({ fingerprint: o.fingerprint, path: [...o.path] })) } : {};
}

async function overview(deps: MerchantWalletDeps, w: WalletRow): Promise<WalletOverview> {
  const { confirmed, unconfirmed } = await balanceSats(deps.db, w.id);
  let rate: string | null = null;
  try {
    rate = (await deps.rates.spot(w.local_currency.toUpperCase())).rate;
  } catch {
    // No current rate (stale or unsupported): the balance still shows in BTC.
  }
  const currency = w.local_currency.toUpperCase();
  return {
    ...accountOf(w),
    mode: w.mode,
    network: w.network,
    wallet_type: walletTypeNameOf(w),
    ...cosignersOf(w),
    notification_email: w.notification_email,
    webhook_url: w.return_url,
    default_language: w.default_language ?? null,
    account_name_check:
      w.account_name_unconfirmed_at == null ? null : { changed_at: new Date(Number(w.account_name_unconfirmed_at)).toISOString(), previous: w.account_name_previous ?? null },
    required_confirmations: Number(w.required_confirmations),
    balance: {
      confirmed: signedBtc(confirmed),
      unconfirmed: signedBtc(unconfirmed),
      confirmed_local: rate === null ? null : signedFiat(confirmed, rate, currency),
      unconfirmed_local: rate === null ? null : signedFiat(unconfirmed, rate, currency),
      rate,
    },
  };
}

/** The profile's wallets with balances, oldest association first. */
export async function walletOverviews(deps: MerchantWalletDeps, profileId: bigint): Promise<WalletOverview[]> {
  const wallets = await profileWallets(deps.db, profileId);
  return Promise.all(wallets.map((w) => overview(deps, w)));
}

/** One of the profile's wallets; 999 (404) for an unknown or someone else's. */
export async function walletOverview(deps: MerchantWalletDeps, profileId: bigint, apiId: string): Promise<WalletOverview> {
  const w = await profileWalletByApiId(deps.db, profileId, apiId);
  if (!w) throw new DomainError('not-found', 'No such wallet among yours');
  return overview(deps, w);
}

/** The fields of adding a wallet. */
export interface AddWalletInput {
  /** An extended public key, or `new_wallet` for a wallet the service generates and holds. */
  pub: string;
  /** With `new_wallet`: a sandbox (testBTC) wallet rather than a live one. */
  test?: boolean;
  local_currency?: string;
  account_name?: string;
}

/** What adding a wallet did: `added` (new to the profile), `updated` (already the profile's, settings saved), or `unchanged`. */
export interface AddedWallet {
  api_id: string;
  outcome: 'added' | 'updated' | 'unchanged';
  /** The settings given with a key that was already registered, now saved on it (a new key is registered with them). */
  saved: ('account_name' | 'local_currency')[];
}

/** The refusal of a key registered by someone else: says what was kept and why, never whose key it is. */
export const NOT_YOUR_KEY =
  'Nothing was changed: this key was registered with another notification e-mail, so it cannot be added to your profile, and its name and local currency stay as they were. If the wallet is yours, ask the operator to associate it (satgate wallet associate).';

/**
 * Adds a wallet to the profile. An unknown key is registered with the profile's (OTP-proven) e-mail as its
 * notification e-mail and associated; a key already registered is associated only when it was registered with
 * that e-mail (get_accounts' rule), else refused with a message that says nothing about whose key it is. A key that
 * is (or thereby becomes) the profile's takes the name and local currency given with it, as the owner's wallet edit
 * does (same checks, same `wallet_updated` audit record). `new_wallet` generates a service-held wallet for the profile.
 */
export async function addWallet(deps: MerchantWalletDeps, profile: { id: bigint; email: string }, input: AddWalletInput, ip: string | null): Promise<AddedWallet> {
  const settings = {
    notification_email: profile.email,
    ...(input.local_currency !== undefined && input.local_currency !== '' ? { local_currency: input.local_currency } : {}),
    ...(input.account_name !== undefined && input.account_name !== '' ? { account_name: input.account_name } : {}),
  };
  if (input.pub === 'new_wallet') {
    const added = await registerWallet(deps.registration, { pub: 'new_wallet', currency: input.test ? 'testBTC' : 'BTC', ...settings });
    const row = (await deps.registration.repo.findByApiId(added.api_id))!;
    const now = deps.clock();
    await deps.db.kysely.transaction().execute(async (trx) => {
      await associate(trx, profile.id, row.id, 'notification_email', now);
      await recordAudit(trx, { action: 'wallet_associated', profileId: profile.id, email: profile.email, ip, detail: { api_id: row.api_id, via: 'new_wallet' } }, now);
    });
    return { api_id: added.api_id, outcome: 'added', saved: [] };
  }
  const keyText = publicKeyText(input.pub);
  const existing = await deps.registration.repo.findByPub(keyText);
  if (!existing) {
    await registerWallet(deps.registration, { pub: keyText, ...settings });
    const { associated } = await associateByEmail(deps.db, profile, [keyText], ip, deps.clock());
    if (associated.length === 0) throw new DomainError('invalid', NOT_YOUR_KEY);
    return { api_id: associated[0]!, outcome: 'added', saved: [] };
  }
  const owned = (await profileWalletByApiId(deps.db, profile.id, existing.api_id)) !== undefined;
  if (!owned && (existing.registration_email === null || existing.registration_email !== profile.email)) {
    // Called for its audit record of the refusal (association_refused); it associates nothing here.
    await associateByEmail(deps.db, profile, [keyText], ip, deps.clock());
    throw new DomainError('invalid', NOT_YOUR_KEY);
  }
  // The settings first: a refused name or currency leaves the wallet unattached and unchanged.
  const changes = {
    ...(settings.account_name !== undefined ? { account_name: settings.account_name } : {}),
    ...(settings.local_currency !== undefined ? { local_currency: settings.local_currency } : {}),
  };
  const saved = Object.keys(changes) as AddedWallet['saved'];
  if (saved.length > 0) {
    await changeOwnedWallet(deps.registration, existing.id, changes);
    await recordAudit(deps.db.kysely, { action: 'wallet_updated', profileId: profile.id, email: profile.email, ip, detail: { api_id: existing.api_id, fields: saved } }, deps.clock());
  }
  if (!owned) {
    await associateByEmail(deps.db, profile, [keyText], ip, deps.clock());
    return { api_id: existing.api_id, outcome: 'added', saved };
  }
  return { api_id: existing.api_id, outcome: saved.length > 0 ? 'updated' : 'unchanged', saved };
}

/** The key as registered: a valid extended public key, given exactly as the wallet shows it. */
function publicKeyText(pub: string): string {
  if (looksLikePrivateKey(pub)) {
    throw new DomainError('invalid-key', 'Public key is not valid: this is a private key; register only the extended public key (xpub, ypub, zpub, tpub, upub or vpub), and keep the private key secret');
  }
  let keyText: string;
  try {
    keyText = parseExtendedPublicKey(pub).text;
  } catch (err) {
    if (err instanceof InvalidExtendedKeyError) throw new DomainError('invalid-key', `Public key is not valid: ${err.message}`);
    throw err;
  }
  if (keyText !== pub) throw new DomainError('invalid-key', 'Public key is not valid: give the key exactly as your wallet shows it');
  return keyText;
}

/** Settings a merchant may change; an empty string unsets the notification e-mail or webhook URL. */
export interface WalletSettings {
  account_name?: string;
  local_currency?: string;
  notification_email?: string;
  webhook_url?: string;
  /** A supported language tag (src/i18n/languages.ts); empty unsets it. */
  default_language?: string;
}

/** The stored value of a default language setting: null for empty, the table's tag, or a clear refusal. */
export function defaultLanguageSetting(value: string): string | null {
  if (value.trim() === '') return null;
  const tag = supportedLanguage(value);
  if (tag === null) {
    const shown = looksLikePrivateKey(value) ? 'given' : JSON.stringify(value.slice(0, 40));
    throw new DomainError('invalid', `Wrong or missing argument: default_language ${shown} is not a supported language; use one of ${LANGUAGES.map((l) => l.tag).join(', ')}, or empty for none`);
  }
  return tag;
}

/**
 * Changes one of the profile's wallets' settings with add_pub's checks (currency supported, e-mail valid, webhook URL
 * SSRF-checked). The owner's way to set or change the webhook URL (return_url), which add_pub no longer changes;
 * saving the name confirms it (clears the flag an unsigned add_pub change set).
 */
export async function updateWallet(deps: MerchantWalletDeps, profile: { id: bigint; email: string }, apiId: string, input: WalletSettings, ip: string | null): Promise<void> {
  const wallet = await profileWalletByApiId(deps.db, profile.id, apiId);
  if (!wallet) throw new DomainError('not-found', 'No such wallet among yours');
  // Checked before anything is saved: a refused language leaves every setting as it was.
  const language = input.default_language !== undefined ? defaultLanguageSetting(input.default_language) : undefined;
  await changeOwnedWallet(deps.registration, wallet.id, {
    ...(input.account_name !== undefined ? { account_name: input.account_name } : {}),
    ...(input.local_currency !== undefined ? { local_currency: input.local_currency } : {}),
    ...(input.notification_email !== undefined ? { notification_email: input.notification_email } : {}),
    ...(input.webhook_url !== undefined ? { return_url: input.webhook_url } : {}),
  });
  if (language !== undefined) await deps.db.kysely.updateTable('wallets').set({ default_language: language }).where('id', '=', wallet.id).execute();
  const fields = Object.entries(input).filter(([, v]) => v !== undefined).map(([k]) => k);
  await recordAudit(deps.db.kysely, { action: 'wallet_updated', profileId: profile.id, email: profile.email, ip, detail: { api_id: apiId, fields } }, deps.clock());
}
