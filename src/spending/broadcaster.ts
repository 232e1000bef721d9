/**
 * Broadcasts stored spends and follows them: a spend is stored signed before it is sent, sent again until
 * the node has it, and its status follows what the chain watcher recorded (mempool, block with the wallet's
 * confirmations, or a conflicting spend of its coins, which ends it as failed and frees nothing of ours
 * that the chain did not already take).
 */
import type { Transaction } from 'kysely';
import { RpcError } from '../chain/rpc-client.ts';
import type { Database } from '../db/schema.ts';
import type { SpendingDeps } from './spending.ts';
import { insertSpend, noteBroadcastAttempt, openSpends, releaseCoins, setSpendStatus, type NewSpend, type SpendRow } from './spend-store.ts';

type Trx = Transaction<Database>;

/** Called inside the transaction that changes a spend's status. */
export type SpendStatusListener = (trx: Trx, spend: SpendRow, from: string, to: string) => Promise<void>;

// The node already has it (Core -27 "already in block chain"/"txn-already-known", bcoin "already have").
const ALREADY_KNOWN = /already|known|in block chain|txn-already/i;

/** Sends and follows stored spends. */
export class SpendBroadcaster {
  private readonly listeners: SpendStatusListener[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(private readonly deps: SpendingDeps) {}

  onStatus(listener: SpendStatusListener): void {
    this.listeners.push(listener);
  }

  start(): void {
    this.stopped = false;
    const loop = async () => {
      if (this.stopped) return;
      await this.reconcile().catch((err: Error) => this.deps.log.error({ err: err.message }, 'spend reconciliation failed'));
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.deps.pollMs);
    };
    this.timer = setTimeout(() => void loop(), 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Changes a spend's status and tells the listeners, in one transaction. */
  private async transition(spendId: bigint, to: string, cause: (trx: Trx) => Promise<void> = async () => {}): Promise<void> {
    await this.deps.db.kysely.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('spends').selectAll().where('id', '=', spendId).executeTakeFirstOrThrow();
      if (row.status === to) return;
      const now = this.deps.clock();
      const extra =
        to === 'broadcast' ? { broadcast_at: row.broadcast_at ?? BigInt(now) } : to === 'confirmed' ? { confirmed_at: BigInt(now) } : {};
      await setSpendStatus(trx, spendId, to, now, extra);
      await cause(trx);
      const updated = { ...row, status: to, ...extra };
      for (const l of this.listeners) await l(trx, updated, row.status, to);
    });
  }

  /** Sends a stored spend to the node once; failures are recorded and retried by the reconciler. */
  async broadcastOne(spendId: bigint): Promise<void> {
    const row = await this.deps.db.kysely
      .selectFrom('spends as s')
      .innerJoin('wallets as w', 'w.id', 's.wallet_id')
      .selectAll('s')
      .select('w.mode')
      .where('s.id', '=', spendId)
      .executeTakeFirstOrThrow();
    if (row.status !== 'signed' && row.status !== 'broadcast') return;
    if (await this.send(row)) {
      if (row.status === 'signed') await this.transition(row.id, 'broadcast');
    }
  }

  /** sendrawtransaction; true when the node has the transaction afterwards. */
  private async send(row: SpendRow & { mode: string }): Promise<boolean> {
    const chain = this.deps.chains.get(row.mode as 'live' | 'test');
    if (!chain) return false;
    try {
      await chain.source.broadcast(Buffer.from(row.raw_hex, 'hex'));
      await noteBroadcastAttempt(this.deps.db, row.id, null, this.deps.clock());
      return true;
    } catch (err) {
      if (err instanceof RpcError && ALREADY_KNOWN.test(err.message)) return true;
      const message = (err as Error).message;
      await noteBroadcastAttempt(this.deps.db, row.id, message.slice(0, 500), this.deps.clock());
      this.deps.log.warn({ spend: row.id.toString(), txid: row.txid, err: message }, 'broadcast failed; will retry');
      return false;
    }
  }

  /** Re-checks every open spend once (one at a time, never two passes together). */
  reconcile(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.reconcileAll().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async reconcileAll(): Promise<void> {
    const spends = await openSpends(this.deps.db);
    const tips = new Map<string, bigint>();
    for (const s of spends) {
      if (!tips.has(s.mode)) {
        const tip = await this.deps.db.kysely.selectFrom('chain_tips').select('tip_height').where('chain', '=', s.mode).executeTakeFirst();
        tips.set(s.mode, tip?.tip_height ?? -1n);
      }
      const seen = await this.deps.db.kysely
        .selectFrom('chain_txs')
        .select(['state', 'block_height'])
        .where('chain', '=', s.mode)
        .where('txid', '=', s.txid)
        .executeTakeFirst();
      if (seen?.state === 'block' && seen.block_height !== null) {
        const confirmations = (tips.get(s.mode) ?? -1n) - seen.block_height + 1n;
        if (confirmations >= s.required_confirmations) await this.transition(s.id, 'confirmed');
        else if (s.status !== 'broadcast') await this.transition(s.id, 'broadcast');
        continue;
      }
      if (seen?.state === 'mempool') {
        if (s.status !== 'broadcast') await this.transition(s.id, 'broadcast');
        continue;
      }
      if (await this.conflicted(s)) {
        await this.transition(s.id, 'failed', async (trx) => {
          await releaseCoins(trx, s.id);
          await trx.updateTable('spends').set({ last_error: 'a coin of this spend was spent by another transaction' }).where('id', '=', s.id).execute();
        });
        continue;
      }
      // Unknown to the watcher, or dropped from the mempool: send it (again).
      if (await this.send(s)) {
        if (s.status !== 'broadcast') await this.transition(s.id, 'broadcast');
      }
    }
  }

  /** True when a transaction other than this spend's (or its replacements') spends one of its coins. */
  private async conflicted(s: SpendRow & { mode: string }): Promise<boolean> {
    const ours = await this.deps.db.kysely.selectFrom('spend_replacements').select('txid').where('spend_id', '=', s.id).execute();
    const txids = [s.txid, ...ours.map((r) => r.txid)];
    const other = await this.deps.db.kysely
      .selectFrom('spend_inputs as i')
      .innerJoin('chain_spends as cs', 'cs.output_id', 'i.output_id')
      .innerJoin('chain_txs as t', 't.id', 'cs.tx_id')
      .select('t.txid')
      .where('i.spend_id', '=', s.id)
      .where('t.state', '!=', 'withdrawn')
      .where('t.txid', 'not in', txids)
      .executeTakeFirst();
    return other !== undefined;
  }

  /**
   * Records a transaction signed elsewhere (a merchant's PSBT) whose inputs were checked to be the
   * wallet's free coins, reserving them in the same transaction, then broadcasts it.
   */
  async recordExternal(spend: Omit<NewSpend, 'kind' | 'status'>, inTransaction?: (trx: Trx, row: SpendRow) => Promise<void>): Promise<SpendRow> {
    const row = await this.deps.db.kysely.transaction().execute(async (trx) => {
      const r = await insertSpend(trx, { ...spend, kind: 'external', status: 'signed' }, this.deps.clock());
      if (inTransaction) await inTransaction(trx, r);
      return r;
    });
    await this.broadcastOne(row.id);
    return this.deps.db.kysely.selectFrom('spends').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
  }
}
