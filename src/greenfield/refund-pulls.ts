// Refunds' pull payments (POST …/pull-payments with a refund's name, pull-payments.ts) as BTCPay lists them: in
// BTCPay a refund is a pull payment like any other, so GET …/stores/{id}/pull-payments lists them beside the
// general ones and GET /api/v1/pull-payments/{id} answers them. Their viewLink is the refund's own page (the
// token is kept sealed); a refund is never archived (its page stays until it is paid).
import type { Db } from '../db/database.ts';
import type { MasterKey } from '../security/master-key.ts';
import { btcFromSats } from '../money/money.ts';
import { ONCHAIN_PAYMENT_METHOD_ID } from './webhook-events.ts';

/** A refund's pull payment in BTCPay's PullPaymentData shape, with its creation time (ms) for ordering. */
export interface RefundPull {
  createdAt: bigint;
  data: Record<string, unknown>;
}

/** Reads the refunds' pull payments. */
export interface RefundPulls {
  list(walletId: bigint): Promise<RefundPull[]>;
  get(publicId: string, walletId?: bigint): Promise<Record<string, unknown> | undefined>;
}

export function refundPulls(deps: { db: Db; masterKey: MasterKey; publicUrl: string }): RefundPulls {
  const base = () =>
    deps.db.kysely
      .selectFrom('greenfield_pull_payments as g')
      .innerJoin('refunds as r', 'r.id', 'g.refund_id')
      .innerJoin('greenfield_invoices as i', 'i.payment_id', 'g.payment_id')
      .select(['g.public_id', 'g.wallet_id', 'g.name', 'g.description', 'g.amount', 'g.currency', 'g.created_at', 'r.token_sealed', 'r.credit_txid', 'r.amount_sats', 'i.invoice_id']);
  type Row = Awaited<ReturnType<ReturnType<typeof base>['executeTakeFirstOrThrow']>>;
  const data = (r: Row): Record<string, unknown> => ({
    id: r.public_id,
    name: r.name,
    description: r.description,
    currency: r.currency,
    amount: r.amount,
    period: null,
    BOLT11Expiration: 30,
    autoApproveClaims: false,
    archived: false,
    viewLink: `${deps.publicUrl}/refund/${deps.masterKey.unseal(r.token_sealed).toString('utf8')}`,
    startsAt: Math.floor(Number(r.created_at) / 1000),
    expiresAt: null,
    payoutMethods: [ONCHAIN_PAYMENT_METHOD_ID],
    invoiceId: r.invoice_id,
    refundedTransactionId: r.credit_txid,
    refundAmountBtc: btcFromSats(r.amount_sats, true),
  });
  return {
    async list(walletId) {
      const rows = await base().where('g.wallet_id', '=', walletId).orderBy('g.id').execute();
      return rows.map((r) => ({ createdAt: r.created_at, data: data(r) }));
    },
    async get(publicId, walletId) {
      let q = base().where('g.public_id', '=', publicId);
      if (walletId !== undefined) q = q.where('g.wallet_id', '=', walletId);
      const row = await q.executeTakeFirst();
      return row ? data(row) : undefined;
    },
  };
}
