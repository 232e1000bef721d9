// Partner merchant wallets: a service-held native segwit wallet per merchant of a partner, created
// idempotently on (partner, partner_merchant_id). The merchant's keys are shown once and stored hashed;
// contact, bank details and metadata are personal data and stored sealed with the master key.
import type { Kysely, Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database, PartnerWalletsTable } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import { DomainError } from '../core/domain-errors.ts';
import type { MasterKey } from '../security/master-key.ts';
import { constantTimeEqual, hashToken, newToken } from '../security/tokens.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { parseExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { generateWalletKeys } from '../wallets/payload-box.ts';
import { isEmail } from '../wallets/field-rules.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';
import type { PartnerRow } from './partner-keys.ts';
import { optionalObject, optionalString, requiredObject, requiredString, onlyKnown, type Fields } from './fields.ts';
import { recordCreated, type WalletStatus } from './transitions.ts';
import { randomBytes } from 'node:crypto';

/** A partner wallet row as stored. */
export type PartnerWalletRow = Selectable<PartnerWalletsTable>;

/** A partner's merchant with its wallet and partner: what merchant-key calls act on. */
export interface PartnerMerchant {
  partner: PartnerRow;
  pw: PartnerWalletRow;
  wallet: WalletRow;
}

/** What creating a wallet answers (keys only the first time). */
export interface CreateAnswer {
  partner_merchant_id: string;
  merchant_api_id: string;
  merchant_auth_key: string;
  withdrawal_auth_key: string;
  wallet_status: string;
  /** False when the wallet already existed: its keys are not shown again. */
  created: boolean;
}

/** What the wallet service needs. */
export interface PartnerWalletDeps {
  db: Db;
  masterKey: MasterKey;
  clock: Clock;
  isSupportedCurrency(code: string): boolean;
}

const E164 = /^\+[1-9]\d{1,14}$/;
const MERCHANT_ID = /^[\x21-\x7e]{1,128}$/;
/** Largest sealed JSON object (contact, bank_info, metadata) accepted, in bytes of its JSON text. */
export const MAX_PERSONAL_JSON = 16 * 1024;

const CREATE_FIELDS = ['partner_auth_key', 'merchant_name', 'partner_merchant_id', 'contact', 'bank_info', 'metadata', 'local_currency'];

/** Creates and reads partner merchant wallets, and checks merchant keys. */
export class PartnerWallets {
  constructor(private readonly deps: PartnerWalletDeps) {}

  /** `POST /partner_merchant_wallet`: validates everything first, then creates (or finds) the wallet. */
  async create(partner: PartnerRow, fields: Fields): Promise<CreateAnswer> {
    onlyKnown(fields, CREATE_FIELDS);
    const merchantName = requiredString(fields, 'merchant_name', 200);
    const partnerMerchantId = requiredString(fields, 'partner_merchant_id', 128);
    if (!MERCHANT_ID.test(partnerMerchantId)) {
      throw new DomainError('invalid', 'Wrong or missing argument: partner_merchant_id must be 1 to 128 visible ASCII characters');
    }
    const contact = requiredObject(fields, 'contact');
    if (typeof contact.email !== 'string' || !isEmail(contact.email) || contact.email.trim() !== contact.email) {
      throw new DomainError('invalid-email', 'Invalid e-mail address: contact.email');
    }
    if (typeof contact.phone !== 'string' || !E164.test(contact.phone)) {
      throw new DomainError('invalid', 'Wrong or missing argument: contact.phone must be an E.164 number such as +4930123456');
    }
    const bankInfo = requiredObject(fields, 'bank_info');
    const metadata = optionalObject(fields, 'metadata');
    for (const [name, value] of [['contact', contact], ['bank_info', bankInfo], ['metadata', metadata]] as const) {
      if (value !== undefined && Buffer.byteLength(JSON.stringify(value)) > MAX_PERSONAL_JSON) {
        throw new DomainError('invalid', `Wrong or missing argument: ${name} is larger than ${MAX_PERSONAL_JSON} bytes`);
      }
    }
    const currencyText = optionalString(fields, 'local_currency', 8) ?? 'USD';
    const currency = currencyText.toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) throw new DomainError('invalid-currency', `Currency is not valid: local_currency ${JSON.stringify(currencyText)}`);
    if (!this.deps.isSupportedCurrency(currency)) {
      throw new DomainError('unsupported-currency', `Currency is not supported: local_currency ${JSON.stringify(currencyText)}`);
    }

    const existing = await this.find(partner.id, partnerMerchantId);
    if (existing) return existing;

