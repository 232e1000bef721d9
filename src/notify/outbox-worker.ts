import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import { claimDueOutbox, type OutboxRow } from '../db/outbox-claims.ts';
import { nextAttemptAt } from './retry-schedule.ts';
import type { AttemptOutcome, WebhookSender } from './webhook-sender.ts';
import type { Mailer } from './mailer.ts';
import { renderEventMail } from './event-mail.ts';
import { openSealedMail } from './sealed-mail.ts';
import type { MasterKey } from '../security/master-key.ts';
import { PeriodicTask } from '../core/periodic-task.ts';

/** A kind of delivery a capability registers: which rows are its own, their ordering lane and how they are signed and sent. */
export interface DeliveryKind {
  /** True for the rows this kind delivers. */
  owns(row: OutboxRow): boolean;
  /** Rows of one lane go out one after the other, in the order they happened; other lanes run in parallel. */
  lane(row: OutboxRow): string;
  send(row: OutboxRow, now: number): Promise<AttemptOutcome>;
}

/** Worker settings. */
export interface OutboxWorkerOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  webhooks: WebhookSender;
  mailer: Mailer;
  /** Opens sealed messages (login codes and other secrets never sit in the outbox in clear). */
  masterKey: MasterKey;
  /** How often to look for due events (default 1000 ms). */
  intervalMs?: number;
  /** Events handled per round (default 20). */
  batchSize?: number;
}

/**
 * Delivers the outbox: claims due rows, sends each, records the attempt, and reschedules failures on
 * the retry schedule. State lives only in the database, so a restart picks up exactly where it stopped.
 */
export class OutboxWorker {
  private running: Promise<number> | null = null;
  private readonly task: PeriodicTask;

  private readonly kinds: DeliveryKind[] = [];

  constructor(private readonly opts: OutboxWorkerOptions) {
    this.task = new PeriodicTask(() => this.runOnce(), {
      everyMs: opts.intervalMs ?? 1000,
      onError: (err) => this.opts.log.error({ err }, 'outbox round failed'),
    });
  }

  /** Adds a delivery kind (a capability's own signer); rows no kind owns go out as plain webhooks or mail. */
  register(kind: DeliveryKind): void {
    this.kinds.push(kind);
  }

  /** Starts the delivery loop. */
  start(): void {
    this.task.start();
  }

  /**
   * Runs a round now instead of at the next tick: called after a transaction that queued events commits,
   * so a webhook leaves as soon as its status change is durable. The timer stays the safety net (other
   * processes' events, retries).
   */
  wake(): void {
    this.task.wake();
  }

  /** Stops the loop, waiting for a round in progress. */
  async stop(): Promise<void> {
    await this.task.stop();
    await this.running?.catch(() => {});
  }

  /** Delivers every due event once; returns how many were attempted. */
  async runOnce(): Promise<number> {
    if (this.running) return this.running;
    this.running = (async () => {
      const now = this.opts.clock();
      const rows = await claimDueOutbox(this.opts.db, now, this.opts.batchSize ?? 20, 60_000);
      // A kind's lane (a Greenfield webhook) receives its events one after the other; everything else goes out in parallel.
      const lanes = new Map<string, OutboxRow[]>();
      // RETURNING does not keep the claim's order (PostgreSQL): ids are the order events happened in.
      for (const row of [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
        const kind = this.kindOf(row);
        const lane = kind ? kind.lane(row) : `row:${row.id}`;
        lanes.set(lane, [...(lanes.get(lane) ?? []), row]);
      }
      await Promise.all(
        [...lanes.values()].map(async (lane) => {
          for (const row of lane) await this.deliver(row);
        }),
      );
      return rows.length;
    })();
    try {
      return await this.running;
    } finally {
      this.running = null;
    }
  }

  private kindOf(row: OutboxRow): DeliveryKind | undefined {
    return this.kinds.find((k) => k.owns(row));
  }

  private async deliver(row: OutboxRow): Promise<void> {
    const now = this.opts.clock();
    let outcome: AttemptOutcome;
    const kind = this.kindOf(row);
    if (kind) {
      outcome = await kind.send(row, now);
    } else if (row.kind === 'webhook') {
      outcome = await this.opts.webhooks.send(row.target, row.payload_json, row.wallet_id, row.event_id, now);
    } else {
      const payload = JSON.parse(row.payload_json) as Record<string, unknown>;
      let sealed: { subject: string; text: string } | null = null;
      let unreadable: string | null = null;
      try {
        sealed = openSealedMail(this.opts.masterKey, payload);
      } catch {
        unreadable = 'the sealed message cannot be opened with this master key';
      }
      outcome = unreadable
        ? { ok: false, httpStatus: null, error: unreadable, durationMs: 0 }
        : await this.opts.mailer.send({ to: row.target, ...(sealed ?? renderEventMail(payload)) }, row.event_id);
    }
    const attempt = Number(row.attempts) + 1;
    const doneAt = this.opts.clock();
    // A target refused for what it is (loopback, private, metadata) stays refused: failed now, with the reason.
    const retryAt = outcome.ok || outcome.permanent ? null : nextAttemptAt(attempt, Number(row.created_at), doneAt);
    await this.opts.db.kysely.transaction().execute(async (trx) => {
      await trx
        .insertInto('outbox_attempts')
        .values({
          outbox_id: row.id,
          attempt: BigInt(attempt),
          at: BigInt(now),
          http_status: outcome.httpStatus === null ? null : BigInt(outcome.httpStatus),
          error: outcome.error,
          duration_ms: BigInt(Math.round(outcome.durationMs)),
        })
        .execute();
      await trx
        .updateTable('outbox')
        .set({
          attempts: BigInt(attempt),
          state: outcome.ok ? 'delivered' : retryAt === null ? 'failed' : 'pending',
          next_attempt_at: BigInt(retryAt ?? doneAt),
          delivered_at: outcome.ok ? BigInt(doneAt) : null,
          last_error: outcome.error,
          locked_until: null,
        })
        .where('id', '=', row.id)
        .execute();
    });
    const fields = { event_id: row.event_id, kind: row.kind, attempt, status: outcome.httpStatus };
    if (outcome.ok) this.opts.log.info(fields, 'notification delivered');
    else if (outcome.permanent) this.opts.log.error({ ...fields, error: outcome.error }, 'notification failed for good: its target is refused');
    else if (retryAt === null) this.opts.log.error({ ...fields, error: outcome.error }, 'notification failed for good after its retry window');
    else this.opts.log.warn({ ...fields, error: outcome.error, retry_at: new Date(retryAt).toISOString() }, 'notification failed; will retry');
  }
}
