// Greenfield API keys: created by the operator's CLI or the key-authorization page, for one store, with BTCPay's
// permission strings. The key is shown once and stored as its SHA-256 (it carries 256 random bits); a lookup is
// by hash, so no key is ever compared as text. Revocation takes effect on the next request (no cache).
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import { hashToken } from '../security/tokens.ts';
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { roleIn } from '../teams/members.ts';
import { reducedToRole, scopedPermissions } from './permissions.ts';

/** The `userId` of a key a signed-in member created on the authorization page: `profile-<id>`. */
const MEMBER_USER = /^profile-([0-9]{1,19})$/;

/** Who a request's key is: what the authentication hook puts on the request. */
export interface GreenfieldIdentity {
  keyId: string;
  storeId: string;
  walletId: bigint;
  permissions: string[];
  label: string;
  userId: string | null;
}

/** A key as lists show it (never the key itself). */
export interface ApiKeyInfo {
  keyId: string;
  storeId: string;
  label: string;
  permissions: string[];
  hint: string;
  createdAt: number;
  revokedAt: number | null;
}

/** A new key: 40 hex characters like BTCPay's (160 random bits would do; these carry 160 as well). */
function newApiKey(): string {
  return randomBytes(20).toString('hex');
}

/** The public id of a key: `gfk_` and 16 hex characters. */
function newKeyId(): string {
  return `gfk_${randomBytes(8).toString('hex')}`;
}

/** The Greenfield API keys over the database. */
export class GreenfieldKeys {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /**
   * Creates a key for the store (a wallet, by id and API ID) with the given policies, each scoped to the store.
   * Answers the key once; only its hash is kept.
   */
  async create(
    store: { walletId: bigint; storeId: string },
    policies: readonly string[],
    label: string,
    userId: string | null = null,
    /** More work in the key's transaction (the Owners' notice of a key that can move money). */
    alongside?: (trx: Transaction<Database>, key: { keyId: string; permissions: string[]; now: number }) => Promise<void>,
  ) {
    const apiKey = newApiKey();
    const keyId = newKeyId();
    const permissions = scopedPermissions(policies, store.storeId);
    const now = this.clock();
    await this.db.kysely.transaction().execute(async (trx) => {
      await trx
        .insertInto('greenfield_api_keys')
        .values({
          key_hash: hashToken(apiKey),
          key_hint: apiKey.slice(0, 4),
          key_id: keyId,
          wallet_id: store.walletId,
          store_id: store.storeId,
          permissions_json: JSON.stringify(permissions),
          label,
          user_id: userId,
          created_at: BigInt(now),
        })
        .execute();
      await alongside?.(trx, { keyId, permissions, now });
    });
    return { apiKey, keyId, storeId: store.storeId, permissions, label };
  }

  /**
   * The identity of a key, or undefined when it is unknown or revoked. A key a member created carries, on every use,
   * only the permissions their current role in its store allows (reducedToRole); when they are no longer a member
   * it is not valid at all.
   */
  async verify(apiKey: string): Promise<GreenfieldIdentity | undefined> {
    if (apiKey.length === 0 || apiKey.length > 200) return undefined;
    const row = await this.db.kysely
      .selectFrom('greenfield_api_keys')
      .select(['key_id', 'store_id', 'wallet_id', 'permissions_json', 'label', 'user_id', 'revoked_at'])
      .where('key_hash', '=', hashToken(apiKey))
      .executeTakeFirst();
    if (!row || row.revoked_at !== null) return undefined;
    let permissions = JSON.parse(row.permissions_json) as string[];
    const creator = row.user_id === null ? null : MEMBER_USER.exec(row.user_id);
    if (creator) {
      const role = await roleIn(this.db.kysely, BigInt(creator[1]!), row.store_id);
      if (role === null) return undefined;
      permissions = reducedToRole(permissions, role);
    }
    return {
      keyId: row.key_id,
      storeId: row.store_id,
      walletId: row.wallet_id,
      permissions,
      label: row.label,
      userId: row.user_id,
    };
  }

  /** Every key, optionally of one store, oldest first. */
  async list(storeId?: string): Promise<ApiKeyInfo[]> {
    let q = this.db.kysely.selectFrom('greenfield_api_keys').selectAll().orderBy('id');
    if (storeId !== undefined) q = q.where('store_id', '=', storeId);
    const rows = await q.execute();
    return rows.map((r) => ({
      keyId: r.key_id,
      storeId: r.store_id,
      label: r.label,
      permissions: JSON.parse(r.permissions_json) as string[],
      hint: `${r.key_hint}…`,
      createdAt: Number(r.created_at),
      revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    }));
  }

  /** Revokes a key by its id; false when there is no such key or it was already revoked. */
  async revoke(keyId: string): Promise<boolean> {
    const res = await this.db.kysely
      .updateTable('greenfield_api_keys')
      .set({ revoked_at: BigInt(this.clock()) })
      .where('key_id', '=', keyId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }
}
