/**
 * Sends the scheduled refunds of service-held wallets: one transaction per wallet pays every refund
 * scheduled at that moment. The spend and the refunds' link to it commit in one database transaction,
 * so after a crash a refund is either linked to its (stored, signed) spend, which the broadcaster
 * re-sends, or still unlinked and sent by the next pass: never both, never twice.
 */
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Spending } from '../spending/spending.ts';
import { InsufficientFundsError } from '../spending/spending-errors.ts';

/** Sends scheduled refunds; passes for one wallet never overlap. */
export class RefundSender {
  private readonly chains = new Map<bigint, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(
    private readonly deps: { db: Db; spending: Pick<Spending, 'spend'>; log: Logger; clock: () => number; pollMs: number },
  ) {}

  start(): void {
    this.stopped = false;
    const loop = async () => {
      if (this.stopped) return;
      await this.sendAll().catch((err: Error) => this.deps.log.error({ err: err.message }, 'refund sending failed'));
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.deps.pollMs);
    };
    this.timer = setTimeout(() => void loop(), 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all(this.chains.values());
  }

  /** One pass over every service-held wallet with scheduled, unsent refunds. */
  async sendAll(): Promise<void> {
    const wallets = await this.deps.db.kysely
      .selectFrom('refunds as r')
      .innerJoin('wallets as w', 'w.id', 'r.wallet_id')
      .select('w.id')
      .distinct()
      .where('r.state', '=', 'scheduled')
      .where('r.spend_id', 'is', null)
      .where('w.seed_sealed', 'is not', null)
      .execute();
    for (const w of wallets) await this.sendWallet(w.id);
  }

  /** Sends the wallet's scheduled refunds (queued behind a pass already running for it). */
  sendWallet(walletId: bigint): Promise<void> {
    const previous = this.chains.get(walletId) ?? Promise.resolve();
    const run = previous.then(() => this.sendWalletNow(walletId)).catch((err: Error) => this.deps.log.error({ err: err.message }, 'refund send failed'));
    this.chains.set(walletId, run);
    void run.finally(() => {
      if (this.chains.get(walletId) === run) this.chains.delete(walletId);
    });
    return run;
  }

  private async sendWalletNow(walletId: bigint): Promise<void> {
    const due = await this.deps.db.kysely
      .selectFrom('refunds')
      .select(['id', 'address', 'amount_sats'])
      .where('wallet_id', '=', walletId)
      .where('state', '=', 'scheduled')
      .where('spend_id', 'is', null)
      .where('address', 'is not', null)
      .orderBy('id')
      .execute();
    if (due.length === 0) return;
    try {
      await this.send(walletId, due);
    } catch (err) {
      if (!(err instanceof InsufficientFundsError) || due.length === 1) return this.note(due.map((d) => d.id), err as Error);
      // The batch is too large for the funds: send those that fit, one by one, oldest first, until one does not.
      for (const [i, one] of due.entries()) {
        try {
          await this.send(walletId, [one]);
        } catch (e) {
          await this.note(due.slice(i).map((d) => d.id), e as Error);
          return;
        }
      }
    }
  }

  private async send(walletId: bigint, refunds: { id: bigint; address: string | null; amount_sats: bigint }[]): Promise<void> {
    const ids = refunds.map((r) => r.id);
    await this.deps.spending.spend(
      {
        walletId,
        outputs: refunds.map((r) => ({ address: r.address!, amountSats: r.amount_sats })),
        purpose: 'refund',
        reference: `refunds:${ids.join(',')}`,
      },
      {
        inTransaction: async (trx, spend) => {
          const linked = await trx
            .updateTable('refunds')
            .set({ spend_id: spend.id, last_error: null, updated_at: BigInt(this.deps.clock()) })
            .where('id', 'in', ids)
            .where('spend_id', 'is', null)
            .where('state', '=', 'scheduled')
            .executeTakeFirst();
          // Another process linked one of them first: abandon this spend (the transaction rolls back).
          if (linked.numUpdatedRows !== BigInt(ids.length)) throw new Error('a refund of this batch was sent meanwhile');
        },
      },
    );
  }

  private async note(ids: bigint[], err: Error): Promise<void> {
    this.deps.log.warn({ refunds: ids.map(String), err: err.message }, 'refunds not sent yet; will retry');
    await this.deps.db.kysely.updateTable('refunds').set({ last_error: err.message.slice(0, 500) }).where('id', 'in', ids).execute();
  }
}
