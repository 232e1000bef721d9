// The lookups of every authenticated payment API request (issue 16), written by hand: on SQLite on the read-only
// connection (committed data only, so a revocation counts from its commit), on PostgreSQL as named prepared
// statements; the query builder answers where neither exists (SQLite in memory).
import type { Selectable } from 'kysely';
import { engineHandles, type Db } from './database.ts';
import type { WalletsTable } from './schema.ts';

// As the query builder writes them: SQLite's reader runs them as they are, PostgreSQL with $n parameters.
const BEARER_SQL =
  'select t.client_id, t.expires_at, c.revoked_at from oauth_tokens t join oauth_clients c on c.id = t.client_id where t.token_hash = ?';
const BEARER_SQL_PG = BEARER_SQL.replace('?', '$1');
const WALLET_FOR_SQL =
  'select w.*, b.client_id as bound_client from wallets w left join oauth_client_wallets b on b.wallet_id = w.id and b.client_id = ? where w.api_id = ?';
const WALLET_FOR_SQL_PG = WALLET_FOR_SQL.replace('?', '$1').replace('?', '$2');
// Both in one query, for payment creation: its hook knows the API ID from the body. No wallet column is named
// like the token columns (a test checks), so the wallet row is what remains once they are taken off.
const BEARER_WALLET_SQL =
  'select w.*, t.client_id as token_client, t.expires_at as token_expires_at, c.revoked_at as client_revoked_at, b.client_id as bound_client ' +
  'from oauth_tokens t join oauth_clients c on c.id = t.client_id left join wallets w on w.api_id = ? ' +
  'left join oauth_client_wallets b on b.wallet_id = w.id and b.client_id = t.client_id where t.token_hash = ?';
const BEARER_WALLET_SQL_PG = BEARER_WALLET_SQL.replace('?', '$1').replace('?', '$2');

/** An access token's row: its client, its end, and whether the client was revoked. */
export interface BearerRow {
  client_id: bigint;
  expires_at: bigint;
  revoked_at: bigint | null;
}

/** A wallet and whether a given client is bound to it. */
export interface ClientWallet {
  wallet: Selectable<WalletsTable>;
  bound: boolean;
}

/** What {@link findBearer} read: the token's row, and the wallet of the API ID when it looked that up too. */
export interface FoundBearer {
  bearer: BearerRow | undefined;
  /** Whether `wallet` answers for the API ID asked (only the hand-written reads ask both at once). */
  looked: boolean;
  /** The wallet with that API ID and the token client's binding to it; undefined when none has it. */
  wallet?: ClientWallet | undefined;
}

/**
 * The token with SHA-256 `hash`. With `apiId` (payment creation's), the wallet with that API ID and the client's
 * binding to it come in the same query where the reads are hand-written (`looked`); otherwise the caller asks
 * {@link findClientWallet} once the token checks out.
 */
export async function findBearer(db: Db, hash: string, apiId?: string): Promise<FoundBearer> {
  const { reader, pgNamed } = engineHandles(db);
  if (apiId !== undefined && (reader || pgNamed)) {
    type Found = Selectable<WalletsTable> & { token_client: bigint; token_expires_at: bigint; client_revoked_at: bigint | null; bound_client: bigint | null };
    const row = reader
      ? reader.get<Found>(BEARER_WALLET_SQL, [apiId, hash])
      : (await pgNamed!<Found>('satgate_bearer_wallet', BEARER_WALLET_SQL_PG, [apiId, hash]))[0];
    if (!row) return { bearer: undefined, looked: false };
    const { token_client, token_expires_at, client_revoked_at, bound_client, ...wallet } = row;
    // A left join that found no wallet leaves every wallet column null, its id included.
    const found = wallet.id === null ? undefined : { wallet, bound: bound_client !== null };
    return { bearer: { client_id: token_client, expires_at: token_expires_at, revoked_at: client_revoked_at }, looked: true, wallet: found };
  }
  const bearer = reader
    ? reader.get<BearerRow>(BEARER_SQL, [hash])
    : pgNamed
    ? (await pgNamed<BearerRow>('satgate_bearer_check', BEARER_SQL_PG, [hash]))[0]
    : await db.kysely
        .selectFrom('oauth_tokens as t')
        .innerJoin('oauth_clients as c', 'c.id', 't.client_id')
        .select(['t.client_id', 't.expires_at', 'c.revoked_at'])
        .where('t.token_hash', '=', hash)
        .executeTakeFirst();
  return { bearer, looked: false };
}

/** The wallet with this API ID and whether the client is bound to it, in one query; undefined when no wallet has it. */
export async function findClientWallet(db: Db, clientRowId: bigint, apiId: string): Promise<ClientWallet | undefined> {
  const { reader, pgNamed } = engineHandles(db);
  type Found = Selectable<WalletsTable> & { bound_client: bigint | null };
  const row = reader
    ? reader.get<Found>(WALLET_FOR_SQL, [clientRowId, apiId])
    : pgNamed
    ? (await pgNamed<Found>('satgate_wallet_for', WALLET_FOR_SQL_PG, [clientRowId, apiId]))[0]
    : await db.kysely
        .selectFrom('wallets as w')
        .leftJoin('oauth_client_wallets as b', (join) => join.onRef('b.wallet_id', '=', 'w.id').on('b.client_id', '=', clientRowId))
        .selectAll('w')
        .select('b.client_id as bound_client')
        .where('w.api_id', '=', apiId)
        .executeTakeFirst();
  if (!row) return undefined;
  const { bound_client, ...wallet } = row;
  return { wallet, bound: bound_client !== null };
}
