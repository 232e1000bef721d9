import type { Kysely, Transaction, Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database, WalletsTable } from '../db/schema.ts';
import { DomainError } from '../core/domain-errors.ts';
import { recordAudit } from '../security/audit.ts';
import { ensureProfile, loginEmail } from './profiles.ts';
import { addOwner } from '../teams/members.ts';

type WalletRow = Selectable<WalletsTable>;

/** An account object (INTERFACE.md 2.8, DESIGN.md 9 "accounts"). */
export interface Account {
  api_id: string;
  account_name: string | null;
  account_type: string | null;
  /** `custodial` when the service holds the keys (new_wallet, partner wallets), else `direct`. */
  settlement_mode: 'direct' | 'custodial';
  local_currency: string;
}

/** How a wallet came to be associated with a profile. */
export type AssociationVia = 'notification_email' | 'operator';

/**
 * The wallets a profile may see and act on, oldest association first. This is the one ownership check:
 * refunds and transaction listings ask it, and a wallet missing here is treated exactly like an unknown one.
 */
export async function profileWallets(db: Db | Kysely<Database> | Transaction<Database>, profileId: bigint): Promise<WalletRow[]> {
  const k = 'kysely' in db ? db.kysely : db;
  return k
    .selectFrom('profile_wallets as pw')
    .innerJoin('wallets as w', 'w.id', 'pw.wallet_id')
    .selectAll('w')
    .where('pw.profile_id', '=', profileId)
    .orderBy('pw.created_at')
    .orderBy('w.id')
    .execute();
}

/** The profile's wallet with this API ID, or undefined when it is unknown or someone else's (indistinguishable). */
export async function profileWalletByApiId(db: Db, profileId: bigint, apiId: string): Promise<WalletRow | undefined> {
  return db.kysely
    .selectFrom('profile_wallets as pw')
    .innerJoin('wallets as w', 'w.id', 'pw.wallet_id')
    .selectAll('w')
    .where('pw.profile_id', '=', profileId)
    .where('w.api_id', '=', apiId)
    .executeTakeFirst();
}

/** The account object of a wallet. */
export function accountOf(w: WalletRow): Account {
  return {
    api_id: w.api_id,
    account_name: w.account_name,
    account_type: w.account_type,
    settlement_mode: w.seed_sealed !== null ? 'custodial' : 'direct',
    local_currency: w.local_currency.toLowerCase(),
  };
}

/** Associates a wallet with a profile (idempotent), the profile an Owner of it (src/teams); returns false when it already was. */
export async function associate(
  trx: Transaction<Database>,
  profileId: bigint,
  walletId: bigint,
  via: AssociationVia,
  now: number,
): Promise<boolean> {
  const inserted = await trx
    .insertInto('profile_wallets')
    .values({ profile_id: profileId, wallet_id: walletId, via, created_at: BigInt(now) })
    .onConflict((oc) => oc.columns(['profile_id', 'wallet_id']).doNothing())
    .executeTakeFirst();
  await addOwner(trx, walletId, profileId, now);
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/**
 * get_accounts with `pubkeys`: associates each key whose wallet was registered with the profile's own
 * (OTP-proven) e-mail as its notification e-mail. Other keys (unknown, or someone else's) are ignored and
 * recorded in the audit trail, never revealed: knowing an extended public key is not proof of ownership.
 */
export async function associateByEmail(
  db: Db,
  profile: { id: bigint; email: string },
  pubkeys: string[],
  ip: string | null,
  now: number,
): Promise<{ associated: string[]; refused: number }> {
  const associated: string[] = [];
  let refused = 0;
  await db.kysely.transaction().execute(async (trx) => {
    for (const pub of new Set(pubkeys)) {
      const wallet = await trx.selectFrom('wallets').select(['id', 'api_id', 'registration_email']).where('pub', '=', pub).executeTakeFirst();
      if (wallet && wallet.registration_email !== null && wallet.registration_email === profile.email) {
        if (await associate(trx, profile.id, wallet.id, 'notification_email', now)) {
          await recordAudit(trx, { action: 'wallet_associated', profileId: profile.id, email: profile.email, ip, detail: { api_id: wallet.api_id, via: 'notification_email' } }, now);
        }
        associated.push(wallet.api_id);
      } else {
        refused += 1;
        // The key's start only: enough for the operator to recognise it, and the audit trail stays small.
        await recordAudit(trx, { action: 'association_refused', profileId: profile.id, email: profile.email, ip, detail: { pub_prefix: pub.slice(0, 16) } }, now);
      }
    }
  });
  return { associated, refused };
}

/**
 * `satgate wallet associate <api_id> <email>`: the operator vouches that the e-mail's owner owns the wallet.
 * Creates the profile when the e-mail has none yet (its owner then logs in with send_otp). 201 for an
 * unknown API ID, 308 for a malformed e-mail.
 */
export async function associateByOperator(db: Db, apiId: string, emailText: string, now: number): Promise<{ created: boolean; profileCreated: boolean }> {
  const email = loginEmail(emailText);
  return db.kysely.transaction().execute(async (trx) => {
    const wallet = await trx.selectFrom('wallets').select(['id', 'api_id']).where('api_id', '=', apiId).executeTakeFirst();
    if (!wallet) throw new DomainError('invalid', `no wallet with api_id ${apiId}`);
    const { profile, created: profileCreated } = await ensureProfile(trx, email, now);
    const created = await associate(trx, profile.id, wallet.id, 'operator', now);
    if (created) await recordAudit(trx, { action: 'wallet_associated', profileId: profile.id, email, ip: null, detail: { api_id: apiId, via: 'operator' } }, now);
    return { created, profileCreated };
  });
}
