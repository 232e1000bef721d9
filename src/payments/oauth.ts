// OAuth 2.0 client credentials (RFC 6749 section 4.4) for payment API v1 operation 26.
// Client secrets and access tokens are random 32-byte values stored only as SHA-256 hashes;
// a token is found by its hash, a secret is compared with its stored hash in constant time.
import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import { findBearer, findClientWallet, type BearerRow } from '../db/bearer-reads.ts';
import type { WalletsTable } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import { constantTimeEqual, hashToken, newToken } from '../security/tokens.ts';
import { ensureWebhookSecret, newWebhookSecret } from './webhook-secrets.ts';
import type { BearerCheck } from '../http/oauth-bearer.ts';

/** A wallet as the creation path needs it: the row, and whether the client is bound to it. */
export interface WalletForClient {
  wallet: Selectable<WalletsTable>;
  bound: boolean;
}

/** What the bearer check found for payment creation's API ID: undefined `found` when no wallet has it. */
export interface LookedUpWallet {
  apiId: string;
  found: WalletForClient | undefined;
}

/** Lifetime of an access token, seconds (DESIGN.md section 7: 1 h). */
export const TOKEN_LIFETIME_SECONDS = 3600;

/** What `satgate client create` prints once. */
export interface NewClient {
  client_id: string;
  client_secret: string;
  webhook_secret: string;
  /** Human notes (wallets that kept an existing webhook secret), for stderr. */
  notes: string[];
}


// A hash nobody's secret has, compared against when the client id is unknown so timing does not tell.
const DUMMY_HASH = hashToken('satgate-no-such-client');

/** Operator-created OAuth clients, their tokens and their bindings to API IDs. */
export class OAuthClients {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /**
   * Creates a client bound to the wallets of `apiIds` (each must exist). Wallets without a webhook secret
   * get one (the same new secret for all of them); the printed `webhook_secret` is the first wallet's.
   */
  async createClient(apiIds: string[], masterKey: MasterKey): Promise<NewClient> {
    if (apiIds.length === 0) throw new RangeError('at least one API ID is required');
    const now = this.clock();
    const clientId = `cli_${randomBytes(12).toString('hex')}`;
    const clientSecret = newToken(32);
    const fresh = newWebhookSecret();
    return this.db.kysely.transaction().execute(async (trx) => {
      const wallets = [];
      for (const apiId of [...new Set(apiIds)]) {
        const w = await trx.selectFrom('wallets').select(['id', 'api_id']).where('api_id', '=', apiId).executeTakeFirst();
        if (!w) throw new RangeError(`no wallet with API ID ${apiId}`);
        wallets.push(w);
      }
      const client = await trx
        .insertInto('oauth_clients')
        .values({ client_id: clientId, secret_hash: hashToken(clientSecret), created_at: BigInt(now), revoked_at: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      const notes: string[] = [];
      let printed: string | undefined;
      for (const w of wallets) {
        await trx.insertInto('oauth_client_wallets').values({ client_id: client.id, wallet_id: w.id }).execute();
        const { secret, created } = await ensureWebhookSecret(trx, masterKey, w.id, fresh, now);
        printed ??= secret;
        if (!created) notes.push(`${w.api_id} keeps its existing webhook secret${secret === printed ? '' : ' (different from the one printed; "satgate webhook-secret rotate" replaces it)'}`);
      }
      return { client_id: clientId, client_secret: clientSecret, webhook_secret: printed!, notes };
    });
  }

  /** Checks client credentials and issues a bearer token; null when the client is unknown, revoked or the secret is wrong. */
  async issueToken(clientId: string, clientSecret: string): Promise<{ access_token: string; expires_in: number } | null> {
    const client = await this.db.kysely
      .selectFrom('oauth_clients')
      .select(['id', 'secret_hash', 'revoked_at'])
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    const matches = constantTimeEqual(hashToken(clientSecret), client?.secret_hash ?? DUMMY_HASH);
    if (!client || !matches || client.revoked_at !== null) return null;
    const now = this.clock();
    const token = newToken(32);
    await this.db.kysely.transaction().execute(async (trx) => {
      // Tokens expired for a day are of no use to anyone: tidy this client's on the way.
      await trx.deleteFrom('oauth_tokens').where('client_id', '=', client.id).where('expires_at', '<', BigInt(now - 86_400_000)).execute();
      await trx
        .insertInto('oauth_tokens')
        .values({ token_hash: hashToken(token), client_id: client.id, created_at: BigInt(now), expires_at: BigInt(now + TOKEN_LIFETIME_SECONDS * 1000) })
        .execute();
    });
    return { access_token: token, expires_in: TOKEN_LIFETIME_SECONDS };
  }

  /**
   * Checks an `Authorization` header value (`Bearer <token>`). With `apiId` (payment creation's), the wallet with
   * that API ID and the client's binding to it come in the same query, as `looked` ({@link LookedUpWallet}).
   */
  async checkBearer(header: string | undefined, apiId?: string): Promise<BearerCheck> {
    const m = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header ?? '');
    if (!header) return { ok: false, reason: 'missing' };
    if (!m) return { ok: false, reason: 'invalid' };
    // Every authenticated request runs this: one hand-written read (db/bearer-reads.ts), which for payment
    // creation's API ID also looks the wallet up (one round trip fewer per creation on PostgreSQL).
    const found = await findBearer(this.db, hashToken(m[1]!), apiId);
    return found.looked ? this.verdict(found.bearer, { apiId: apiId!, found: found.wallet }) : this.verdict(found.bearer);
  }

  private verdict(row: BearerRow | undefined, looked?: LookedUpWallet): BearerCheck {
    if (!row || row.revoked_at !== null) return { ok: false, reason: 'invalid' };
    if (Number(row.expires_at) <= this.clock()) return { ok: false, reason: 'expired' };
    return looked ? { ok: true, clientRowId: row.client_id, looked } : { ok: true, clientRowId: row.client_id };
  }

  /**
   * The wallet with this API ID and whether the client is bound to it, in one query (the creation path
   * asked for them one by one); undefined when no wallet has that API ID.
   */
  walletFor(clientRowId: bigint, apiId: string): Promise<WalletForClient | undefined> {
    return findClientWallet(this.db, clientRowId, apiId);
  }

  /** True when the client may create payments for the wallet. */
  async isBound(clientRowId: bigint, walletId: bigint): Promise<boolean> {
    const row = await this.db.kysely
      .selectFrom('oauth_client_wallets')
      .select('wallet_id')
      .where('client_id', '=', clientRowId)
      .where('wallet_id', '=', walletId)
      .executeTakeFirst();
    return row !== undefined;
  }
}
