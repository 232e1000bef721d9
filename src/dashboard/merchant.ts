// What a signed-in merchant reads and does beyond operations 18 to 24: wallets with balances, adding and
// editing wallets, the list and detail of payments and orders, redelivery of notifications, the received-per-day
// chart and the login history. The dashboard API's routes (merchant-routes.ts) and the web console both call it.
import type { Db } from '../db/database.ts';
import { DomainError } from '../core/domain-errors.ts';
import type { Rates } from '../rates/rates-port.ts';
import type { RegistrationDeps } from '../wallets/wallet-registration.ts';
import { redeliver } from '../notify/deliveries.ts';
import type { DashboardSession } from './sessions.ts';
import { addWallet, updateWallet, walletOverview, walletOverviews, type AddedWallet, type AddWalletInput, type WalletOverview, type WalletSettings } from './merchant-wallets.ts';
import { listOrders, orderDetail, type OrderDetail, type OrderListQuery, type OrderPage } from './merchant-orders.ts';
import { receivedPerDay, type ReceivedPerDay } from './received-per-day.ts';
import type { AuditRecord } from '../security/audit.ts';
import { openReport, type ReportQuery, type WalletReport } from './merchant-reports.ts';

/** What the merchant views need. */
export interface MerchantDeps {
  db: Db;
  clock: () => number;
  rates: Pick<Rates, 'spot'>;
  registration: RegistrationDeps;
  /** Runs an outbox round now (after a redelivery was queued). */
  wakeOutbox(): void;
}

/** The audit actions that make up a profile's login history. */
export const LOGIN_ACTIONS = ['otp_sent', 'otp_failed', 'otp_locked', 'login', 'login_refused', 'logout', 'rate_limited', 'login_locked', 'login_unlocked'];

/** The merchant views of the dashboard. */
export interface Merchant {
  wallets(session: DashboardSession): Promise<WalletOverview[]>;
  wallet(session: DashboardSession, apiId: string): Promise<WalletOverview>;
  /** Adds a wallet by key (or `new_wallet`); a key already the profile's (or registered with its e-mail) takes the name and currency given. */
  addWallet(session: DashboardSession, input: AddWalletInput, ip: string | null): Promise<AddedWallet>;
  updateWallet(session: DashboardSession, apiId: string, settings: WalletSettings, ip: string | null): Promise<void>;
  orders(session: DashboardSession, query: OrderListQuery): Promise<OrderPage>;
  order(session: DashboardSession, kind: string, id: string): Promise<OrderDetail>;
  /** Queues an event of one of the profile's orders again; 999 when the order or event is not theirs. */
  redeliver(session: DashboardSession, kind: string, id: string, eventId: string): Promise<void>;
  receivedPerDay(session: DashboardSession, apiId: string, days?: number): Promise<ReceivedPerDay>;
  /** The profile's logins, newest first (sign-in codes, logins, refusals, logouts). */
  loginHistory(session: DashboardSession, limit?: number): Promise<AuditRecord[]>;
  /** The ledger of one of the profile's wallets over a period, brought up to date first; 999 when the wallet is not theirs. */
  report(session: DashboardSession, query: ReportQuery): Promise<WalletReport>;
}

/** Builds the merchant views. */
export function createMerchant(deps: MerchantDeps): Merchant {
  const { db } = deps;
  const profile = (s: DashboardSession) => ({ id: s.profileId, email: s.email });
  return {
    wallets: (s) => walletOverviews(deps, s.profileId),
    wallet: (s, apiId) => walletOverview(deps, s.profileId, apiId),
    addWallet: (s, input, ip) => addWallet(deps, profile(s), input, ip),
    updateWallet: (s, apiId, settings, ip) => updateWallet(deps, profile(s), apiId, settings, ip),
    orders: (s, query) => listOrders(db, s.profileId, query),
    order: (s, kind, id) => orderDetail(db, s.profileId, kind, id),
    async redeliver(s, kind, id, eventId) {
      const order = await orderDetail(db, s.profileId, kind, id);
      if (!order.deliveries.some((d) => d.event_id === eventId)) throw new DomainError('not-found', 'No such notification for this order');
      const filter = kind === 'payment' ? { paymentId: BigInt(id) } : { orderKind: kind === 'form' ? ('form' as const) : ('address' as const), orderId: BigInt(id) };
      await redeliver(db, filter, deps.clock(), eventId);
      deps.wakeOutbox();
    },
    receivedPerDay: (s, apiId, days) => receivedPerDay(deps, s.profileId, apiId, days),
    report: (s, query) => openReport(deps, s.profileId, query),
    async loginHistory(s, limit = 50) {
      const rows = await db.kysely
        .selectFrom('audit_events')
        .select(['at', 'action', 'email', 'ip', 'detail_json'])
        .where((eb) => eb.or([eb('profile_id', '=', s.profileId), eb('email', '=', s.email)]))
        .where('action', 'in', LOGIN_ACTIONS)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => ({ at: Number(r.at), action: r.action, email: r.email, ip: r.ip, detail: r.detail_json ? (JSON.parse(r.detail_json) as Record<string, unknown>) : null }));
    },
  };
}
