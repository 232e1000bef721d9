// The dashboard's wallets view: each of a profile's wallets with its settings and balance (BTC and the local
// currency at the current rate), adding a wallet by key under DESIGN.md section 9's proof rule, and editing a
// wallet's name, local currency, notification e-mail and webhook URL through add_pub's own validation.
import type { Db } from '../db/database.ts';
import { WalletApiError } from '../core/errors.ts';
import { parseExtendedPublicKey, InvalidExtendedKeyError } from '../bitcoin/extended-key.ts';
import { btcFromSats, satsToFiat } from '../money/money.ts';
import type { Rates } from '../rates/rates-port.ts';
import { registerWallet, type RegistrationDeps } from '../wallets/wallet-registration.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';
import { accountOf, associate, associateByEmail, profileWalletByApiId, profileWallets, type Account } from './accounts.ts';
import { recordAudit } from './audit.ts';

/** A wallet as the dashboard shows it. */
export interface WalletOverview extends Account {
  mode: 'live' | 'test';
  network: string;
  wallet_type: 'legacy' | 'p2sh-segwit' | 'native segwit';
  notification_email: string | null;
  webhook_url: string | null;
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

const TYPE_NAMES: Record<string, WalletOverview['wallet_type']> = { p2pkh: 'legacy', 'p2sh-p2wpkh': 'p2sh-segwit', p2wpkh: 'native segwit' };

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
    wallet_type: TYPE_NAMES[w.script_type] ?? 'legacy',
    notification_email: w.notification_email,
    webhook_url: w.return_url,
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
  if (!w) throw new WalletApiError('999', 'No such wallet among yours');
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

/**
 * Adds a wallet to the profile. An unknown key is registered with the profile's (OTP-proven) e-mail as its
 * notification e-mail and associated; a key already registered is associated only when it was registered with
 * that e-mail (get_accounts' rule), else refused with a message that says nothing about whose key it is.
 * `new_wallet` generates a service-held wallet for the profile. Returns the API ID.
 */
export async function addWallet(deps: MerchantWalletDeps, profile: { id: bigint; email: string }, input: AddWalletInput, ip: string | null): Promise<string> {
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
    return added.api_id;
  }
  let keyText: string;
  try {
    keyText = parseExtendedPublicKey(input.pub).text;
  } catch (err) {
    if (err instanceof InvalidExtendedKeyError) throw new WalletApiError('102', `Public key is not valid: ${err.message}`);
    throw err;
  }
  if (keyText !== input.pub) throw new WalletApiError('102', 'Public key is not valid: give the key exactly as your wallet shows it');
  // Only a key nobody registered yet is registered here: add_pub on an existing key would change its owner's settings.
  if (!(await deps.registration.repo.findByPub(keyText))) await registerWallet(deps.registration, { pub: keyText, ...settings });
  const { associated } = await associateByEmail(deps.db, profile, [keyText], ip, deps.clock());
  if (associated.length === 0) {
    throw new WalletApiError(
      '201',
      'This key cannot be added to your profile: it was registered with another notification e-mail. Ask the operator to associate it (satgate wallet associate).',
    );
  }
  return associated[0]!;
}

/** Settings a merchant may change; an empty string unsets the notification e-mail or webhook URL. */
export interface WalletSettings {
  account_name?: string;
  local_currency?: string;
  notification_email?: string;
  webhook_url?: string;
}

/** Changes one of the profile's wallets' settings with add_pub's rules (currency supported, e-mail valid, webhook URL SSRF-checked). */
export async function updateWallet(deps: MerchantWalletDeps, profile: { id: bigint; email: string }, apiId: string, input: WalletSettings, ip: string | null): Promise<void> {
  const wallet = await profileWalletByApiId(deps.db, profile.id, apiId);
  if (!wallet) throw new WalletApiError('999', 'No such wallet among yours');
  const set = (v: string | undefined) => v !== undefined && v !== '';
  await registerWallet(deps.registration, {
    pub: wallet.pub,
    ...(set(input.account_name) ? { account_name: input.account_name! } : {}),
    ...(set(input.local_currency) ? { local_currency: input.local_currency! } : {}),
    ...(set(input.notification_email) ? { notification_email: input.notification_email! } : {}),
    ...(set(input.webhook_url) ? { return_url: input.webhook_url! } : {}),
  });
  const unset: { account_name?: null; notification_email?: null; return_url?: null } = {};
  if (input.account_name === '') unset.account_name = null;
  if (input.notification_email === '') unset.notification_email = null;
  if (input.webhook_url === '') unset.return_url = null;
  if (Object.keys(unset).length > 0) await deps.registration.repo.update(wallet.id, { ...unset, updated_at: BigInt(deps.clock()) });
  const fields = Object.entries(input).filter(([, v]) => v !== undefined).map(([k]) => k);
  await recordAudit(deps.db.kysely, { action: 'wallet_updated', profileId: profile.id, email: profile.email, ip, detail: { api_id: apiId, fields } }, deps.clock());
}
