// The Greenfield webhooks capability (and the pull-payment refunds beside it) as the app context holds it:
// the webhook store, their deliveries, the event generator wired to the chains, invoice creation and manual
// marking, and the expiry sweep the singleton runs.
import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import type { ChainChangeListener } from '../chain/chain-events.ts';
import type { Lifecycle } from '../core/lifecycle.ts';
import { PeriodicTask } from '../core/periodic-task.ts';
import { toPlain } from '../money/canonical-json.ts';
import { parseExactJson } from '../money/exact-json.ts';
import type { Greenfield } from './greenfield.ts';
import { paymentMethodJson } from './invoice-json.ts';
import { WebhookStore } from './webhook-store.ts';
import { WebhookDeliveries } from './webhook-deliveries.ts';
import { WebhookGenerator, type InvoiceReader } from './webhook-generator.ts';
import type { GreenfieldPayment, GreenfieldStatus } from './webhook-events.ts';
import { createPullPayment, type PullPaymentRequest } from './pull-payments.ts';
import { GreenfieldPayouts } from './payouts.ts';
import { GreenfieldPayoutPsbts } from './payout-psbt.ts';
import { refundPulls } from './refund-pulls.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { Spending } from '../spending/spending.ts';

type Trx = Transaction<Database>;

/** How often the expiry sweep looks for invoices to expire. */
export const EXPIRY_SWEEP_MS = 5_000;
/** How often approved payouts not yet paid are tried again. */
export const PAYOUT_RETRY_MS = 60_000;

/** Greenfield webhooks and pull payments. */
export interface GreenfieldHooks {
  store: WebhookStore;
  deliveries: WebhookDeliveries;
  generator: WebhookGenerator;
  /** General pull payments and their payouts. */
  payouts: GreenfieldPayouts;
  /** Approved payouts of watch-only wallets as a PSBT to sign, and the signed transaction posted back. */
  payoutPsbts: GreenfieldPayoutPsbts;
  /** POST …/pull-payments: a refund of one of the store's invoices. */
  createPullPayment(walletId: bigint, req: PullPaymentRequest): Promise<Record<string, unknown>>;
  /** Wakes the outbox worker (after a redelivery was queued). */
  wake(): void;
  /** The expiry sweep (singleton work). */
  background: Lifecycle;
  /** The generator's chain listener; the context registers it after the payment status machine's. */
  onChainChange: ChainChangeListener;
}

/** What building it needs. */
export interface GreenfieldHooksDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  masterKey: MasterKey;
  greenfield: Pick<Greenfield, 'invoices'>;
  publicUrl: string;
  allowPrivateWebhooks: boolean;
  /** Pays approved payouts of service-held wallets. */
  spending: Pick<Spending, 'spend' | 'onStatus' | 'feeRate' | 'recordExternal'>;
  /** Builds watch-only wallets' payout PSBTs (their coins' previous transactions) and watches their change. */
  chains: Pick<ChainService, 'forMode' | 'watch'>;
  /** Largest fee accepted on a posted payout transaction (the refunds' cap), satoshis. */
  feeCapSats: bigint;
  /** Wakes the outbox worker after a transaction that queued deliveries committed. */
  wake(): void;
}

/** Builds the capability; its chain listener must run after the payment status machine's (see app/create-context.ts). */
export function createGreenfieldHooks(deps: GreenfieldHooksDeps): GreenfieldHooks {
  const { db, clock, greenfield } = deps;
  const read: InvoiceReader = async (trx: Trx, paymentId: bigint) => {
    const row = await trx.selectFrom('greenfield_invoices').selectAll().where('payment_id', '=', paymentId).executeTakeFirst();
    if (!row) return undefined;
    const view = await greenfield.invoices.view(row, trx);
    const method = paymentMethodJson(view.payment, view.address, view.outputs, view.required);
    const listed = method.payments as GreenfieldPayment[];
    const payments = view.outputs
      .map((o, i) => ({ output: o, payment: listed[i]! }))
      .filter(({ output }) => !output.withdrawn && output.sats > 0n)
      .map(({ output, payment }) => ({ payment, settled: output.confirmations >= view.required }));
    return {
      walletId: row.wallet_id,
      ref: { storeId: row.store_id, invoiceId: row.invoice_id, metadata: toPlain(parseExactJson(row.metadata_json)) as Record<string, unknown> },
      facts: { status: view.status.status as GreenfieldStatus, additionalStatus: view.status.additionalStatus, payments },
      expiryAt: Number(view.payment.expiry_at),
    };
  };
  const generator = new WebhookGenerator(db, read);
  greenfield.invoices.onCreated(async (trx, _invoice, payment) => {
    await generator.announce(trx, payment.id, clock());
  });
  greenfield.invoices.onMarked(async (trx, view) => {
    await generator.announce(trx, view.payment.id, clock());
  });
  const sweeper = new PeriodicTask(
    async () => {
      if ((await generator.sweep(clock())) > 0) deps.wake();
    },
    { everyMs: EXPIRY_SWEEP_MS, firstDelayMs: EXPIRY_SWEEP_MS, onError: (err) => deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'greenfield expiry sweep failed; will retry') },
  );
  const payouts = new GreenfieldPayouts({ db, clock, log: deps.log, spending: deps.spending, publicUrl: deps.publicUrl, wake: () => deps.wake(), refunds: refundPulls({ db, masterKey: deps.masterKey, publicUrl: deps.publicUrl }) });
  // Approved payouts whose payment failed (funds, fee, a spend the chain dropped) are paid again.
  const payer = new PeriodicTask(() => payouts.payDue(), {
    everyMs: PAYOUT_RETRY_MS,
    firstDelayMs: PAYOUT_RETRY_MS,
    onError: (err) => deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'payout payment pass failed; will retry'),
  });
  const payoutPsbts = new GreenfieldPayoutPsbts({ db, clock, chains: deps.chains, spending: deps.spending, feeCapSats: deps.feeCapSats, wake: () => deps.wake() });
  return {
    payouts,
    payoutPsbts,
    store: new WebhookStore(db, deps.masterKey, clock, deps.allowPrivateWebhooks),
    deliveries: new WebhookDeliveries(db, clock),
    generator,
    createPullPayment: (walletId, req) => createPullPayment({ db, masterKey: deps.masterKey, clock, publicUrl: deps.publicUrl }, walletId, req),
    wake: () => deps.wake(),
    background: {
      start: () => {
        sweeper.start();
        payer.start();
      },
      stop: async () => {
        await sweeper.stop();
        await payer.stop();
      },
    },
    onChainChange: generator.onChainChange,
  };
}
