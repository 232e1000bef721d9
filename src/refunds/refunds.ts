/**
 * Refunds (INTERFACE.md 2.10, 3.2, operations 24 and 25; DESIGN.md section 9 "refunds"): the one factory
 * routes use. Service-held wallets send scheduled refunds themselves through the spending capability;
 * watch-only wallets get a PSBT and post the signed transaction back.
 */
import type { Logger } from 'pino';
import type { Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { MasterKey } from '../security/master-key.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';
import type { Spending } from '../spending/spending.ts';
import type { SpendRow } from '../spending/spend-store.ts';
import { btcFromSats } from '../money/money.ts';
import { DomainError } from '../core/domain-errors.ts';
import { requestRefund, type RefundForm, type RefundRequestInput } from './refund-requests.ts';
import { findByToken, refundView, setRefundAddress, type RefundView } from './refund-address.ts';
import { RefundSender } from './refund-sender.ts';
import { refundPsbt, submitSignedRefund } from './watch-only-refunds.ts';
import { publicStatus, transitionRefund, type RefundState } from './refund-transitions.ts';
import type { Lifecycle } from '../core/lifecycle.ts';

type Trx = Transaction<Database>;

/** What refunds need from the process. */
export interface RefundsDeps {
  db: Db;
  log: Logger;
  clock: () => number;
  masterKey: MasterKey;
  chains: Pick<ChainService, 'forMode' | 'watch'>;
  spending: Pick<Spending, 'spend' | 'feeRate' | 'recordExternal' | 'onStatus'>;
  /** The one ownership check (dashboard): the wallets a profile may act on. */
  profileWallets(profileId: bigint, trx?: Trx): Promise<WalletRow[]>;
  publicUrl: string;
  feeCapSats: bigint;
  pollMs: number;
}

/** One refund as the dashboard lists it. */
export interface RefundListing {
  refund_id: string;
  api_id: string;
  refunded_tx_id: string;
  refund_amount: string;
  refund_addr: string;
  status: 'Scheduled' | 'Processing';
  state: string;
  tx_id: string;
  confirmations: number;
}

/** The refunds capability. */
export interface Refunds {
  request(profileId: bigint, input: RefundRequestInput, idempotencyKey?: string): Promise<RefundForm>;
  /** Op 25; `languageOf` gives the payer's page language for the wallet's default, recorded for the payer's mail. */
  setAddress(token: unknown, address: unknown, languageOf?: (merchantDefault: string | null) => string): Promise<{ status: 'Scheduled' | 'Processing'; tx_id: string }>;
  /** The merchant's default language of the refund's wallet (the refund page's choice after the payer's own); null: none. */
  merchantLanguage(token: string): Promise<string | null>;
  /** The page's view of a form token, or undefined for an unknown one. */
  view(token: unknown): Promise<RefundView | undefined>;
  list(profileId: bigint): Promise<RefundListing[]>;
  psbt(profileId: bigint, apiId: unknown): ReturnType<typeof refundPsbt>;
  submitSigned(profileId: bigint, apiId: unknown, signed: unknown): ReturnType<typeof submitSignedRefund>;
  /** Sends every scheduled refund of service-held wallets now (the background loop does it too). */
  sendScheduled(): Promise<void>;
  /** The refund sender's loop (singleton work). */
  background: Lifecycle;
}

const SPEND_TO_REFUND: Record<string, { to: RefundState; cause: 'broadcast' | 'confirmed' | 'send_failed' | 'unconfirmed' } | undefined> = {
  broadcast: { to: 'processing', cause: 'broadcast' },
  confirmed: { to: 'confirmed', cause: 'confirmed' },
  failed: { to: 'scheduled', cause: 'send_failed' },
};

/** Builds the refunds capability and follows its spends. */
export function createRefunds(deps: RefundsDeps): Refunds {
  const sender = new RefundSender({ db: deps.db, spending: deps.spending, log: deps.log, clock: deps.clock, pollMs: deps.pollMs });
  const watchOnly = { db: deps.db, chains: deps.chains, spending: deps.spending, clock: deps.clock, feeCapSats: deps.feeCapSats };

  // A refund follows its spend: Processing once broadcast, confirmed with it, back to Scheduled (unlinked,
  // to be sent again) when the chain took its coins for another transaction.
  deps.spending.onStatus(async (trx: Trx, spend: SpendRow, from: string, to: string) => {
    if (spend.purpose !== 'refund') return;
    const refunds = await trx.selectFrom('refunds').selectAll().where('spend_id', '=', spend.id).execute();
    for (const r of refunds) {
      let step = SPEND_TO_REFUND[to];
      if (to === 'broadcast' && from === 'confirmed') step = { to: 'processing', cause: 'unconfirmed' };
      if (!step) continue;
      if (to === 'failed') await trx.updateTable('refunds').set({ spend_id: null, last_error: spend.last_error }).where('id', '=', r.id).execute();
      if (r.state === step.to) continue;
      await transitionRefund(trx, r, step.to, step.cause, deps.clock(), { refundTxid: spend.txid });
    }
  });

  async function ownedWallet(profileId: bigint, apiId: unknown): Promise<WalletRow> {
    if (typeof apiId !== 'string' || apiId === '') throw new DomainError('invalid', 'Wrong or missing argument: api_id must be the API ID of one of your wallets');
    const wallet = (await deps.profileWallets(profileId)).find((w) => w.api_id === apiId);
    // Someone else's wallet reads exactly like an unknown one (DESIGN.md section 9, op 23).
    if (!wallet) throw new DomainError('token-invalid', 'Token invalid');
    return wallet;
  }

  return {
    request: (profileId, input, key) =>
      requestRefund({ db: deps.db, masterKey: deps.masterKey, clock: deps.clock, publicUrl: deps.publicUrl, profileWallets: (id, trx) => deps.profileWallets(id, trx) }, profileId, input, key),
    async setAddress(token, address, languageOf) {
      const refund = await setRefundAddress(deps.db, deps.clock, token, address, languageOf);
      const held = await deps.db.kysely.selectFrom('wallets').select('seed_sealed').where('id', '=', refund.wallet_id).executeTakeFirstOrThrow();
      // Service-held wallets send at once; a failure here leaves the refund Scheduled for the background loop.
      if (held.seed_sealed !== null) await sender.sendWallet(refund.wallet_id);
      const now = await deps.db.kysely.selectFrom('refunds').selectAll().where('id', '=', refund.id).executeTakeFirstOrThrow();
      const view = await refundView(deps.db, now);
      return { status: view.status, tx_id: view.tx_id };
    },
    async merchantLanguage(token) {
      const refund = await findByToken(deps.db, token);
      if (!refund) return null;
      const wallet = await deps.db.kysely.selectFrom('wallets').select('default_language').where('id', '=', refund.wallet_id).executeTakeFirst();
      return wallet?.default_language ?? null;
    },
    async view(token) {
      const refund = await findByToken(deps.db, token);
      return refund ? refundView(deps.db, refund) : undefined;
    },
    async list(profileId) {
      const wallets = await deps.profileWallets(profileId);
      if (wallets.length === 0) return [];
      const rows = await deps.db.kysely
        .selectFrom('refunds as r')
        .innerJoin('wallets as w', 'w.id', 'r.wallet_id')
        .leftJoin('spends as s', 's.id', 'r.spend_id')
        .leftJoin('chain_txs as t', (j) => j.onRef('t.txid', '=', 's.txid').onRef('t.chain', '=', 'w.mode'))
        .leftJoin('chain_tips as tip', 'tip.chain', 'w.mode')
        .select(['r.id', 'w.api_id', 'r.credit_txid', 'r.amount_sats', 'r.address', 'r.state', 's.txid', 't.state as tx_state', 't.block_height', 'tip.tip_height'])
        .where('r.wallet_id', 'in', wallets.map((w) => w.id))
        .orderBy('r.id', 'desc')
        .execute();
      return rows.map((r) => ({
        refund_id: r.id.toString(),
        api_id: r.api_id,
        refunded_tx_id: r.credit_txid,
        refund_amount: btcFromSats(r.amount_sats),
        refund_addr: r.address ?? '',
        status: publicStatus(r.state),
        state: r.state,
        tx_id: r.state === 'processing' || r.state === 'confirmed' ? (r.txid ?? '') : '',
        confirmations: r.tx_state === 'block' && r.block_height !== null && r.tip_height !== null ? Number(r.tip_height - r.block_height + 1n) : 0,
      }));
    },
    psbt: async (profileId, apiId) => refundPsbt(watchOnly, await ownedWallet(profileId, apiId)),
    submitSigned: async (profileId, apiId, signed) => submitSignedRefund(watchOnly, await ownedWallet(profileId, apiId), signed),
    sendScheduled: () => sender.sendAll(),
    background: { start: () => sender.start(), stop: () => sender.stop() },
  };
}
