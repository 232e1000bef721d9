// Sends confirmed withdrawals: one transaction per withdrawal, from the merchant's wallet to the partner's
// settlement address, through the spending capability (coin selection, reservation, signing, broadcast).
// The spend is keyed by the withdrawal ID, so a retry after a crash answers the spend already made, and
// the withdrawal is linked to it in the very transaction that stores it.
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Spending } from '../spending/spending.ts';
import { InsufficientFundsError, SpendRefusedError, WatchOnlyWalletError } from '../spending/spending-errors.ts';
import type { Withdrawals } from './withdrawals.ts';
import { PeriodicTask } from '../core/periodic-task.ts';

/** What the sender needs. */
export interface WithdrawalSenderDeps {
  db: Db;
  log: Logger;
  spending: Pick<Spending, 'spend'>;
  withdrawals: Withdrawals;
  /** How often to look for unsent withdrawals (default 5 s); confirmations also kick it at once. */
  intervalMs?: number;
}

/** The background loop that turns `pending` withdrawals without a transaction into spends. */
export class WithdrawalSender {
  private readonly task: PeriodicTask;
  private running: Promise<void> | null = null;
  private started = false;

  constructor(private readonly deps: WithdrawalSenderDeps) {
    this.task = new PeriodicTask(() => this.runOnce(), {
      everyMs: deps.intervalMs ?? 5_000,
      onError: (err) => deps.log.error({ err: (err as Error).message }, 'withdrawal sender round failed'),
    });
  }

  start(): void {
    this.started = true;
    this.task.start();
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.task.stop();
    await this.running?.catch(() => {});
  }

  /** Looks for unsent withdrawals now (after a confirmation) instead of at the next round. */
  kick(): void {
    if (!this.started) return;
    void this.runOnce().catch((err: Error) => this.deps.log.error({ err: err.message }, 'withdrawal sender round failed'));
  }

  /** Sends every confirmed, unsent withdrawal once; a call during a round waits for it and then runs again. */
  async runOnce(): Promise<void> {
    while (this.running) await this.running.catch(() => {});
    this.running = this.round().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    const rows = await this.deps.db.kysely
      .selectFrom('withdrawals')
      .selectAll()
      .where('status', '=', 'pending')
      .where('spend_id', 'is', null)
      .orderBy('id')
      .execute();
    for (const w of rows) {
      try {
        await this.deps.spending.spend(
          {
            walletId: w.wallet_id,
            outputs: [{ address: w.settlement_address, amountSats: w.crypto_sats }],
            purpose: 'withdrawal',
            reference: w.withdrawal_id,
          },
          {
            inTransaction: async (trx, spend) => {
              await trx.updateTable('withdrawals').set({ spend_id: spend.id, txid: spend.txid }).where('id', '=', w.id).where('spend_id', 'is', null).execute();
            },
          },
        );
        // A spend answered by its reference (made before a crash) ran no inTransaction: link it now.
        await this.linkByReference(w.id, w.wallet_id, w.withdrawal_id);
        this.deps.log.info({ withdrawal_id: w.withdrawal_id }, 'withdrawal sent');
      } catch (err) {
        if (err instanceof InsufficientFundsError || err instanceof SpendRefusedError || err instanceof WatchOnlyWalletError) {
          await this.deps.withdrawals.fail(w.id, `the settlement transaction could not be made: ${err.message}`);
          this.deps.log.warn({ withdrawal_id: w.withdrawal_id, err: err.message }, 'withdrawal failed');
        } else {
          // The node is unreachable or the like: try again next round.
          await this.deps.db.kysely.updateTable('withdrawals').set((eb) => ({ send_attempts: eb('send_attempts', '+', 1n) })).where('id', '=', w.id).execute();
          this.deps.log.warn({ withdrawal_id: w.withdrawal_id, err: (err as Error).message }, 'withdrawal not sent yet; will retry');
        }
      }
    }
  }

  private async linkByReference(id: bigint, walletId: bigint, reference: string): Promise<void> {
    const spend = await this.deps.db.kysely
      .selectFrom('spends')
      .select(['id', 'txid'])
      .where('wallet_id', '=', walletId)
      .where('purpose', '=', 'withdrawal')
      .where('reference', '=', reference)
      .executeTakeFirst();
    if (spend) await this.deps.db.kysely.updateTable('withdrawals').set({ spend_id: spend.id, txid: spend.txid }).where('id', '=', id).where('spend_id', 'is', null).execute();
  }
}