    const now = BigInt(this.deps.clock());
    const { masterKey } = this.deps;
    const testnet = partner.mode === 'test';
    const generated = generateNewWallet(testnet);
    const key = parseExtendedPublicKey(generated.accountKey);
    const boxKeys = generateWalletKeys();
    const merchantAuthKey = `mak_${newToken(32)}`;
    const withdrawalAuthKey = `wak_${newToken(32)}`;
    try {
      const apiId = await this.deps.db.kysely.transaction().execute(async (trx) => {
        const wallet = await trx
          .insertInto('wallets')
          .values({
            api_id: `${partner.mode}_${randomBytes(16).toString('hex')}`,
            pub: key.text,
            mode: partner.mode,
            network: partner.network,
            script_type: 'p2wpkh',
            wallet_type: 3n,
            local_currency: currency.toLowerCase(),
            notification_email: null,
            return_url: null,
            account_name: merchantName,
            account_type: null,
            info: null,
            required_confirmations: 1n,
            box_public_key: Buffer.from(boxKeys.boxPublicKey).toString('base64'),
            box_secret_sealed: masterKey.seal(boxKeys.boxSecretKey),
            sign_public_key: Buffer.from(boxKeys.signPublicKey).toString('base64'),
            sign_secret_sealed: masterKey.seal(boxKeys.signSecretKey),
            seed_sealed: masterKey.seal(generated.mnemonic),
            created_at: now,
            updated_at: now,
          })
          .returning(['id', 'api_id'])
          .executeTakeFirstOrThrow();
        const pw = await trx
          .insertInto('partner_wallets')
          .values({
            partner_id: partner.id,
            wallet_id: wallet.id,
            partner_merchant_id: partnerMerchantId,
            merchant_name: merchantName,
            merchant_key_hash: hashToken(merchantAuthKey),
            withdrawal_key_hash: hashToken(withdrawalAuthKey),
            wallet_status: 'pending_kyc',
            status_reason: null,
            status_at: now,
            contact_sealed: masterKey.seal(JSON.stringify(contact)),
            bank_info_sealed: masterKey.seal(JSON.stringify(bankInfo)),
            metadata_sealed: metadata === undefined ? null : masterKey.seal(JSON.stringify(metadata)),
            created_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await recordCreated(trx, 'partner_wallet_transitions', pw.id, 'pending_kyc', Number(now));
        // The partner's webhook secret signs every webhook about this wallet (partner and payment webhooks alike).
        await trx
          .insertInto('webhook_secrets')
          .values({ wallet_id: wallet.id, secret_sealed: partner.webhook_secret_sealed, previous_secret_sealed: null, previous_valid_until: null, rotated_at: now })
          .execute();
        return wallet.api_id;
      });
      return {
        partner_merchant_id: partnerMerchantId,
        merchant_api_id: apiId,
        merchant_auth_key: merchantAuthKey,
        withdrawal_auth_key: withdrawalAuthKey,
        wallet_status: 'pending_kyc',
        created: true,
      };
    } catch (err) {
      // A concurrent create with the same partner_merchant_id won the unique constraint: answer its wallet.
      const raced = await this.find(partner.id, partnerMerchantId);
      if (raced) return raced;
      throw err;
    }
  }

  private async find(partnerId: bigint, partnerMerchantId: string): Promise<CreateAnswer | undefined> {
    const row = await this.deps.db.kysely
      .selectFrom('partner_wallets as pw')
      .innerJoin('wallets as w', 'w.id', 'pw.wallet_id')
      .select(['pw.partner_merchant_id', 'pw.wallet_status', 'w.api_id'])
      .where('pw.partner_id', '=', partnerId)
      .where('pw.partner_merchant_id', '=', partnerMerchantId)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      partner_merchant_id: row.partner_merchant_id,
      merchant_api_id: row.api_id,
      merchant_auth_key: '',
      withdrawal_auth_key: '',
      wallet_status: row.wallet_status,
      created: false,
    };
  }

  /** The merchant of `apiId` if it belongs to a live partner; undefined otherwise. Pass `q` inside a transaction. */
  async load(apiId: string, q: Kysely<Database> = this.deps.db.kysely): Promise<PartnerMerchant | undefined> {
    if (apiId.length > 100) return undefined;
    const wallet = await q.selectFrom('wallets').selectAll().where('api_id', '=', apiId).executeTakeFirst();
    if (!wallet) return undefined;
    const pw = await q.selectFrom('partner_wallets').selectAll().where('wallet_id', '=', wallet.id).executeTakeFirst();
    if (!pw) return undefined;
    const partner = await q.selectFrom('partners').selectAll().where('id', '=', pw.partner_id).executeTakeFirstOrThrow();
    if (partner.revoked_at !== null) return undefined;
    return { partner, pw, wallet };
  }

  /**
   * The merchant when `key` is its merchant (or withdrawal) key and, if `partner` is given, it is that partner's;
   * undefined for an unknown API ID, a wrong key or another partner's merchant alike (nothing leaks which).
   */
  async authenticate(apiId: string, key: string, which: 'merchant' | 'withdrawal', partner?: PartnerRow): Promise<PartnerMerchant | undefined> {
    const found = await this.load(apiId);
    const given = hashToken(key);
    const stored = found ? (which === 'merchant' ? found.pw.merchant_key_hash : found.pw.withdrawal_key_hash) : hashToken('');
    const keyOk = constantTimeEqual(given, stored);
    if (!found || !keyOk) return undefined;
    if (partner && found.partner.id !== partner.id) return undefined;
    return found;
  }

  /** The decrypted personal data of a merchant (operator CLI only). */
  personalData(pw: PartnerWalletRow): { contact: unknown; bank_info: unknown; metadata: unknown } {
    const open = (s: string | null) => (s === null ? null : JSON.parse(this.deps.masterKey.unseal(s).toString('utf8')));
    return { contact: open(pw.contact_sealed), bank_info: open(pw.bank_info_sealed), metadata: open(pw.metadata_sealed) };
  }
}

/** The fields a partner webhook about a merchant wallet carries. */
export function walletEventFields(m: { pw: PartnerWalletRow; wallet: WalletRow }): Record<string, unknown> {
  return { partner_merchant_id: m.pw.partner_merchant_id, merchant_api_id: m.wallet.api_id };
}

/** True for the wallet states from which withdrawals are allowed. */
export function canWithdraw(status: string): status is WalletStatus {
  return status === 'active';
}
