// Webhook signing secrets, one per wallet, sealed with the master key. Rotation keeps the previous
// secret valid for 24 h, during which deliveries carry a signature with each (DESIGN.md section 7).
import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { MasterKey } from '../security/master-key.ts';

/** How long a rotated-out secret still signs deliveries. */
export const PREVIOUS_SECRET_OVERLAP_MS = 24 * 3_600_000;

/** A new webhook secret: `whsec_` and 32 random bytes, base64url. The HMAC key is this whole string. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The wallet's current webhook secret, or undefined when it has none. */
export async function currentWebhookSecret(db: Kysely<Database> | Transaction<Database>, masterKey: MasterKey, walletId: bigint): Promise<string | undefined> {
  const row = await db.selectFrom('webhook_secrets').select('secret_sealed').where('wallet_id', '=', walletId).executeTakeFirst();
  return row ? masterKey.unseal(row.secret_sealed).toString('utf8') : undefined;
}

/** Gives the wallet `secret` when it has no secret yet; returns the secret the wallet now signs with. */
export async function ensureWebhookSecret(
  trx: Transaction<Database>,
  masterKey: MasterKey,
  walletId: bigint,
  secret: string,
  now: number,
): Promise<{ secret: string; created: boolean }> {
  const existing = await currentWebhookSecret(trx, masterKey, walletId);
  if (existing !== undefined) return { secret: existing, created: false };
  await trx
    .insertInto('webhook_secrets')
    .values({ wallet_id: walletId, secret_sealed: masterKey.seal(secret), previous_secret_sealed: null, previous_valid_until: null, rotated_at: BigInt(now) })
    .execute();
  return { secret, created: true };
}

/** Replaces the wallet's secret with a new one; the old one keeps signing for 24 h. Returns the new secret. */
export async function rotateWebhookSecret(trx: Transaction<Database>, masterKey: MasterKey, walletId: bigint, now: number): Promise<string> {
  const secret = newWebhookSecret();
  const row = await trx.selectFrom('webhook_secrets').selectAll().where('wallet_id', '=', walletId).executeTakeFirst();
  if (!row) {
    await ensureWebhookSecret(trx, masterKey, walletId, secret, now);
    return secret;
  }
  await trx
    .updateTable('webhook_secrets')
    .set({
      secret_sealed: masterKey.seal(secret),
      previous_secret_sealed: row.secret_sealed,
      previous_valid_until: BigInt(now + PREVIOUS_SECRET_OVERLAP_MS),
      rotated_at: BigInt(now),
    })
    .where('wallet_id', '=', walletId)
    .execute();
  return secret;
}
