import { randomBytes } from 'node:crypto';
import { parseExtendedPublicKey, InvalidExtendedKeyError, type ExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { scriptTypeForWalletType, walletTypeCode, type ScriptType } from '../bitcoin/script-type.ts';
import type { Network } from '../bitcoin/networks.ts';
import { WalletApiError } from '../core/errors.ts';
import type { Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import { generateWalletKeys } from './payload-box.ts';
import type { WalletRepository, WalletRow } from './wallet-repository.ts';
import { checkLocalCurrency, isEmail, isHttpUrl } from './field-rules.ts';
import { refusedWebhookTarget } from '../notify/webhook-target.ts';

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
}

const ACCOUNT_TYPES: Record<string, string> = { donation: 'donation', donations: 'donation', ecommerce: 'ecommerce', invoice: 'invoice' };

/** Registers a key (or generates a wallet) and returns its API ID; re-registering updates the settings. */
export async function registerWallet(deps: RegistrationDeps, input: AddPubInput): Promise<AddPubResult> {
  // No silent trimming: a key with spaces around it is not the key (answer 102, not a guess).
  if (input.pub !== input.pub.trim()) throw new WalletApiError('102', 'Public key is not valid: it has leading or trailing whitespace');
  const pubText = input.pub;
  const generate = pubText === 'new_wallet';
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
    throw new WalletApiError('201', 'wallet_type must be 1 (legacy), 2 (p2sh-segwit) or 3 (native segwit)');
  }
  const now = BigInt(deps.clock());

  const existing = generate ? undefined : await deps.repo.findByPub(key.text);
  if (existing) {
    const scriptType = requestedType ?? (existing.script_type as ScriptType);
    if (scriptType !== existing.script_type && (await deps.repo.countAddresses(existing.id)) > 0) {
      throw new WalletApiError('201', 'wallet_type cannot change after addresses have been issued from this key');
    }
    const updated = await deps.repo.update(existing.id, {
      ...settings,
      script_type: scriptType,
      wallet_type: BigInt(walletTypeCode(scriptType)),
      updated_at: now,
    });
    return answer(updated);
  }

  const scriptType = requestedType ?? key.defaultScriptType;
  const keys = generateWalletKeys();
  const mode = key.testnet ? 'test' : 'live';
  const row = await deps.repo.insert({
    api_id: `${mode}_${randomBytes(16).toString('hex')}`,
    pub: key.text,
    mode,
    network: key.testnet ? deps.testNetwork : 'mainnet',
    script_type: scriptType,
    wallet_type: BigInt(walletTypeCode(scriptType)),
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

function answer(row: WalletRow): AddPubResult {
  return { api_id: row.api_id, server_public_key: row.box_public_key, server_sign_public_key: row.sign_public_key };
}

function parseKey(text: string): ExtendedPublicKey {
  try {
    return parseExtendedPublicKey(text);
  } catch (err) {
    if (err instanceof InvalidExtendedKeyError) throw new WalletApiError('102', `Public key is not valid: ${err.message}`);
    throw err;
  }
}

/** Checks `currency` against the key's mode; returns true when the wallet is a sandbox one. */
function checkCurrency(currency: string | undefined, key: ExtendedPublicKey | undefined): boolean {
  const keyIsTest = key?.testnet;
  if (currency === undefined) return keyIsTest ?? false;
  const c = currency.toLowerCase();
  if (c === 'btc') return keyIsTest ?? false;
  if (c === 'testbtc') {
    if (keyIsTest === false) throw new WalletApiError('103', 'testBTC is the sandbox currency; this key is a mainnet key (use BTC)');
    return true;
  }
  if (!/^[a-z]{3}$/.test(c)) throw new WalletApiError('101', `Currency is not valid: ${JSON.stringify(currency)}`);
  throw new WalletApiError('103', `Currency is not supported: only BTC (or testBTC for sandbox wallets) is accepted`);
}

async function checkSettings(deps: RegistrationDeps, input: AddPubInput) {
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
    if (!isEmail(input.notification_email)) throw new WalletApiError('308', 'Invalid e-mail address: notification_email');
    out.notification_email = input.notification_email;
  }
  if (input.return_url !== undefined) {
    if (!isHttpUrl(input.return_url)) throw new WalletApiError('201', 'return_url must be an http(s) URL');
    // Checked like notify_url when saved: an internal target is refused now, not retried for three days later.
    const refused = await refusedWebhookTarget(input.return_url, { allowPrivate: deps.allowPrivateWebhooks ?? false });
    if (refused !== null) throw new WalletApiError('201', `return_url is not allowed: ${refused}`);
    out.return_url = input.return_url;
  }
  if (input.account_type !== undefined) {
    const t = Object.hasOwn(ACCOUNT_TYPES, input.account_type.toLowerCase()) ? ACCOUNT_TYPES[input.account_type.toLowerCase()] : undefined;
    if (!t) throw new WalletApiError('201', 'account_type must be donation, ecommerce or invoice');
    out.account_type = t;
  }
  if (input.account_name !== undefined) out.account_name = input.account_name;
  if (input.info !== undefined) out.info = input.info;
  return out;
}
