import { UsageError, type Command } from '../command.ts';
import { openStore } from '../open-store.ts';
import type { Db } from '../../db/database.ts';
import { hashToken } from '../../security/tokens.ts';
import { listDeliveries, redeliver } from '../../notify/deliveries.ts';
import { say, sayJson, warn } from '../output.ts';

/** The outbox rows a payment reference, a payment form token or an order address names; null when it names nothing. */
async function eventFilter(db: Db, id: string): Promise<{ label: string; ids: bigint[] } | null> {
  const k = db.kysely;
  const payment = await k.selectFrom('payments').select('id').where('reference', '=', id).executeTakeFirst();
  if (payment) {
    const rows = await k.selectFrom('outbox').select('id').where('payment_id', '=', payment.id).execute();
    return { label: `payment ${id}`, ids: rows.map((r) => r.id) };
  }
  const form = await k.selectFrom('payment_forms').select('id').where('token_hash', '=', hashToken(id)).executeTakeFirst();
  if (form) {
    const rows = await k.selectFrom('outbox').select('id').where('order_kind', '=', 'form').where('order_id', '=', form.id).execute();
    return { label: 'payment form', ids: rows.map((r) => r.id) };
  }
  const address = await k.selectFrom('addresses').select('id').where('address', '=', id).executeTakeFirst();
  if (address) {
    // Every order that used the address: set_addr orders and payment forms (and a payment request's events).
    const forms = await k.selectFrom('payment_forms').select('id').where('address_id', '=', address.id).execute();
    const orders = await k.selectFrom('address_orders').select('id').where('address_id', '=', address.id).execute();
    const payments = await k.selectFrom('payments').select('id').where('address_id', '=', address.id).execute();
    const rows = await k
      .selectFrom('outbox')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('id', '=', -1n),
          ...(forms.length ? [eb.and([eb('order_kind', '=', 'form'), eb('order_id', 'in', forms.map((f) => f.id))])] : []),
          ...(orders.length ? [eb.and([eb('order_kind', '=', 'address'), eb('order_id', 'in', orders.map((o) => o.id))])] : []),
          ...(payments.length ? [eb('payment_id', 'in', payments.map((p) => p.id))] : []),
        ]),
      )
      .execute();
    return { label: `address ${id}`, ids: rows.map((r) => r.id) };
  }
  return null;
}

/** `satgate webhook deliveries <payment_reference | form_token | address> [--redeliver <event_id>|--redeliver-all] [--json]`. */
export const webhookCommands: Command[] = [
  {
    path: ['webhook', 'deliveries'],
    summary: 'list the notifications of a payment, payment form or order address and their delivery attempts; optionally send one again',
    usage:
      'satgate webhook deliveries <payment_reference | form_token | order_address> [--json] [--redeliver <event_id> | --redeliver-all]\n\n' +
      'Redelivery queues the same event (same event id) again at once; a running server sends it within a second,\n' +
      'otherwise the next start does.',
    run: async (args) => {
      const reference = args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '--redeliver');
      if (!reference) throw new UsageError('a payment_reference, payment form token or order address is required');
      const redeliverIdx = args.indexOf('--redeliver');
      const redeliverId = redeliverIdx >= 0 ? args[redeliverIdx + 1] : undefined;
      if (redeliverIdx >= 0 && !redeliverId) throw new UsageError('--redeliver needs an event id');
      const { db } = await openStore();
      try {
        const filter = await eventFilter(db, reference);
        if (!filter) throw new UsageError(`no payment, payment form or order address ${reference}`);
        const events = { outboxIds: filter.ids };
        if (redeliverId || args.includes('--redeliver-all')) {
          const n = await redeliver(db, events, Date.now(), redeliverId);
          if (redeliverId && n === 0) throw new UsageError(`no event ${redeliverId} for ${filter.label}`);
          warn`queued ${n} event(s) for redelivery`;
        }
        const iso = (ms: number) => new Date(ms).toISOString();
        const report = (await listDeliveries(db, events)).map((e) => ({
          event_id: e.event_id,
          kind: e.kind,
          target: e.target,
          state: e.state,
          status: e.status,
          created: iso(e.created_at),
          next_attempt: e.next_attempt_at === null ? null : iso(e.next_attempt_at),
          attempts: e.attempts.map((a) => ({ ...a, at: iso(a.at) })),
        }));
        if (args.includes('--json')) {
          sayJson(report, 2);
          return;
        }
        if (report.length === 0) say`no notifications for ${reference} yet`;
        for (const e of report) {
          say`${e.event_id}  ${e.kind}  ${e.status ?? ''}  ${e.state}  -> ${e.target}`;
          for (const a of e.attempts) {
            say`    #${a.attempt} ${a.at}  ${a.http_status ?? '-'}  ${a.duration_ms} ms${a.error ? `  ${a.error}` : ''}`;
          }
          if (e.next_attempt) say`    next attempt ${e.next_attempt}`;
        }
      } finally {
        await db.close();
      }
    },
  },
];
