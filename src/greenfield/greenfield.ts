// The Greenfield capability as the app context holds it: keys, invoices, and what the routes read of the chains.
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import type { Payments } from '../payments/payments.ts';
import type { WalletRepository } from '../wallets/wallet-repository.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { ChainId } from '../chain/chain-id.ts';
import type { FollowerHealth } from '../chain/chain-source.ts';
import type { Spending } from '../spending/spending.ts';
import type { AddressIssuer } from '../wallets/address-issuer.ts';
import { GreenfieldKeys } from './api-keys.ts';
import { GreenfieldInvoices } from './invoices.ts';
import { GreenfieldReports } from './reports.ts';
import type { PaymentRequests } from '../payment-requests/payment-requests.ts';
import type { PosApps } from '../pos/pos-apps.ts';
import { posInvoiceMetadata } from './apps.ts';

/** Greenfield compatibility services. */
export interface Greenfield {
  keys: GreenfieldKeys;
  invoices: GreenfieldInvoices;
  reports: GreenfieldReports;
  /** Payment requests (src/requests), answered in BTCPay's payment-request shapes. */
  requests: PaymentRequests;
  /** Point of sale apps (src/pos), answered in BTCPay's apps shapes. */
  pos: PosApps;
  /** Whether a currency code has a rate here. */
  isSupportedCurrency(code: string): boolean;
  repo: WalletRepository;
  config: { publicUrl: string; monitorWindowMs: number };
  /** Whether the chain of a wallet mode is synched, and its tip height. */
  chainSync(mode: string): Promise<ChainSync>;
  /** The wallet modes whose chains this process follows. */
  chainModes(): string[];
  db: Db;
  clock: Clock;
  /** The store wallet's spends (service-held wallets) and its receive addresses (the issuer's gap-limit rule). */
  spending: Spending;
  issuer: AddressIssuer;
}

/** What building it needs. */
export interface GreenfieldDeps {
  db: Db;
  clock: Clock;
  config: { publicUrl: string; monitorWindowMs: number };
  payments: Payments;
  repo: WalletRepository;
  chains: ChainService;
  isSupportedCurrency(code: string): boolean;
  spending: Spending;
  issuer: AddressIssuer;
  requests: PaymentRequests;
  pos: PosApps;
}

/** A chain's sync state as server info reports it. */
export interface ChainSync {
  synched: boolean;
  height: number | null;
}

/** How long a tip may stand still before a process without its own watcher stops calling the chain synched. */
const TIP_SILENCE_MS = 3 * 3_600_000;

/**
 * The watcher's own state when it runs in this process (it has polled, has a tip, is not stalled, no error);
 * otherwise (a web process of a scaled-out deployment, where another process holds the watchers) the stored tip,
 * synched when it moved within the watcher's own stall threshold.
 */
async function chainSync(deps: GreenfieldDeps, mode: string): Promise<ChainSync> {
  const health: FollowerHealth | undefined = deps.chains.get(mode as ChainId)?.watcher.health();
  if (health !== undefined && health.polls > 0) {
    return { synched: health.ok && health.tipHeight !== null && health.error === null, height: health.tipHeight };
  }
  if (health === undefined) return { synched: false, height: null };
  const tip = await deps.db.kysely.selectFrom('chain_tips').select(['tip_height', 'updated_at']).where('chain', '=', mode).executeTakeFirst();
  if (!tip) return { synched: false, height: null };
  return { synched: deps.clock() - Number(tip.updated_at) < TIP_SILENCE_MS, height: Number(tip.tip_height) };
}

/** Builds the capability. */
export function createGreenfield(deps: GreenfieldDeps): Greenfield {
  const invoices = new GreenfieldInvoices(deps);
  // A point of sale's charge is an invoice of its store, with BTCPay's app metadata (posData, itemCode).
  deps.pos.onCharge((trx, c) => invoices.recordAppInvoice(trx, c.wallet, c.payment, posInvoiceMetadata(c.view, c.cart, Number(c.payment.created_at))));
  return {
    keys: new GreenfieldKeys(deps.db, deps.clock),
    invoices,
    reports: new GreenfieldReports(deps),
    requests: deps.requests,
    pos: deps.pos,
    isSupportedCurrency: (code) => deps.isSupportedCurrency(code),
    repo: deps.repo,
    config: deps.config,
    chainSync: (mode) => chainSync(deps, mode),
    chainModes: () => deps.chains.all().map((c) => c.id),
    db: deps.db,
    clock: deps.clock,
    spending: deps.spending,
    issuer: deps.issuer,
  };
}
