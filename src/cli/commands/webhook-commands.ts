import { UsageError, type Command } from '../command.ts';
import { openStore } from '../open-store.ts';

/** `satgate webhook deliveries <payment_reference> [--redeliver <event_id>|--redeliver-all] [--json]`. */
export const webhookCommands: Command[] = [
  {
    path: ['webhook', 'deliveries'],
    summary: 'list the notifications of a payment and their delivery attempts; optionally send one again',
    usage:
      'satgate webhook deliveries <payment_reference> [--json] [--redeliver <event_id> | --redeliver-all]\n\n' +
      'Redelivery queues the same event (same event id) again at once; a running server sends it within a second,\n' +
      'otherwise the next start does.',
    run: async (args) => {
      const reference = args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '--redeliver');
      if (!reference) throw new UsageError('a payment_reference is required');
      const redeliverIdx = args.indexOf('--redeliver');
      const redeliverId = redeliverIdx >= 0 ? args[redeliverIdx + 1] : undefined;
      if (redeliverIdx >= 0 && !redeliverId) throw new UsageError('--redeliver needs an event id');
      const { db } = await openStore();
      try {
        const payment = await db.kysely.selectFrom('payments').select(['id', 'reference']).where('reference', '=', reference).executeTakeFirst();
        if (!payment) throw new UsageError(`no payment with reference ${reference}`);
        const now = Date.now();
        if (redeliverId || args.includes('--redeliver-all')) {
          let q = db.kysely
            .updateTable('outbox')
            .set({ state: 'pending', next_attempt_at: BigInt(now), locked_until: null })
            .where('payment_id', '=', payment.id);
          if (redeliverId) q = q.where('event_id', '=', redeliverId);
          const result = await q.executeTakeFirst();
          const n = Number(result.numUpdatedRows);
          if (redeliverId && n === 0) throw new UsageError(`no event ${redeliverId} for payment ${reference}`);
          console.error(`queued ${n} event(s) for redelivery`);
        }
        const events = await db.kysely.selectFrom('outbox').selectAll().where('payment_id', '=', payment.id).orderBy('id').execute();
        const attempts = events.length
          ? await db.kysely.selectFrom('outbox_attempts').selectAll().where('outbox_id', 'in', events.map((e) => e.id)).orderBy('id').execute()
          : [];
        const report = events.map((e) => ({
          event_id: e.event_id,
          kind: e.kind,
          target: e.target,
          state: e.state,
          status: (JSON.parse(e.payload_json) as { status?: string }).status ?? null,
          created: new Date(Number(e.created_at)).toISOString(),
          next_attempt: e.state === 'pending' ? new Date(Number(e.next_attempt_at)).toISOString() : null,
          attempts: attempts
            .filter((a) => a.outbox_id === e.id)
            .map((a) => ({
              attempt: Number(a.attempt),
              at: new Date(Number(a.at)).toISOString(),
              http_status: a.http_status === null ? null : Number(a.http_status),
              error: a.error,
              duration_ms: Number(a.duration_ms),
            })),
        }));
        if (args.includes('--json')) {
          console.log(JSON.stringify(report, null, 2));
          return;
        }
        if (report.length === 0) console.log(`no notifications for ${reference} yet`);
        for (const e of report) {
          console.log(`${e.event_id}  ${e.kind}  ${e.status ?? ''}  ${e.state}  -> ${e.target}`);
          for (const a of e.attempts) {
            console.log(`    #${a.attempt} ${a.at}  ${a.http_status ?? '-'}  ${a.duration_ms} ms${a.error ? `  ${a.error}` : ''}`);
          }
          if (e.next_attempt) console.log(`    next attempt ${e.next_attempt}`);
        }
      } finally {
        await db.close();
      }
    },
  },
];
