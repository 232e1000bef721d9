import { randomBytes } from 'node:crypto';
import { parseExtendedPublicKey, InvalidExtendedKeyError, type ExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { generateNewWallet, generateTaprootWallet } from '../bitcoin/new-wallet.ts';
import { scriptTypeForWalletType, walletTypeCode, walletTypeName, type ScriptType } from '../bitcoin/script-type.ts';
import type { Network } from '../bitcoin/networks.ts';
import { DescriptorError } from '../bitcoin/descriptors/errors.ts';
import { keyOf, parseWalletText, type WalletKey } from '../bitcoin/wallet-key.ts';
import { walletKindCode, walletKindCodes } from './wallet-kinds.ts';
import { DomainError } from '../core/domain-errors.ts';
import type { Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import { generateWalletKeys } from './payload-box.ts';
import type { WalletRepository, WalletRow } from './wallet-repository.ts';
import { checkLocalCurrency, isEmail, isHttpUrl } from './field-rules.ts';
import { refusedWebhookTarget } from '../notify/webhook-target.ts';
import { enqueueNotifications } from '../notify/outbox.ts';
import { SETTINGS_CHANGED_EVENT, type SettingChange } from '../notify/settings-change-mail.ts';
import { recordAudit } from '../security/audit.ts';
import type { RateLimiter } from '../security/rate-limiter.ts';

/** The fields of POST /add_pub (INTERFACE.md 4.1), already schema-checked for type. */
export interface AddPubInput {
  pub: string;
  currency?: string;
  local_currency?: string;
  info?: string;
  wallet_type?: number;
  notification_email?: string;
  return_url?: string;
  account_name?: string;
  account_type?: string;
}

/** What add_pub answers. */
export interface AddPubResult {
  api_id: string;
  server_public_key: string;
  server_sign_public_key: string;
}

/** What registration needs from the rest of the service. */
export interface RegistrationDeps {
  repo: WalletRepository;
  masterKey: MasterKey;
  clock: Clock;
  /** The test network sandbox keys' addresses live on. */
  testNetwork: Network;
  /** True when a local currency code (uppercase) has a rate. */
  isSupportedCurrency(code: string): boolean;
  /** SATGATE_ALLOW_PRIVATE_WEBHOOKS: loopback and private return_url targets are allowed (development, LAN shops). */
  allowPrivateWebhooks?: boolean;
  /** The service's public URL: the settings-change notice names the console under it. */
  publicUrl?: string;
  /** Limits how often add_pub may change one wallet's settings (each change mails a notice); none in unit tests. */
  limiter?: RateLimiter;
}

/** Who is calling add_pub: the audit trail and the settings-change notice name the IP address. */
export interface CallerInfo {
  ip: string | null;
}

/** At most this many setting changes per wallet and hour through add_pub (each one mails its owner a notice). */
export const ADD_PUB_CHANGES_PER_HOUR = 10;

const ACCOUNT_TYPES: Record<string, string> = { donation: 'donation', donations: 'donation', ecommerce: 'ecommerce', invoice: 'invoice' };

/**
 * Registers a key (or generates a wallet) and returns its API ID. Re-registering a key may change only what
 * INTERFACE.md 4.1 lets add_pub update (local currency, notification e-mail, account name; and, as before, account
 * type, info and, until addresses exist, wallet_type): it needs no sign-in, so each change is audited and mailed
 * to the previous notification address, and a return_url other than the stored one is refused (see {@link reRegister}).
 */
export async function registerWallet(deps: RegistrationDeps, input: AddPubInput, caller: CallerInfo = { ip: null }): Promise<AddPubResult> {
  // No silent trimming: a key with spaces around it is not the key (answer 102, not a guess).
  if (input.pub !== input.pub.trim()) throw new DomainError('invalid-key', 'Public key is not valid: it has leading or trailing whitespace');
  const pubText = input.pub;
  const generate = pubText === 'new_wallet';
  if (generate && input.wallet_type === TAPROOT_WALLET_TYPE) return registerNewTaproot(deps, input, caller);
  const described = generate ? undefined : readWalletText(pubText, deps.testNetwork);
  if (described) return registerDescribed(deps, input, described, caller);
  const given = generate ? undefined : parseKey(pubText);
  const sandbox = checkCurrency(input.currency, given);
  const settings = await checkSettings(deps, input);

  let key: ExtendedPublicKey;
  let seedSealed: string | null = null;
  if (given) {
    key = given;
  } else {
    const wallet = generateNewWallet(sandbox);
    key = parseExtendedPublicKey(wallet.accountKey);
    seedSealed = deps.masterKey.seal(wallet.mnemonic);
  }
  const requestedType = input.wallet_type === undefined ? undefined : scriptTypeForWalletType(input.wallet_type);
  if (input.wallet_type !== undefined && requestedType === undefined) {
    throw new DomainError('invalid', `wallet_type must be 1 (legacy), 2 (p2sh-segwit) or 3 (native segwit)${generate ? ', or 4 (taproot) for a new wallet' : ''}`);
  }
  const existing = generate ? undefined : await deps.repo.findByPub(key.text);
  if (existing) return reRegister(deps, existing, settings, requestedType, caller);

  const scriptType = requestedType ?? key.defaultScriptType;
  return storeNewWallet(deps, settings, {
    mode: key.testnet ? 'test' : 'live',
    pub: key.text,
    network: key.testnet ? deps.testNetwork : 'mainnet',
    script_type: scriptType,
    wallet_type: BigInt(walletTypeCode(scriptType)),
    seed_sealed: seedSealed,
  });
}

/** A wallet given as a descriptor, BTCPay derivation scheme or multisig cosigner list, read for its network. */
interface DescribedWallet {
  key: WalletKey;
  testnet: boolean;
  /** keyOf(…).describe(): what the `descriptor` column holds, whichever form was sent. */
  canonical: string;
}

/** Reads `pub` as a descriptor-like form; undefined for one extended key. Refusals answer 102 naming the part. */
function readWalletText(text: string, testNetwork: Network): DescribedWallet | undefined {
  try {
    const d = parseWalletText(text);
    if (!d) return undefined;
    // Keys without a network (hex keys) are refused as not ranged by keyOf; mainnet is only the default to ask it.
    const testnet = d.testnet ?? false;
    const key = keyOf({ descriptor: d.text }, testnet ? testNetwork : 'mainnet');
    return { key, testnet, canonical: key.describe() };
  } catch (err) {
    if (err instanceof DescriptorError) throw new DomainError('invalid-key', `Public key is not valid: ${err.message}`);
    throw err;
  }
}

/**
 * add_pub with a descriptor-like `pub`: the wallet is found by its canonical descriptor (so every form of one
 * wallet is one wallet) or by the exact text sent; a new one stores the text sent as `pub` (GET /tx/:public_key
 * finds it by that text as well as by the canonical descriptor) and the canonical descriptor beside it.
 */
/** wallet_type 4: taproot (BIP86 key path); with `"pub": "new_wallet"` the service generates a taproot wallet. */
const TAPROOT_WALLET_TYPE = 4;

/**
 * A service-held taproot wallet: a new mnemonic's BIP86 account as the descriptor `tr([fp/86h/…]tpub…/<0;1>/*)`,
 * stored as a descriptor wallet (its `pub` is that text) with the sealed mnemonic to sign key-path spends.
 */
async function registerNewTaproot(deps: RegistrationDeps, input: AddPubInput, caller: CallerInfo): Promise<AddPubResult> {
  const sandbox = checkCurrency(input.currency, undefined);
  const wallet = generateTaprootWallet(sandbox);
  const described = readWalletText(wallet.descriptor, deps.testNetwork)!;
  return registerDescribed(deps, { ...input, pub: wallet.descriptor }, described, caller, deps.masterKey.seal(wallet.mnemonic));
}

async function registerDescribed(deps: RegistrationDeps, input: AddPubInput, given: DescribedWallet, caller: CallerInfo, seedSealed: string | null = null): Promise<AddPubResult> {
  const sandbox = checkCurrency(input.currency, { testnet: given.testnet });
  const settings = await checkSettings(deps, input);
  const code = walletKindCode(given.key);
  if (input.wallet_type !== undefined && input.wallet_type !== code) {
    throw new DomainError('invalid', `wallet_type ${String(input.wallet_type)} does not fit this wallet: ${walletKindCodes()}; this one is ${code} (or leave wallet_type out)`);
  }
  const existing = (await deps.repo.findByDescriptor(given.canonical)) ?? (await deps.repo.findByPub(input.pub));
  if (existing) return reRegister(deps, existing, settings, undefined, caller);
  return storeNewWallet(deps, settings, {
    mode: sandbox ? 'test' : 'live',
    pub: input.pub,
    descriptor: given.canonical,
    network: given.key.network,
    script_type: given.key.kind,
    wallet_type: BigInt(code),
    seed_sealed: seedSealed,
  });
}

/** What tells one new wallet from another: its key, how it derives, where it lives, and its sealed seed if held. */
interface NewWalletKey {
  mode: 'live' | 'test';
  pub: string;
  descriptor?: string;
  network: string;
  script_type: string;
  wallet_type: bigint;
  seed_sealed: string | null;
}

/** Stores a new wallet (its settings, its payload and signing keys sealed) and answers add_pub. */
async function storeNewWallet(deps: RegistrationDeps, settings: Awaited<ReturnType<typeof checkSettings>>, key: NewWalletKey): Promise<AddPubResult> {
  const keys = generateWalletKeys();
  const now = BigInt(deps.clock());
  const { seed_sealed: seedSealed, ...identity } = key;
  const row = await deps.repo.insert({
    api_id: `${key.mode}_${randomBytes(16).toString('hex')}`,
    ...identity,
    local_currency: settings.local_currency ?? 'usd',
    notification_email: settings.notification_email ?? null,
    return_url: settings.return_url ?? null,
    account_name: settings.account_name ?? null,
    account_type: settings.account_type ?? null,
    info: settings.info ?? null,
    required_confirmations: 1n,
    box_public_key: Buffer.from(keys.boxPublicKey).toString('base64'),
    box_secret_sealed: deps.masterKey.seal(keys.boxSecretKey),
    sign_public_key: Buffer.from(keys.signPublicKey).toString('base64'),
    sign_secret_sealed: deps.masterKey.seal(keys.signSecretKey),
    seed_sealed: seedSealed,
    registration_email: settings.notification_email?.toLowerCase() ?? null,
    created_at: now,
    updated_at: now,
  });
  return answer(row);
}

type Settings = Awaited<ReturnType<typeof checkSettings>>;

/** What a re-registration changes, field by field (empty: nothing). */
function changesOf(wallet: WalletRow, settings: Settings, scriptType: ScriptType): Record<string, SettingChange> {
  const changes: Record<string, SettingChange> = {};
  for (const field of ['notification_email', 'account_name', 'local_currency', 'account_type', 'info'] as const) {
    const to = settings[field];
    if (to !== undefined && to !== wallet[field]) changes[field] = { from: wallet[field], to };
  }
  if (scriptType !== wallet.script_type) changes.wallet_type = { from: walletTypeName(wallet.script_type as ScriptType), to: walletTypeName(scriptType) };
  return changes;
}

/** Refuses a return_url that differs from the stored one: only the signed-in owner sets or changes it. */
function checkReturnUrlUnchanged(wallet: WalletRow, settings: Settings): void {
  if (settings.return_url === undefined || settings.return_url === wallet.return_url) return;
  // The return_url receives every signed notification with its auth_response_token: knowing a public key is not
  // proof of owning the wallet, so add_pub never redirects them, not even where none was set yet.
  throw new DomainError('invalid',
    `Wrong or missing argument: return_url cannot be ${wallet.return_url === null ? 'set' : 'changed'} through add_pub once the key is registered; ` +
      "the wallet's owner sets it in the merchant console (or the dashboard API). Post the registered return_url, or none.",
  );
}

/**
 * add_pub on a registered key. Refuses a different return_url (nothing changes); answers at once when nothing
 * would change; otherwise, within the per-wallet limit, writes the change, its audit record, the notice to the
 * previous notification address (through the outbox) and, when the account name changed, the console's flag,
 * all in one transaction.
 */
async function reRegister(deps: RegistrationDeps, existing: WalletRow, settings: Settings, requestedType: ScriptType | undefined, caller: CallerInfo): Promise<AddPubResult> {
  checkReturnUrlUnchanged(existing, settings);
  const scriptType = requestedType ?? (existing.script_type as ScriptType);
  if (scriptType !== existing.script_type && (await deps.repo.countAddresses(existing.id)) > 0) {
    throw new DomainError('invalid', 'wallet_type cannot change after addresses have been issued from this key');
  }
  if (Object.keys(changesOf(existing, settings, scriptType)).length === 0) return answer(existing);
  const nowMs = deps.clock();
  await deps.limiter?.consume(
    [{ key: `add_pub_change:${existing.id}`, max: ADD_PUB_CHANGES_PER_HOUR, windowMs: 3_600_000, describe: `${ADD_PUB_CHANGES_PER_HOUR} setting changes of a wallet an hour through add_pub` }],
    nowMs,
  );
  const row = await deps.repo.withLockedWallet(existing.id, async (trx, wallet) => {
    // Checked again on the locked row: the owner may have changed the wallet since it was read.
    checkReturnUrlUnchanged(wallet, settings);
    const changes = changesOf(wallet, settings, scriptType);
    if (Object.keys(changes).length === 0) return wallet;
    const now = BigInt(nowMs);
    const flag = changes.account_name ? unconfirmedName(wallet, settings.account_name!, now) : {};
    const updated = await trx
      .updateTable('wallets')
      .set({ ...settings, ...flag, script_type: scriptType, wallet_type: BigInt(walletTypeCode(scriptType)), updated_at: now })
      .where('id', '=', wallet.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, { action: 'wallet_changed_by_add_pub', email: wallet.notification_email?.toLowerCase() ?? null, ip: caller.ip, detail: { api_id: wallet.api_id, changes: auditChanges(changes) } }, nowMs);
    if (wallet.notification_email !== null) {
      const notice = {
        event: SETTINGS_CHANGED_EVENT,
        api_id: wallet.api_id,
        changed_at: new Date(nowMs).toISOString(),
        ip: caller.ip,
        changes,
        console_url: `${deps.publicUrl ?? ''}/console/`,
      };
      await enqueueNotifications(trx, [{ kind: 'email', target: wallet.notification_email, payload: notice, walletId: wallet.id, paymentId: null }], nowMs);
    }
    return updated;
  });
  return answer(row);
}

/** The console's flag after an unsigned change of the name payers see: set, kept, or cleared when it is back to what the owner saw. */
function unconfirmedName(wallet: WalletRow, name: string, now: bigint): { account_name_unconfirmed_at: bigint | null; account_name_previous: string | null } {
  const seen = wallet.account_name_unconfirmed_at == null ? wallet.account_name : (wallet.account_name_previous ?? null);
  if (name === seen) return { account_name_unconfirmed_at: null, account_name_previous: null };
  return { account_name_unconfirmed_at: now, account_name_previous: seen };
}

/** The changes as the audit trail keeps them: small, so the info text is only said to have changed. */
function auditChanges(changes: Record<string, SettingChange>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(changes).map(([field, change]) => [field, field === 'info' ? 'changed' : change]));
}

/** The settings the wallet's signed-in owner changes (dashboard API, console); '' unsets a setting that may be empty. */
export interface OwnerSettings {
  account_name?: string;
  local_currency?: string;
  notification_email?: string;
  return_url?: string;
}

/**
 * Changes a wallet's settings for its signed-in owner, with add_pub's checks (currency supported, e-mail valid,
 * return_url SSRF-checked) but none of its restrictions: this is where a return_url is set or changed once the key
 * is registered. An empty string unsets the name, e-mail or return_url (the local currency cannot be unset). Saving
 * the name, changed or not, is the owner confirming it: the console's flag is cleared.
 */
export async function changeOwnedWallet(deps: RegistrationDeps, walletId: bigint, input: OwnerSettings): Promise<WalletRow> {
  const given = (v: string | undefined): v is string => v !== undefined && v !== '';
  const settings = await checkSettings(deps, {
    ...(given(input.account_name) ? { account_name: input.account_name } : {}),
    ...(given(input.local_currency) ? { local_currency: input.local_currency } : {}),
    ...(given(input.notification_email) ? { notification_email: input.notification_email } : {}),
    ...(given(input.return_url) ? { return_url: input.return_url } : {}),
  });
  return deps.repo.update(walletId, {
    ...settings,
    ...(input.account_name === '' ? { account_name: null } : {}),
    ...(input.notification_email === '' ? { notification_email: null } : {}),
    ...(input.return_url === '' ? { return_url: null } : {}),
    ...(input.account_name !== undefined ? { account_name_unconfirmed_at: null, account_name_previous: null } : {}),
    updated_at: BigInt(deps.clock()),
  });
}

function answer(row: WalletRow): AddPubResult {
  return { api_id: row.api_id, server_public_key: row.box_public_key, server_sign_public_key: row.sign_public_key };
}

function parseKey(text: string): ExtendedPublicKey {
  try {
    return parseExtendedPublicKey(text);
  } catch (err) {
    if (err instanceof InvalidExtendedKeyError) throw new DomainError('invalid-key', `Public key is not valid: ${err.message}`);
    throw err;
  }
}

/** Checks `currency` against the key's mode; returns true when the wallet is a sandbox one. */
function checkCurrency(currency: string | undefined, key: { testnet: boolean } | undefined): boolean {
  const keyIsTest = key?.testnet;
  if (currency === undefined) return keyIsTest ?? false;
  const c = currency.toLowerCase();
  if (c === 'btc') return keyIsTest ?? false;
  if (c === 'testbtc') {
    if (keyIsTest === false) throw new DomainError('unsupported-currency', 'testBTC is the sandbox currency; this key is a mainnet key (use BTC)');
    return true;
  }
  if (!/^[a-z]{3}$/.test(c)) throw new DomainError('invalid-currency', `Currency is not valid: ${JSON.stringify(currency)}`);
  throw new DomainError('unsupported-currency', `Currency is not supported: only BTC (or testBTC for sandbox wallets) is accepted`);
}

async function checkSettings(deps: RegistrationDeps, input: Omit<AddPubInput, 'pub'>) {
  const out: {
    local_currency?: string;
    notification_email?: string;
    return_url?: string;
    account_name?: string;
    account_type?: string;
    info?: string;
  } = {};
  if (input.local_currency !== undefined) {
    out.local_currency = checkLocalCurrency(input.local_currency, (code) => deps.isSupportedCurrency(code)).toLowerCase();
  }
  if (input.notification_email !== undefined) {
    if (!isEmail(input.notification_email)) throw new DomainError('invalid-email', 'Invalid e-mail address: notification_email');
    out.notification_email = input.notification_email;
  }
  if (input.return_url !== undefined) {
    if (!isHttpUrl(input.return_url)) throw new DomainError('invalid', 'return_url must be an http(s) URL');
    // Checked like notify_url when saved: an internal target is refused now, not retried for three days later.
    const refused = await refusedWebhookTarget(input.return_url, { allowPrivate: deps.allowPrivateWebhooks ?? false });
    if (refused !== null) throw new DomainError('invalid', `return_url is not allowed: ${refused}`);
    out.return_url = input.return_url;
  }
  if (input.account_type !== undefined) {
    const t = Object.hasOwn(ACCOUNT_TYPES, input.account_type.toLowerCase()) ? ACCOUNT_TYPES[input.account_type.toLowerCase()] : undefined;
    if (!t) throw new DomainError('invalid', 'account_type must be donation, ecommerce or invoice');
    out.account_type = t;
  }
  if (input.account_name !== undefined) out.account_name = input.account_name;
  if (input.info !== undefined) out.info = input.info;
  return out;
}
