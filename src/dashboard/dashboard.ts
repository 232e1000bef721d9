import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import { DomainError } from '../core/domain-errors.ts';
import type { MasterKey } from '../security/master-key.ts';
import { RateLimiter } from '../security/rate-limiter.ts';
import { Sessions, type DashboardSession } from './sessions.ts';
import { Login, type CheckOtpInput, type SendOtpInput } from './login.ts';
import { accountOf, associateByEmail, associateByOperator, profileWalletByApiId, profileWallets, type Account } from './accounts.ts';
import { applyProfileChanges, findProfile, profileChanges, profileView, type ProfileField } from './profiles.ts';
import { listAudit, recordAudit, type AuditRecord } from '../security/audit.ts';

/** What the dashboard needs from the rest of the service. */
export interface DashboardDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  masterKey: MasterKey;
  /** The service's public base URL (named in login mails). */
  publicUrl: string;
  /** Operation 5's transaction objects for a registered key (the wallet monitor). */
  walletTransactions(pub: string): Promise<unknown[]>;
}

/** The merchant dashboard (operations 18 to 23), for its route plugin, the CLI and refunds. */
export interface Dashboard {
  /** Session tokens; also the verifier the dashboard authentication hook (http/dashboard-auth.ts) uses. */
  sessions: Sessions;
  /** Operation 18. */
  sendOtp(input: SendOtpInput, ip: string | null): Promise<void>;
  /** Until when the e-mail's last sign-in code is still usable (epoch ms), or null (see Login.openCodeUntil). */
  openCodeUntil(email: string): Promise<number | null>;
  /** Operation 19: the session token and when it expires (epoch ms). */
  checkOtp(input: CheckOtpInput, ip: string | null): Promise<{ token: string; expiresAt: number }>;
  /** Operation 20. */
  getProfile(session: DashboardSession): Promise<ReturnType<typeof profileView>>;
  /** Operation 21: empty values unset a field. */
  updateProfile(session: DashboardSession, fields: Partial<Record<ProfileField, string>>, ip: string | null): Promise<void>;
  /** Operation 22: associates `pubkeys` proven by the profile's e-mail, then lists the profile's accounts. */
  getAccounts(session: DashboardSession, pubkeys: string[] | undefined, ip: string | null): Promise<Account[]>;
  /** Operation 23: op 5's transactions of one of the profile's wallets; 303 for any other API ID. */
  transactions(session: DashboardSession, apiId: string): Promise<unknown[]>;
  /** Operation 5 (no token): the transactions of the wallet registered with this key. */
  publicTransactions(pub: string): Promise<unknown[]>;
  /** POST /logout. */
  logout(session: DashboardSession, ip: string | null): Promise<void>;
  /** `satgate wallet associate`: the operator vouches that the e-mail's owner owns the wallet. */
  associateByOperator(apiId: string, email: string): Promise<{ created: boolean; profileCreated: boolean }>;
  /** `satgate audit`. */
  audit(opts?: { email?: string; limit?: number }): Promise<AuditRecord[]>;
  /** The wallets a profile may act on (the ownership check refunds use). */
  profileWallets(profileId: bigint): ReturnType<typeof profileWallets>;
}

/** Builds the dashboard services from explicit dependencies. */
export function createDashboard(deps: DashboardDeps): Dashboard {
  const { db, clock } = deps;
  const sessions = new Sessions(db, clock);
  const login = new Login({ db, clock, log: deps.log, masterKey: deps.masterKey, sessions, limiter: new RateLimiter(db), publicUrl: deps.publicUrl });
  return {
    sessions,
    sendOtp: (input, ip) => login.sendOtp(input, ip),
    checkOtp: (input, ip) => login.checkOtp(input, ip),
    openCodeUntil: (email) => login.openCodeUntil(email),
    async getProfile(session) {
      const profile = await findProfile(db, session.profileId);
      if (!profile) throw new DomainError('profile-not-found', 'Profile not found');
      return profileView(profile);
    },
    async updateProfile(session, fields, ip) {
      const changes = profileChanges(fields);
      const now = clock();
      await db.kysely.transaction().execute(async (trx) => {
        const changed = await applyProfileChanges(trx, session.profileId, changes, now);
        if (changed.length > 0) await recordAudit(trx, { action: 'profile_updated', profileId: session.profileId, email: session.email, ip, detail: { fields: changed } }, now);
      });
    },
    async getAccounts(session, pubkeys, ip) {
      if (pubkeys && pubkeys.length > 0) {
        const { refused } = await associateByEmail(db, { id: session.profileId, email: session.email }, pubkeys, ip, clock());
        if (refused > 0) deps.log.info({ profile_id: String(session.profileId), refused }, 'get_accounts ignored keys not proven by the profile e-mail');
      }
      return (await profileWallets(db, session.profileId)).map(accountOf);
    },
    async transactions(session, apiId) {
      const wallet = await profileWalletByApiId(db, session.profileId, apiId);
      // Someone else's wallet and an unknown API ID answer alike: a session learns nothing about other wallets.
      if (!wallet) throw new DomainError('token-invalid', 'Token invalid for this API ID');
      return deps.walletTransactions(wallet.pub);
    },
    publicTransactions: (pub) => deps.walletTransactions(pub),
    async logout(session, ip) {
      const now = clock();
      await sessions.end(session.sessionId);
      await recordAudit(db.kysely, { action: 'logout', profileId: session.profileId, email: session.email, ip }, now);
    },
    associateByOperator: (apiId, email) => associateByOperator(db, apiId, email, clock()),
    audit: (opts) => listAudit(db, opts),
    profileWallets: (profileId) => profileWallets(db, profileId),
  };
}
