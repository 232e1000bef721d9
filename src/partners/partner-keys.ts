// Partners are platforms the operator trusts (marketplaces, point-of-sale providers). The operator issues
// each one a key with the CLI; the key is shown once and only its SHA-256 is stored (it carries 256 random
// bits, so a fast hash is enough and lookups by hash reveal nothing about other keys).
import type { Db } from '../db/database.ts';
import type { Selectable } from 'kysely';
import type { PartnersTable } from '../db/schema.ts';
import type { Network } from '../bitcoin/networks.ts';
import { decodeAddressFor, InvalidAddressError } from '../bitcoin/address.ts';
import { checkUrlAllowed } from '../notify/ssrf-guard.ts';
import type { MasterKey } from '../security/master-key.ts';
import { hashToken, newToken } from '../security/tokens.ts';

/** A partner as stored. */
export type PartnerRow = Selectable<PartnersTable>;

/** What `partner create` needs. */
export interface NewPartner {
  name: string;
  /** Sandbox partner: its merchants' wallets live on the test network. */
  test: boolean;
  settlementAddress: string;
  webhookUrl?: string;
}

/** A created partner with its secrets, which are never shown again. */
export interface CreatedPartner {
  partner: PartnerRow;
  partnerAuthKey: string;
  webhookSecret: string;
}

/** A partner setting the operator got wrong; the CLI prints it as a usage error. */
export class PartnerInputError extends Error {}

/** Settings that decide where partner data goes. */
export interface PartnerKeySettings {
  testNetwork: Network;
  allowPrivateWebhooks: boolean;
}

/** Creates, lists, revokes and authenticates partner keys. */
export class PartnerKeys {
  constructor(
    private readonly db: Db,
    private readonly masterKey: MasterKey,
    private readonly settings: PartnerKeySettings,
  ) {}

  /** Checks the settings (address valid on the partner's network, webhook URL not internal) and stores the partner. */
  async create(input: NewPartner, now: number): Promise<CreatedPartner> {
    const name = input.name.trim();
    if (name === '' || name.length > 200) throw new PartnerInputError('--name must be 1 to 200 characters');
    const mode = input.test ? 'test' : 'live';
    const network: Network = input.test ? this.settings.testNetwork : 'mainnet';
    try {
      decodeAddressFor(input.settlementAddress, network);
    } catch (err) {
      if (err instanceof InvalidAddressError) {
        throw new PartnerInputError(`--settlement-address is not a valid ${network} address: ${err.message}`);
      }
      throw err;
    }
    let webhookUrl: string | null = null;
    if (input.webhookUrl !== undefined) {
      const verdict = await checkUrlAllowed(input.webhookUrl, { allowPrivate: this.settings.allowPrivateWebhooks });
      if (!verdict.ok) throw new PartnerInputError(`--webhook-url is not allowed: ${verdict.reason}`);
      webhookUrl = new URL(input.webhookUrl).toString();
    }
    const partnerAuthKey = `ptk_${mode}_${newToken(32)}`;
    const webhookSecret = `whsec_${newToken(32)}`;
    const partner = await this.db.kysely
      .insertInto('partners')
      .values({
        name,
        mode,
        network,
        key_hash: hashToken(partnerAuthKey),
        key_hint: partnerAuthKey.slice(0, 13),
        settlement_address: input.settlementAddress.trim(),
        webhook_url: webhookUrl,
        webhook_secret_sealed: this.masterKey.seal(webhookSecret),
        created_at: BigInt(now),
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { partner, partnerAuthKey, webhookSecret };
  }

  /** Every partner, oldest first. */
  async list(): Promise<PartnerRow[]> {
    return this.db.kysely.selectFrom('partners').selectAll().orderBy('id').execute();
  }

  /** Revokes a partner's key (by id or key hint); its merchants' wallets stay, but no partner call is accepted. */
  async revoke(idOrHint: string, now: number): Promise<PartnerRow | undefined> {
    const row = /^\d+$/.test(idOrHint)
      ? await this.db.kysely.selectFrom('partners').selectAll().where('id', '=', BigInt(idOrHint)).executeTakeFirst()
      : await this.db.kysely.selectFrom('partners').selectAll().where('key_hint', '=', idOrHint).executeTakeFirst();
    if (!row) return undefined;
    if (row.revoked_at !== null) return row;
    return this.db.kysely
      .updateTable('partners')
      .set({ revoked_at: BigInt(now) })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** The live (not revoked) partner holding this key, if any. */
  async authenticate(key: string): Promise<PartnerRow | undefined> {
    if (key.length < 16 || key.length > 200) return undefined;
    const row = await this.db.kysely.selectFrom('partners').selectAll().where('key_hash', '=', hashToken(key)).executeTakeFirst();
    return row && row.revoked_at === null ? row : undefined;
  }

  /** The partner's webhook signing secret, unsealed. */
  webhookSecret(partner: PartnerRow): string {
    return this.masterKey.unseal(partner.webhook_secret_sealed).toString('utf8');
  }
}
